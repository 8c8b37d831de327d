/* eval_opaque.c: the deterministic model of operations whose results
 * come from outside the module: custom-call, collectives (and their
 * async start/done forms), infeed/outfeed, send/recv, rng,
 * rng-bit-generator, rng-get-and-update-state, partition-id, replica-id,
 * after-all, and copy-start/copy-done.
 *
 * Every result is a pure function of the operation (its opcode, the
 * synchronous collective's name for async forms, the target of a
 * custom-call, its attributes) and of its operands' values, never of the
 * trial's seed. Where a float result is derived from float operands it is
 * a smooth (Lipschitz) function of them, so that a last-bit rounding
 * change upstream (a pass reassociating a sum) changes the result by as
 * little and verify's tolerances apply:
 *
 * - Collectives: every other replica or partition of the group holds the
 *   same data as this one. all-reduce (and all-reduce-start) applies its
 *   reducer to group-size equal values (by doubling: r(2k) = f(r(k),
 *   r(k)), r(2k+1) = f(r(2k), x); a sum is n * x up to rounding);
 *   all-gather concatenates group-size copies of the operand along its
 *   dimension; reduce-scatter reduces group-size copies and keeps the
 *   first block of its dimension; all-to-all, collective-permute and
 *   collective-broadcast move data without changing it (the result is the
 *   operand, element k of a tuple form is operand k). all-reduce's group
 *   size is its first replica group's (written out or iota form) times
 *   num_partitions when a channel_id without use_global_device_ids makes
 *   the groups cross-partition; with no groups it is the module's
 *   replica_count (times num_partitions, as above), 1 when the header
 *   gives none. all-gather's and reduce-scatter's come from the shapes.
 * - PadToStatic and SliceToDynamic, xla's dynamic-shape custom-calls,
 *   run with every dynamic dimension at its bound (as get-dimension-size
 *   reads it): PadToStatic(x) is (x, each dimension's size as s32[]),
 *   SliceToDynamic(x, sizes...) is x.
 * - Qr, ProductOfElementaryHouseholderReflectors and Eigh, the targets
 *   qr_expander and eigh_expander expand, are computed (eval_decomp.c);
 *   TopK sorts.
 * - Other custom-calls (targets hlopt does not know: AwsNeuronGelu,
 *   RmsNorm, ...) and collectives whose shapes fit none of the above:
 *   float element i of output leaf l is tanh(b + w0 x0 + w1 x1 + w2 x2 +
 *   w3 x3), where x0 is element i (modulo its size) of operand leaf l
 *   (modulo their count) and x1..x3 element i + o_t (modulo its size) of
 *   operand leaf s_t, with s_t and o_t hashed from (name, l, t), and b,
 *   w0..w3 derived from the target name (0.5 <= |w0| < 1, |w1..w3| and
 *   |b| <= 0.5): a bounded mix with Lipschitz constant below 2.5 in the
 *   operands (integers count as their values; complex operands as their
 *   real part, complex outputs mix twice with other weights). tanh
 *   flattens where the mix is large: there the output hardly depends on
 *   small changes, which verify cannot tell from none.
 * - Integer and pred outputs of those, rng, rng-bit-generator, rng state,
 *   infeed, recv and the ids: the operands' bytes are hashed into a seed
 *   that fills each leaf with small values of its type (splitmix64).
 *
 * rng-bit-generator with a u64 state and unsigned data is exact instead,
 * and rng is what rng-expander makes of it, from the state modelled for
 * rng-get-and-update-state (eval_prng.c).
 *
 * Two modules feeding such an operation the same values therefore see the
 * same results, and nearly the same values give nearly the same floats. */
#include <math.h>
#include <stdlib.h>
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

typedef struct {
	uint64_t h;
	int mode, *leaf;
} Fill;

static HloVal *opaque_fill(HloEval *ev, uint32_t shape, uint64_t h, int mode,
	int *leaf);

