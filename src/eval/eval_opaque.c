/* eval_opaque.c: the deterministic model of operations whose results
 * come from outside the module: custom-call, collectives (and their
 * async start/done forms), infeed/outfeed, send/recv, rng,
 * rng-bit-generator, rng-get-and-update-state, partition-id, replica-id,
 * after-all, and copy-start/copy-done.
 *
 * An opaque result is a pure function of the operation's kind (its
 * opcode, the synchronous collective's name for async forms, the target
 * of a custom-call) and its operands' values: their bytes are hashed into
 * a seed that fills each leaf of the result with small values of its
 * type (splitmix64). Two modules feeding such an operation the same
 * values therefore see the same results. */
#include <math.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

uint64_t
ev_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t
next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return ev_mix64(*s);
}

/* fills n elements: FILL_SMALL floats in [-1, 1), integers in [0, 8);
 * FILL_POSITIVE floats in [0.5, 1.5); FILL_BITS every bit random */
void
ev_fill_random(int type, unsigned char *p, int64_t n, uint64_t seed, int mode)
{
	int cl = hlo_typeinfo[type].cls, esz = hlo_type_bytes(type);
	uint64_t s = ev_mix64(seed), r;
	Lane l[EV_CHUNK];
	int64_t k, j, w;
	double u;

	for (k = 0; k < n; k += w) {
		w = n - k < EV_CHUNK ? n - k : EV_CHUNK;
		for (j = 0; j < w; j++) {
			r = next(&s);
			if (mode == FILL_BITS && cl != C_FLOAT &&
			    cl != C_CPLX) {
				l[j].u = cl == C_PRED ? r & 1 : r;
				if (cl == C_SINT)
					l[j].s = (int64_t)r;
				continue;
			}
			u = (r >> 11) * (1.0 / 9007199254740992.0);
			switch (cl) {
			case C_FLOAT:
				l[j].f = mode == FILL_POSITIVE ? 0.5 + u :
					2 * u - 1;
				break;
			case C_CPLX:
				l[j].c[0] = 2 * u - 1;
				l[j].c[1] = 2 * ((next(&s) >> 11) *
					(1.0 / 9007199254740992.0)) - 1;
				break;
			case C_PRED:
				l[j].u = r >> 63;
				break;
			default:
				l[j].u = r >> 61;
			}
		}
		ev_lane_store(type, l, w, p + k * esz);
	}
}

