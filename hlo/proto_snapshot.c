/* proto_snapshot.c: the argument literals a snapshot carries beside its
 * module, as XLA's run_hlo_module replays them: xla.HloSnapshot keeps
 * them in `arguments` (field 2, beside `hlo` = 1, an HloProto), and
 * xla.HloUnoptimizedSnapshot in `partitions` (field 2, HloInputs, whose
 * field 1 is the arguments) beside `hlo_module` (1); the first partition
 * is the one a single-device run uses. They come back as a module whose
 * entry holds one constant per argument, in order, then a root tuple():
 * the form `run --inputs` parses its literal file into, so both share
 * the evaluator's checks against the entry's parameters.
 */
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* the payloads of field num of [p, e), length-delimited only */
static size_t
fields(const uint8_t *p, const uint8_t *e, uint32_t num, WField *out,
	size_t max)
{
	WField f;
	size_t n = 0;

	while (hlo_nextfield(&p, e, &f) > 0)
		if (f.num == num && f.wt == 2) {
			if (n < max)
				out[n] = f;
			n++;
		}
	return n;
}

/* where the argument literals of a snapshot in [p, e) are: fields 2 of
 * [*lp, *le) when *lp == p (HloSnapshot), else its fields 1 (HloInputs);
 * *lp NULL when the bytes are no snapshot */
static void
arglist(const uint8_t *p, const uint8_t *e, const uint8_t **lp,
	const uint8_t **le)
{
	WField f1, f2;

	*lp = *le = NULL;
	if (hlo_ismodule(p, e) || fields(p, e, 1, &f1, 1) != 1 ||
	    !fields(p, e, 2, &f2, 1))
		return;
	if (hlo_ismodule(f1.p, f1.p + f1.n)) {
		/* HloUnoptimizedSnapshot: partitions[0].arguments */
		*lp = f2.p;
		*le = f2.p + f2.n;
		return;
	}
	if (fields(f1.p, f1.p + f1.n, 1, &f2, 1) == 1 &&
	    hlo_ismodule(f2.p, f2.p + f2.n)) {
		/* HloSnapshot: arguments are the top level's fields 2 */
		*lp = p;
		*le = e;
	}
}

/* argument k (a LiteralProto at [p, p + n)) as constant k of m */
static int
addarg(HloModule *m, uint32_t c, const uint8_t *base, const uint8_t *p,
	size_t n, size_t k, const char *fname, HloError *e)
{
	Arena arena = {NULL};
	ProtobufCAllocator al = hlo_pcallocator(&arena);
	Xla__LiteralProto *lp;
	HloBuf b = {0};
	HloAttr a;
	uint32_t s, i;
	char why[256], name[32];
	Walk w = {0};
	int r = -1;

	w.base = base;
	if (hlo_walkmsg(&w, &xla__literal_proto__descriptor, p, p + n, 0) < 0)
		return hlo_err_file(e, fname, "malformed snapshot argument %zu "
			"at byte %zu: %s", k, w.off, w.why);
	lp = xla__literal_proto__unpack(&al, n, p);
	if (!lp)
		snprintf(why, sizeof why, "protobuf-c cannot unpack it");
	else if (!lp->shape)
		snprintf(why, sizeof why, "it has no shape");
	else if (hlo_rdshape(m, lp->shape, &s, 0, why, sizeof why) >= 0 &&
	    hlo_rdlit(m, lp, s, &b, 0, why, sizeof why) >= 0 &&
	    b.len <= UINT32_MAX) {
		snprintf(name, sizeof name, "arg%zu", k);
		i = hlo_instr_add(m, c, HOP_CONSTANT, s, hlo_strz(m, name), 0,
			NULL);
		a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, b.len ? b.buf : "",
			(uint32_t)b.len);
		hlo_set_attrs(m, c, i, 1, &a);
		r = 0;
	}
	hlo_afree(&arena);
	hlo_buf_free(&b);
	if (r < 0)
		return hlo_err_file(e, fname, "snapshot argument %zu (byte "
			"%zu): %s", k, (size_t)(p - base), why);
	return 0;
}

int
hlo_read_snapshot_args(const void *data, size_t n, const char *fname,
	HloModule **out, HloError *e)
{
	const uint8_t *p = data, *lp, *le, *q;
	HloModule *m;
	WField f;
	size_t k = 0;
	uint32_t c, root;

	*out = NULL;
	arglist(p, p + n, &lp, &le);
	if (!lp)
		return 0;
	m = hlo_module_new();
	m->name = hlo_strz(m, "arguments");
	c = hlo_comp_add(m, hlo_strz(m, "arguments"));
	m->entry = c;
	for (q = lp; hlo_nextfield(&q, le, &f) > 0; )
		if ((lp == p ? f.num == 2 : f.num == 1) && f.wt == 2 &&
		    addarg(m, c, p, f.p, f.n, k++, fname, e) < 0) {
			hlo_module_free(m);
			return -1;
		}
	root = hlo_instr_add(m, c, HOP_TUPLE, hlo_shape_tuple(m, 0, NULL),
		hlo_strz(m, "none"), 0, NULL);
	m->comps[c].root = root;
	if (!k) {
		hlo_module_free(m);
		return 0;
	}
	*out = m;
	return 1;
}