static int
opaque_elem(HloEval *ev, uint32_t shape, uint32_t k, void *ctx, HloVal **out)
{
	const Fill *f = ctx;

	*out = opaque_fill(ev, shape, f->h, f->mode, f->leaf);
	return *out ? 0 : -1;
}

/* a value of shape whose leaves are filled from seed h; *leaf counts
 * leaves so that equal shapes fill equally */
static HloVal *
opaque_fill(HloEval *ev, uint32_t shape, uint64_t h, int mode, int *leaf)
{
	Fill f = {h, mode, leaf};
	HloVal *v;

	if (hlo_sh(ev->m, shape)->type == TY_TUPLE)
		return ev_tuple_fill(ev, shape, opaque_elem, &f, &v) < 0 ?
			NULL : v;
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

void
ev_rng_state_model(int64_t delta, uint64_t st[2])
{
	static const char k[] = "rng-get-and-update-state";
	uint64_t h = hashstr(1469598103934665603ull, k, sizeof k - 1);

	h = ev_mix64(h ^ (uint64_t)delta);
	ev_fill_random(TY_U64, (unsigned char *)st, 2, ev_mix64(h), FILL_BITS);
}

/* rng: as rng-expander expands it where it does (eval_prng.c), else
 * uniform in [a, b) or normal(a, b) from a hash of its operands */
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
	int cl, x = ev_rng_exact(ev, c, i, ops, out);

	if (x)
		return x < 0 ? -1 : 0;
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

static int
is_target(const HloModule *m, const HloInstr *in, const char *name)
{
	uint32_t n;
	const char *t = hlo_attr_word(m, in, A_CUSTOM_CALL_TARGET, &n);

	return t && n == strlen(name) && !memcmp(t, name, n);
}

/* xla's dynamic-shape custom-calls, every dynamic dimension at its bound
 * as the evaluator runs them (get-dimension-size reads the bound):
 * PadToStatic(x) is (x, each dimension's size as s32[]) and
 * SliceToDynamic(x, sizes...) is x; 0 when in is neither, or malformed */
static int
dynamic_call(HloEval *ev, const HloInstr *in, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloShape *sh = hlo_sh(m, in->shape), *x;
	const uint32_t *el;
	HloVal *t;
	Lane l;
	int k;

	if (in->nops >= 1 && is_target(m, in, "SliceToDynamic") &&
	    fits_shape(ev, ops[0], in->shape)) {
		*out = ev_view(ev, ops[0], in->shape);
		return 1;
	}
	if (in->nops != 1 || !is_target(m, in, "PadToStatic") ||
	    sh->type != TY_TUPLE || ops[0]->type >= TY_TUPLE)
		return 0;
	x = hlo_sh(m, ops[0]->shape);
	el = hlo_tuple_elems(m, sh);
	if (sh->ntuple != (uint32_t)x->rank + 1 ||
	    !fits_shape(ev, ops[0], el[0]))
		return 0;
	for (k = 0; k < x->rank; k++)
		if (hlo_sh(m, el[k + 1])->type != TY_S32 ||
		    hlo_shape_elems(m, el[k + 1]) != 1)
			return 0;
	t = hlo_val_tuple(ev, in->shape);
	if (!t)
		return -1;
	t->elems[0] = ev_view(ev, ops[0], el[0]);
	for (k = 0; k < x->rank; k++) {
		t->elems[k + 1] = hlo_val_array(ev, el[k + 1]);
		if (!t->elems[k + 1]) {
			hlo_val_unref(ev, t);
			return -1;
		}
		l.s = hlo_dims(m, x)[k];
		ev_lane_store(TY_S32, &l, 1, t->elems[k + 1]->data);
	}
	*out = t;
	return 1;
}

/* collectives: the other replicas hold the same data as this one */

/* how many participants an all-reduce combines (xla's collective group
 * modes: cross-replica, cross-replica-and-partition, flattened ids) */
static int64_t
group_size(const HloModule *m, const HloInstr *in)
{
	int64_t g = hlo_replica_group_size(m, in), n;
	int64_t r = hlo_header_int(m, "replica_count", 1);
	int64_t p = hlo_header_int(m, "num_partitions", 1);

	if (r < 1)
		r = 1;
	if (p < 1)
		p = 1;
	if (hlo_attr_int(m, in, A_USE_GLOBAL_DEVICE_IDS, 0))
		n = g > 0 ? g : r * p;
	else if (hlo_attr(m, in, A_CHANNEL_ID))
		n = (g > 0 ? g : r) * p;
	else
		n = g > 0 ? g : r;
	return n < 1 ? 1 : n > (1 << 20) ? 1 << 20 : n;
}

/* x as a value of shape (same element count), converted if its element
 * type differs */
static HloVal *
as_shape(HloEval *ev, HloVal *x, uint32_t shape)
{
	Lane l[EV_CHUNK];
	HloVal *v;
	int64_t k, w;

	if (hlo_sh(ev->m, shape)->type == x->type)
		return ev_view(ev, x, shape);
	v = hlo_val_array(ev, shape);
	for (k = 0; v && k < x->n; k += w) {
		w = x->n - k < EV_CHUNK ? x->n - k : EV_CHUNK;
		ev_lane_load(x->type, x->data + k * ev_esz(x->type), w, l);
		ev_lane_store(v->type, l, w, v->data + k * ev_esz(v->type));
	}
	return v;
}

/* *r = comp(*r, y) as a new value of shape, the old *r released; -1
 * (*r kept) when that fails */
static int
apply_into(HloEval *ev, uint32_t comp, HloVal **r, HloVal *y, uint32_t shape)
{
	HloVal *t = hlo_val_array(ev, shape);

	if (!t || ev_apply2(ev, comp, *r, y, t) < 0) {
		if (t)
			hlo_val_unref(ev, t);
		return -1;
	}
	hlo_val_unref(ev, *r);
	*r = t;
	return 0;
}

/* the reducer comp applied over n copies of x, as a value of shape */
static int
reduce_copies(HloEval *ev, uint32_t comp, HloVal *x, int64_t n,
	uint32_t shape, HloVal **out)
{
	HloVal *r;
	int b;

	if (x->type >= TY_TUPLE || hlo_sh(ev->m, shape)->type >= TY_TUPLE ||
	    hlo_shape_elems(ev->m, shape) != x->n)
		return ev_fail(ev, EV_BAD, "collective operand does not fit "
			"its result");
	if (n <= 1)
		return (*out = as_shape(ev, x, shape)) ? 0 : -1;
	for (b = 62; b > 0 && !((n >> b) & 1); b--)
		;
	r = hlo_val_ref(x);
	while (b-- > 0) {
		if (apply_into(ev, comp, &r, r, shape) < 0 ||
		    (((n >> b) & 1) && apply_into(ev, comp, &r, x, shape) < 0)) {
			hlo_val_unref(ev, r);
			return -1;
		}
	}
	*out = r;
	return 0;
}

/* copies of x along dim as a value of shape: all-gather concatenates
 * them (out[dim] = n * in[dim]); with comp, reduce-scatter reduces them
 * and keeps the first block (in[dim] = n * out[dim]); 1: shapes do not
 * fit this model */
static int
copies(HloEval *ev, HloVal *x, int64_t dim, uint32_t shape, uint32_t comp,
	HloVal **out)
{
	const int64_t *xd, *od;
	int xr, orank, d, scatter = comp != HLO_NONE;
	int64_t outer = 1, blk, n, o, r, small, big;
	HloVal *v;

	if (x->type >= TY_TUPLE || hlo_sh(ev->m, shape)->type >= TY_TUPLE)
		return 1;
	xd = ev_dims(ev, x->shape, &xr);
	od = ev_dims(ev, shape, &orank);
	if (xr != orank || dim < 0 || dim >= xr)
		return 1;
	for (d = 0; d < xr; d++)
		if (d != dim && xd[d] != od[d])
			return 1;
	small = scatter ? od[dim] : xd[dim];
	big = scatter ? xd[dim] : od[dim];
	if (small <= 0 || big % small)
		return 1;
	n = big / small;
	if (hlo_sh(ev->m, shape)->type != x->type)
		return 1;
	for (d = 0; d < dim; d++)
		outer *= xd[d];
	v = hlo_val_array(ev, shape);	/* reduce-scatter: the first block */
	if (!v)
		return -1;
	blk = (scatter ? v->n : x->n) / (outer ? outer : 1) *
		ev_esz(x->type);
	for (o = 0; o < outer; o++)
		for (r = 0; r < (scatter ? 1 : n); r++)
			memcpy(v->data + (o * (scatter ? 1 : n) + r) * blk,
				x->data + o * (scatter ? n : 1) * blk, blk);
	if (!scatter) {
		*out = v;
		return 0;
	}
	r = reduce_copies(ev, comp, v, n, shape, out);
	hlo_val_unref(ev, v);
	return r;
}

/* result (of shape s) of collective op on operand x; 1: the model does
 * not fit its shapes */
static int
collective1(HloEval *ev, const HloInstr *in, int op, HloVal *x, uint32_t s,
	HloVal **out)
{
	const HloModule *m = ev->m;
	uint32_t nd;
	const int64_t *d = hlo_attr_ints(m, in, A_DIMENSIONS, &nd);

	if (x->type >= TY_TUPLE || hlo_sh(m, s)->type >= TY_TUPLE)
		return 1;
	switch (op) {
	case HOP_ALLREDUCE: case HOP_ALLREDUCESTART:
		if (in->ncalled < 1 || hlo_shape_elems(m, s) != x->n)
			return 1;
		return reduce_copies(ev, hlo_called(m, in)[0], x,
			group_size(m, in), s, out);
	case HOP_ALLGATHER: case HOP_ALLGATHERSTART:
		return nd == 1 ? copies(ev, x, d[0], s, HLO_NONE, out) : 1;
	case HOP_REDUCESCATTER:
		return nd == 1 && in->ncalled ? copies(ev, x, d[0], s,
			hlo_called(m, in)[0], out) : 1;
	case HOP_ALLTOALL: case HOP_COLLPERMUTE: case HOP_COLLPERMUTESTART:
	case HOP_COLLBCAST:
		if (!fits_shape(ev, x, s))
			return 1;
		*out = ev_view(ev, x, s);
		return 0;
	}
	return 1;
}

/* a collective's result of shape: an array from one operand, or a tuple
 * with one element per operand; 1: the model does not fit */
static int
collective(HloEval *ev, const HloInstr *in, HloVal **ops, uint32_t shape,
	HloVal **out)
{
	const HloShape *sh = hlo_sh(ev->m, shape);
	int op = in->op, rc;
	HloVal *t;
	uint32_t k;

	if (sh->type != TY_TUPLE)
		return in->nops == 1 ? collective1(ev, in, op, ops[0], shape,
			out) : 1;
	if (sh->ntuple != in->nops)
		return 1;
	t = hlo_val_tuple(ev, shape);
	for (k = 0; k < in->nops; k++) {
		rc = collective1(ev, in, op, ops[k], hlo_tuple_elems(ev->m,
			hlo_sh(ev->m, shape))[k], &t->elems[k]);
		if (rc) {
			hlo_val_unref(ev, t);
			return rc;
		}
	}
	*out = t;
	return 0;
}

/* the smooth mix of the operands (custom-calls of unknown targets) */

#define MIX_LEAVES 256
typedef struct {
	const HloVal *v[MIX_LEAVES];
	int n;
	double w[2][5];		/* bias, same-index weight, 3 picked */
	uint64_t h;		/* the kind's hash: picks and weights */
} Mix;

static void
mix_add(Mix *x, const HloVal *v)
{
	int64_t k;

	if (v->type == TY_TUPLE) {
		for (k = 0; k < v->n; k++)
			mix_add(x, v->elems[k]);
		return;
	}
	if (v->type < TY_TUPLE && v->n > 0 && x->n < MIX_LEAVES)
		x->v[x->n++] = v;
}

static void
mix_init(Mix *x, uint64_t h, HloVal **ops, uint32_t nops)
{
	uint64_t s = h;
	double u;
	int p, k;
	uint32_t j;

	memset(x, 0, sizeof *x);
	x->h = h;
	for (j = 0; j < nops; j++)
		mix_add(x, ops[j]);
	for (p = 0; p < 2; p++)
		for (k = 0; k < 5; k++) {
			u = (next(&s) >> 11) * (1.0 / 9007199254740992.0);
			x->w[p][k] = k == 1 ? (u < 0.5 ? -0.5 - u : u) :
				u - 0.5;
		}
}

/* w elements of v from element at on, wrapping around, as doubles */
static void
mix_load(const HloVal *v, int64_t at, int64_t w, double *d)
{
	Lane l[EV_CHUNK];
	int cl = hlo_typeinfo[v->type].cls;
	int64_t k, j, seg;

	for (k = 0; k < w; k += seg, at = 0) {
		seg = v->n - at < w - k ? v->n - at : w - k;
		ev_lane_load(v->type, v->data + at * ev_esz(v->type), seg, l);
		for (j = 0; j < seg; j++)
			d[k + j] = cl == C_FLOAT ? l[j].f : cl == C_CPLX ?
				l[j].c[0] : cl == C_SINT ? (double)l[j].s :
				(double)l[j].u;
	}
}

/* elements k..k+w of output leaf l, part p (complex: 0 real, 1
 * imaginary): term t reads operand leaf src[t] from element
 * (k + off[t]) modulo its size */
static void
mix_chunk(const Mix *x, const int *src, const int64_t *off, int64_t k,
	int64_t w, int p, double *out)
{
	double d[EV_CHUNK];
	const HloVal *v;
	int64_t j;
	int t;

	for (j = 0; j < w; j++)
		out[j] = x->w[p][0];
	for (t = 0; x->n && t < 4; t++) {
		v = x->v[src[t]];
		mix_load(v, (int64_t)(((uint64_t)k + (uint64_t)off[t]) %
			(uint64_t)v->n), w, d);
		for (j = 0; j < w; j++)
			out[j] += x->w[p][1 + t] * d[j];
	}
	for (j = 0; j < w; j++)
		out[j] = tanh(out[j]);
}

/* fills shape: float leaves mixed, others from the seed *hb (the hash of
 * the operands' bytes, computed on first need) */
static HloVal *
mix_fill(HloEval *ev, uint32_t shape, const Mix *x, const HloInstr *in,
	HloVal **ops, uint64_t *hb, int *leaf)
{
	const HloShape *sh = hlo_sh(ev->m, shape);
	Lane l[EV_CHUNK];
	double re[EV_CHUNK], im[EV_CHUNK];
	HloVal *v;
	int64_t k, j, w, off[4];
	int cl, me, src[4];

	if (sh->type == TY_TUPLE) {
		v = hlo_val_tuple(ev, shape);
		for (k = 0; k < v->n; k++) {
			v->elems[k] = mix_fill(ev, hlo_tuple_elems(ev->m,
				hlo_sh(ev->m, shape))[k], x, in, ops, hb, leaf);
			if (!v->elems[k]) {
				hlo_val_unref(ev, v);
				return NULL;
			}
		}
		return v;
	}
	v = hlo_val_array(ev, shape);
	if (!v || v->type >= TY_TUPLE)
		return v;
	me = (*leaf)++;
	cl = hlo_typeinfo[v->type].cls;
	if (cl != C_FLOAT && cl != C_CPLX) {
		if (!*hb)
			*hb = seed_of(ev, in, ops) | 1;
		ev_fill_random(v->type, v->data, v->n, ev_mix64(*hb + me),
			FILL_SMALL);
		return v;
	}
	for (j = 0; j < 4 && x->n; j++) {	/* term 0: the same index */
		uint64_t r = ev_mix64(x->h ^ ((uint64_t)me << 32) ^
			(uint64_t)j);

		src[j] = j ? (int)(r % (uint64_t)x->n) : me % x->n;
		off[j] = j ? (int64_t)(ev_mix64(r) % (uint64_t)
			x->v[src[j]]->n) : 0;
	}
	for (k = 0; k < v->n; k += w) {
		w = v->n - k < EV_CHUNK ? v->n - k : EV_CHUNK;
		mix_chunk(x, src, off, k, w, 0, re);
		if (cl == C_CPLX)
			mix_chunk(x, src, off, k, w, 1, im);
		for (j = 0; j < w; j++)
			if (cl == C_FLOAT) {
				l[j].f = re[j];
			} else {
				l[j].c[0] = re[j];
				l[j].c[1] = im[j];
			}
		ev_lane_store(v->type, l, w, v->data + k * ev_esz(v->type));
	}
	return v;
}

/* the model of a custom-call of unknown target, or of a collective whose
 * shapes fit none of the data movements above, into shape */
static int
mixed_result(HloEval *ev, const HloInstr *in, HloVal **ops, uint32_t shape,
	HloVal **out)
{
	const char *k = kindname(in->op), *t;
	uint64_t h = hashstr(1469598103934665603ull, k, strlen(k)), hb = 0;
	Mix *x = xcalloc(1, sizeof *x);
	uint32_t n;
	int leaf = 0;

	if (in->op == HOP_CUSTOMCALL) {
		t = hlo_attr_word(ev->m, in, A_CUSTOM_CALL_TARGET, &n);
		if (t)
			h = hashstr(h ^ 0x3a, t, n);
	}
	mix_init(x, ev_mix64(h), ops, in->nops);
	*out = mix_fill(ev, shape, x, in, ops, &hb, &leaf);
	free(x);
	return *out ? 0 : -1;
}

/* async start forms: (operands, results, context..) */
static int
start_tuple(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	const HloShape *sh = hlo_sh(m, in->shape);
	HloVal *t;
	uint32_t rs;
	int rc;

	if (sh->type != TY_TUPLE || sh->ntuple < 2)
		return mixed_result(ev, in, ops, in->shape, out);
	t = hlo_val_tuple(ev, in->shape);
	if (in->nops == 1 && hlo_shape_compatible(m, ops[0]->shape,
	    hlo_tuple_elems(m, sh)[0]))
		t->elems[0] = hlo_val_ref(ops[0]);
	else
		t->elems[0] = ev_zero(ev, hlo_tuple_elems(m, sh)[0]);
	rs = hlo_tuple_elems(m, hlo_sh(m, in->shape))[1];
	rc = t->elems[0] ? collective(ev, in, ops, rs, &t->elems[1]) : -1;
	if (rc > 0)
		rc = mixed_result(ev, in, ops, rs, &t->elems[1]);
	if (rc < 0) {
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
	int leaf = 0, r = ev_rngbits_exact(ev, c, i, ops, out);

	if (r)
		return r < 0 ? -1 : 0;
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
	int rc;

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
		if ((rc = dynamic_call(ev, in, ops, out)) != 0)
			return rc < 0 ? -1 : 0;
		if (is_topk_call(ev->m, in))
			return ev_topk_call(ev, c, i, ops, out);
		if (ev_decomp_target(ev->m, in) >= 0)
			return ev_decomp_call(ev, c, i, ops, out);
		return mixed_result(ev, in, ops, in->shape, out);
	case HOP_ALLREDUCE: case HOP_ALLREDUCESTART: case HOP_ALLGATHER:
	case HOP_REDUCESCATTER: case HOP_ALLTOALL: case HOP_COLLPERMUTE:
	case HOP_COLLBCAST:
		rc = collective(ev, in, ops, in->shape, out);
		return rc > 0 ? mixed_result(ev, in, ops, in->shape, out) : rc;
	case HOP_COLLREDUCE: case HOP_RAGGEDALLTOALL:
		return mixed_result(ev, in, ops, in->shape, out);
	}
	return fill_result(ev, in->shape, seed_of(ev, in, ops), FILL_SMALL,
		out);
}