static uint64_t
hashstr(uint64_t h, const char *s, size_t n)
{
	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* mixes the values of v (tuples flattened, tokens skipped) into h */
static uint64_t
hashval(uint64_t h, const HloVal *v)
{
	int64_t k, nb, b = hlo_typeinfo[v->type].bits;
	uint64_t x;

	if (v->type == TY_TUPLE) {
		for (k = 0; k < v->n; k++)
			h = hashval(ev_mix64(h + k), v->elems[k]);
		return h;
	}
	if (v->type >= TY_TUPLE)
		return h;
	h = ev_mix64(h ^ ((uint64_t)v->type << 56) ^ (uint64_t)v->n);
	nb = v->n * ev_esz(v->type);
	if (b < 8) {
		for (k = 0; k < v->n; k++)
			h = (h ^ (v->data[k] & ((1u << b) - 1))) *
				1099511628211ull;
		return ev_mix64(h);
	}
	for (k = 0; k + 8 <= nb; k += 8) {
		memcpy(&x, v->data + k, 8);
		h = ev_mix64(h ^ x);
	}
	x = 0;
	memcpy(&x, v->data + k, nb - k);
	return ev_mix64(h ^ x ^ ((uint64_t)(nb - k) << 60));
}

/* a value of shape whose leaves are filled from seed h; *leaf counts
 * leaves so that equal shapes fill equally */
static HloVal *
opaque_fill(HloEval *ev, uint32_t shape, uint64_t h, int mode, int *leaf)
{
	const HloShape *sh = hlo_sh(ev->m, shape);
	HloVal *v;
	uint32_t k;

	if (sh->type == TY_TUPLE) {
		v = hlo_val_tuple(ev, shape);
		for (k = 0; k < v->n; k++) {
			v->elems[k] = opaque_fill(ev, hlo_tuple_elems(ev->m,
				hlo_sh(ev->m, shape))[k], h, mode, leaf);
			if (!v->elems[k]) {
				hlo_val_unref(ev, v);
				return NULL;
			}
		}
		return v;
	}
	v = hlo_val_array(ev, shape);
	if (v && v->type < TY_TUPLE)
		ev_fill_random(v->type, v->data, v->n,
			ev_mix64(h + (uint64_t)(*leaf)++), mode);
	return v;
}

/* the kind hashed for op: async forms hash as their synchronous op */
static const char *
kindname(int op)
{
	switch (op) {
	case HOP_ALLREDUCESTART: return "all-reduce";
	case HOP_ALLGATHERSTART: return "all-gather";
	case HOP_COLLPERMUTESTART: return "collective-permute";
	}
	return hlo_opinfo[op].name;
}

static uint64_t
seed_of(HloEval *ev, const HloInstr *in, HloVal **ops)
{
	const char *k = kindname(in->op), *t;
	uint64_t h = hashstr(1469598103934665603ull, k, strlen(k));
	uint32_t n, j;

	if (in->op == HOP_CUSTOMCALL) {
		t = hlo_attr_word(ev->m, in, A_CUSTOM_CALL_TARGET, &n);
		if (t)
			h = hashstr(h ^ 0x3a, t, n);
	}
	if (in->op == HOP_RNG) {
		t = hlo_attr_word(ev->m, in, A_DISTRIBUTION, &n);
		if (t)
			h = hashstr(h ^ 0x3b, t, n);
	}
	if (in->op == HOP_RNGGETSTATE)
		h = ev_mix64(h ^ hlo_attr_int(ev->m, in, A_DELTA, 0));
	for (j = 0; j < in->nops; j++)
		h = hashval(ev_mix64(h + j), ops[j]);
	return h;
}

static int
fill_result(HloEval *ev, uint32_t shape, uint64_t h, int mode, HloVal **out)
{
	int leaf = 0;

	*out = opaque_fill(ev, shape, h, mode, &leaf);
	return *out ? 0 : -1;
}

/* rng: uniform in [a, b) or normal(a, b) */
static int
rng(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int normal = hlo_attr_is(ev->m, in, A_DISTRIBUTION, "rng_normal");
	uint64_t s = seed_of(ev, in, ops), r;
	double a, b, u, v2;
	HloVal *v;
	Lane l;
	int64_t k;
	int cl;

	if (in->nops < 2 || ops[0]->type >= TY_TUPLE || ops[0]->n != 1 ||
	    ops[1]->type >= TY_TUPLE || ops[1]->n != 1)
		return ev_unsupported(ev, c, i, "bad rng operands");
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	a = ev_get_f(ops[0]->type, ops[0]->data);
	b = ev_get_f(ops[1]->type, ops[1]->data);
	cl = hlo_typeinfo[v->type].cls;
	for (k = 0; k < v->n; k++) {
		r = next(&s);
		u = (r >> 11) * (1.0 / 9007199254740992.0);
		if (normal) {
			v2 = ((next(&s) >> 11) + 1) *
				(1.0 / 9007199254740993.0);
			u = a + b * sqrt(-2 * log(v2)) * cos(2 * M_PI * u);
		} else if (cl == C_FLOAT) {
			u = a + u * (b - a);
		}
		if (cl == C_FLOAT)
			l.f = u;
		else if (cl == C_PRED)
			l.u = r & 1;
		else
			l.s = b > a ? (int64_t)a + (int64_t)(r %
				(uint64_t)(b - a)) : (int64_t)a;
		ev_lane_store(v->type, &l, 1, v->data + k * ev_esz(v->type));
	}
	*out = v;
	return 0;
}

static const char *const identity_targets[] = {
	"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape",
	"MoveToHost", "MoveToDevice", "annotate_device_placement",
	"LayoutConstraint", "X64Combine",
};

static int
is_topk_call(const HloModule *m, const HloInstr *in)
{
	uint32_t n;
	const char *t = hlo_attr_word(m, in, A_CUSTOM_CALL_TARGET, &n);

	return t && n == 4 && !memcmp(t, "TopK", 4) && in->ncalled == 1;
}

static int
identity_call(HloEval *ev, const HloInstr *in, HloVal **ops, HloVal **out)
{
	const char *t;
	uint32_t n;
	size_t k;
	const HloShape *sh = hlo_sh(ev->m, in->shape);

	t = hlo_attr_word(ev->m, in, A_CUSTOM_CALL_TARGET, &n);
	if (!t || in->nops != 1 || ops[0]->type >= TY_TUPLE ||
	    sh->type != ops[0]->type ||
	    hlo_shape_elems(ev->m, in->shape) != ops[0]->n)
		return 0;
	for (k = 0; k < sizeof identity_targets / sizeof *identity_targets;
	     k++)
		if (strlen(identity_targets[k]) == n &&
		    !memcmp(identity_targets[k], t, n)) {
			*out = ev_view(ev, ops[0], in->shape);
			return 1;
		}
	return 0;
}

static int
fits_shape(HloEval *ev, const HloVal *v, uint32_t shape)
{
	const HloShape *sh = hlo_sh(ev->m, shape);

	return sh->type == v->type && sh->type < TY_TUPLE &&
		hlo_shape_elems(ev->m, shape) == v->n;
}

/* async start forms: (operands, results, context..) */
static int
start_tuple(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	const HloShape *sh = hlo_sh(m, in->shape);
	HloVal *t;

	if (sh->type != TY_TUPLE || sh->ntuple < 2)
		return fill_result(ev, in->shape, seed_of(ev, in, ops),
			FILL_SMALL, out);
	t = hlo_val_tuple(ev, in->shape);
	if (in->nops == 1 && hlo_shape_compatible(m, ops[0]->shape,
	    hlo_tuple_elems(m, sh)[0]))
		t->elems[0] = hlo_val_ref(ops[0]);
	else
		t->elems[0] = ev_zero(ev, hlo_tuple_elems(m, sh)[0]);
	if (!t->elems[0] || fill_result(ev, hlo_tuple_elems(m, hlo_sh(m,
	    in->shape))[1], seed_of(ev, in, ops), FILL_SMALL,
	    &t->elems[1]) < 0) {
		hlo_val_unref(ev, t);
		return -1;
	}
	if (!ev_zero_from(ev, t, in->shape, 2))
		return -1;
	*out = t;
	return 0;
}

static int
element(HloEval *ev, uint32_t c, uint32_t i, HloVal *t, int64_t k,
	HloVal **out)
{
	if (t->type != TY_TUPLE && fits_shape(ev, t, hlo_ins(ev->m, c,
	    i)->shape)) {
		*out = hlo_val_ref(t);	/* a start whose result is the array */
		return 0;
	}
	if (t->type != TY_TUPLE || k >= t->n)
		return ev_unsupported(ev, c, i, "operand is not the tuple of "
			"its start");
	*out = hlo_val_ref(t->elems[k]);
	return 0;
}

static int
rngbits(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	const HloShape *sh = hlo_sh(m, in->shape);
	uint64_t h = seed_of(ev, in, ops);
	HloVal *t;
	int leaf = 0;

	if (sh->type != TY_TUPLE || sh->ntuple != 2)
		return ev_unsupported(ev, c, i, "result is not a pair");
	t = hlo_val_tuple(ev, in->shape);
	t->elems[0] = opaque_fill(ev, hlo_tuple_elems(m, sh)[0], h, FILL_BITS,
		&leaf);
	t->elems[1] = t->elems[0] ? opaque_fill(ev, hlo_tuple_elems(m,
		hlo_sh(m, in->shape))[1], h, FILL_BITS, &leaf) : NULL;
	if (!t->elems[1]) {
		hlo_val_unref(ev, t);
		return -1;
	}
	*out = t;
	return 0;
}

int
ev_opaque(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	HloVal *t;

	switch (in->op) {
	case HOP_AFTERALL:
		return fill_result(ev, in->shape, 0, FILL_SMALL, out);
	case HOP_RNG:
		return rng(ev, c, i, ops, out);
	case HOP_RNGBITGEN:
		return rngbits(ev, c, i, ops, out);
	case HOP_RNGGETSTATE:
		return fill_result(ev, in->shape, seed_of(ev, in, ops),
			FILL_BITS, out);
	case HOP_ALLREDUCEDONE:
		return in->nops == 1 ? (*out = hlo_val_ref(ops[0]), 0) :
			ev_unsupported(ev, c, i, "bad operands");
	case HOP_ALLGATHERDONE: case HOP_COLLPERMUTEDONE:
		return element(ev, c, i, ops[0], 1, out);
	case HOP_ALLGATHERSTART: case HOP_COLLPERMUTESTART:
		return start_tuple(ev, c, i, ops, out);
	case HOP_COPYSTART:
		if (hlo_sh(ev->m, in->shape)->type != TY_TUPLE ||
		    hlo_sh(ev->m, in->shape)->ntuple < 2)
			return ev_unsupported(ev, c, i, "result is not a "
				"tuple");
		t = hlo_val_tuple(ev, in->shape);
		t->elems[0] = hlo_val_ref(ops[0]);
		t->elems[1] = hlo_val_ref(ops[0]);
		if (t->n > 2 && !(t->elems[2] = ev_zero(ev, hlo_tuple_elems(
		    ev->m, hlo_sh(ev->m, in->shape))[2]))) {
			hlo_val_unref(ev, t);
			return -1;
		}
		*out = t;
		return 0;
	case HOP_COPYDONE:
		return element(ev, c, i, ops[0], 0, out);
	case HOP_RECVDONE:
		if (ops[0]->type == TY_TUPLE && ops[0]->n >= 1 &&
		    hlo_sh(ev->m, in->shape)->type == TY_TUPLE &&
		    hlo_sh(ev->m, in->shape)->ntuple == 2) {
			t = hlo_val_tuple(ev, in->shape);
			t->elems[0] = hlo_val_ref(ops[0]->elems[0]);
			t->elems[1] = ev_zero(ev, hlo_tuple_elems(ev->m,
				hlo_sh(ev->m, in->shape))[1]);
			*out = t;
			return t->elems[1] ? 0 : (hlo_val_unref(ev, t), -1);
		}
		break;
	case HOP_CUSTOMCALL:
		if (identity_call(ev, in, ops, out))
			return 0;
		if (is_topk_call(ev->m, in))
			return ev_topk_call(ev, c, i, ops, out);
		break;
	}
	return fill_result(ev, in->shape, seed_of(ev, in, ops), FILL_SMALL,
		out);
}
