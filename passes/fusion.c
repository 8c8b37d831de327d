/* fusion.c: "fusion:cpu", "fusion:gpu" and "fusion:all", xla's
 * InstructionFusion with the ShouldFuse rules of its CPU and GPU
 * subclasses (xla/service/instruction_fusion.cc,
 * xla/service/cpu/cpu_instruction_fusion.cc,
 * xla/service/gpu/instruction_fusion.cc and gpu_fusible.cc), and a rule
 * set beyond xla's that fuses every loop-fusible edge ("fusion:all":
 * any duplication, but a producer that keeps other users is cloned into
 * at most ALL_MAX_COPIES fusions, so each instruction appears at most
 * ALL_MAX_COPIES + 1 times in the result: without it every fusion
 * repeated its whole fusible cone, 40k -> 1.9M instructions on Mixtral);
 * and "fusion-merger" (below), which shares its machinery.
 *
 * In every computation that is not a fusion computation nor the
 * to_apply/comparator of a reduce, map, sort, scatter, ... (xla's
 * MakeNonfusionComputations, minus those embedded ones), instructions are
 * taken in reverse post order; the operands of each are tried in queue
 * order; the first producer ShouldFuse accepts is cloned into the
 * consumer (a new fusion instruction named PRODUCER_CONSUMER_fusion
 * calling fused_computation, parameters param_N, or the consumer's own
 * fused computation), its parameter removed and its operands appended;
 * the producer is deleted when nothing else uses it and the fusion is
 * queued again. Producers that are not effectively unary and read more
 * than they write are not duplicated unless they fuse on all paths into
 * all their users (ComputeGloballyUnfusible).
 *
 * Not done as xla: instructions with control dependencies are never
 * fused; ShouldFuseInPlaceOp's aliasing analysis is reduced to never
 * fusing into a dynamic-update-slice whose operand 0 is the producer's
 * user elsewhere; FusionNodeIndexingEvaluation is approximated by the
 * number of paths from the fused root to the parameter (limit 8); GPU's
 * shared-memory budget and reduction-epilogue fusion are left out, and
 * no reduce fuses as a producer.
 */
#include <stdlib.h>
#include <string.h>

#include "fusion.h"
#include "fusion_edit.h"
#include "fusion_merger.h"

const char *const fu_kind_names[4] = {"kLoop", "kInput", "kOutput",
	"kCustom"};

enum { ALL_MAX_COPIES = 4, MAX_DUP_PATHS = 8, GPU_MAX_OPERANDS = 96,
	CPU_MAX_REDUCES = 5,
	CPU_MAX_CONCAT_ARGS = 8, REACH_LIMIT = 20000 };

/* what instruction fusion keeps per instruction of a fused computation
 * (kept up to date as producers are cloned in, so that no decision
 * walks the whole fused computation) */
typedef struct {
	uint32_t uhead;		/* a parameter's first use record, or
				 * HLO_NONE */
	uint8_t paths;		/* paths from the root, at most
				 * MAX_DUP_PATHS + 1 */
	int8_t use;		/* how the root uses its elements: U_*, or
				 * U_UNKNOWN (computed when asked) */
} FuNode;

typedef struct {
	uint32_t instr;		/* the fusion instruction */
	uint32_t comp;		/* its fused computation */
	uint32_t *ops, *prm;	/* operands and their parameters */
	uint32_t n, cap;
	int kind;
	int renamed;		/* parameters renumbered */
	FuNode *nd;		/* per fused instruction; NULL: not built */
	uint32_t cnd;		/* its capacity */
	int nred;		/* live reduces in the fused computation */
} FuFus;

typedef struct {
	uint32_t base;		/* string id of a name's base */
	uint32_t k;		/* first suffix maybe free; 0: empty slot */
} FuSuffix;

/* an operand in the order it is tried: queue position, then index */
typedef struct {
	int32_t pos;
	uint32_t k;
} FuTry;

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	int rules, dup;
	uint32_t c, cap, nins0;
	uint32_t *fwd, *nusr;
	uint32_t *ncopy;	/* fusion:all: clones made of a producer
				 * that kept other users */
	int32_t *fid, *pos;
	uint8_t *dnd, *ctl, *dead;
	FuFus *fus;
	uint32_t nfus, capfus;
	const uint8_t *fx;
	uint32_t nfx;
	uint32_t *ncalls;	/* per computation: call sites */
	uint32_t *newcaller;	/* per new computation: its caller */
	uint32_t nnew, capnew, first_new;
	uint32_t pname;		/* name of parameters not yet numbered */
	FuSuffix *sfx;		/* unique_name's next suffix per base */
	uint32_t nsfx, capsfx;
	uint32_t *urpos, *urnext;	/* use records: the m->ids slot of
					 * an operand that is a parameter */
	uint32_t nur, capur;
	uint32_t hi;		/* per-instruction arrays used below hi */
	uint8_t *eff;		/* pass_has_effect: 0 not known, 1 no,
				 * 2 yes */
	FuTry *ord;		/* the operand order of the last fusion
				 * fused into (see next_order) */
	uint32_t nord, capord, ord_x, ord_kp, ord_n0;
	int64_t fused;
	int64_t grow;		/* fusion-merger:across: instructions it may
				 * still add (copies of merged bodies) */
} Fu;

#define INS(f, x) (&(f)->m->comps[(f)->c].ins[x])

/* opcode predicates */

int
fu_elementwise(const HloInstr *in)
{
	return (hlo_opinfo[in->op].flags & OPF_ELEM) != 0;
}

int
fu_kind(const HloModule *m, const HloInstr *in)
{
	int k;

	for (k = 0; k < 4; k++)
		if (hlo_attr_is(m, in, A_FUSION_KIND, fu_kind_names[k]))
			return k;
	return FK_OTHER;
}

static int
eff_scalar(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t d;

	if (sh->type == TY_TUPLE)
		return 0;
	for (d = 0; d < sh->rank; d++)
		if (hlo_dims(m, sh)[d] != 1)
			return 0;
	return 1;
}

static int
true_rank(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t d, r = 0, k;

	if (sh->type == TY_TUPLE) {
		for (k = 0; k < sh->ntuple; k++) {
			d = true_rank(m, hlo_tuple_elems(m, sh)[k]);
			r = d > r ? d : r;
		}
		return r;
	}
	for (d = 0; d < sh->rank; d++)
		r += hlo_dims(m, sh)[d] != 1;
	return r;
}

static int64_t
total_elems(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	int64_t n = 0;
	uint32_t k;

	if (sh->type != TY_TUPLE)
		return hlo_shape_elems(m, s);
	for (k = 0; k < sh->ntuple; k++)
		n += total_elems(m, hlo_tuple_elems(m, sh)[k]);
	return n;
}

static int
is_complex(const HloModule *m, uint32_t s)
{
	return hlo_typeinfo[hlo_sh(m, s)->type].cls == C_CPLX;
}

static int
is_float(const HloModule *m, uint32_t s)
{
	int cls = hlo_typeinfo[hlo_sh(m, s)->type].cls;

	return cls == C_FLOAT || cls == C_CPLX;
}

/* operand access through the replacements made so far */

static uint32_t
res(Fu *f, uint32_t x)
{
	while (f->fwd[x] != x)
		x = f->fwd[x];
	return x;
}

static uint32_t
nopnd(Fu *f, uint32_t x)
{
	return f->fid[x] >= 0 ? f->fus[f->fid[x]].n : INS(f, x)->nops;
}

static uint32_t
opnd(Fu *f, uint32_t x, uint32_t k)
{
	if (f->fid[x] >= 0)
		return res(f, f->fus[f->fid[x]].ops[k]);
	return res(f, f->m->ids[INS(f, x)->ops + k]);
}

/* xla's InstructionFusion::IsExpensive, with CpuInstructionFusion's
 * convert rule (cpu) or GpuInstructionFusion's cheap float math (gpu);
 * op0: the instruction's first operand, or the operand of that operand
 * when it is a broadcast (the integer division rule: a constant or a
 * broadcast of one); NULL if none */
int
fu_expensive(const HloModule *m, const HloInstr *in, const HloInstr *op0,
	int rules)
{
	switch (in->op) {
	case HOP_ADD: case HOP_AND: case HOP_BITCAST: case HOP_BITCASTCVT:
	case HOP_BROADCAST: case HOP_CEIL: case HOP_CLAMP: case HOP_CLZ:
	case HOP_COMPARE: case HOP_COMPLEX: case HOP_CONCAT:
	case HOP_CONSTANT: case HOP_COPY: case HOP_COPYDONE:
	case HOP_COPYSTART: case HOP_DYNRESHAPE: case HOP_DYNSLICE:
	case HOP_DYNUPDSLICE: case HOP_FLOOR: case HOP_GTE: case HOP_IMAG:
	case HOP_INFEED: case HOP_IOTA: case HOP_ISFINITE: case HOP_MAX:
	case HOP_MIN: case HOP_MUL: case HOP_MULHI: case HOP_NEGATE:
	case HOP_NOT: case HOP_OPTBARRIER: case HOP_OR: case HOP_OUTFEED:
	case HOP_PAD: case HOP_PARTITIONID: case HOP_POPCNT: case HOP_REAL:
	case HOP_REDUCEPRECISION: case HOP_REPLICAID: case HOP_RESHAPE:
	case HOP_REVERSE: case HOP_ROUNDAFZ: case HOP_ROUNDEVEN:
	case HOP_SELECT: case HOP_SHL: case HOP_SHRA: case HOP_SHRL:
	case HOP_SHUFFLE: case HOP_SLICE: case HOP_STOCHCONVERT:
	case HOP_SUBTRACT: case HOP_TRANSPOSE: case HOP_TUPLE: case HOP_XOR:
		return 0;
	case HOP_ABS: case HOP_SIGN: case HOP_COS: case HOP_SIN: case HOP_TAN:
		return is_complex(m, in->shape);
	case HOP_CONVERT:
		return rules == FU_CPU && hlo_sh(m, in->shape)->type ==
			TY_BF16 && op0 && hlo_sh(m, op0->shape)->type == TY_F32;
	case HOP_DIVIDE: case HOP_SQRT: case HOP_RSQRT: case HOP_EXP:
		/* ElementIsF32OrF16: not bf16, f64 nor the 8-bit floats */
		if (rules == FU_GPU && (hlo_sh(m, in->shape)->type ==
		    TY_F32 || hlo_sh(m, in->shape)->type == TY_F16))
			return 0;
		if (in->op != HOP_DIVIDE)
			return 1;
		/* fall through */
	case HOP_REMAINDER:
		return is_float(m, in->shape) || !op0 || op0->op !=
			HOP_CONSTANT || !eff_scalar(m, op0->shape);
	default:
		return 1;
	}
}

static int
expensive(Fu *f, uint32_t x)
{
	const HloInstr *in = INS(f, x), *op0 = NULL;

	if (nopnd(f, x) > 0) {
		op0 = INS(f, opnd(f, x, 0));
		if (op0->op == HOP_BROADCAST && nopnd(f, opnd(f, x, 0)) > 0)
			op0 = INS(f, opnd(f, opnd(f, x, 0), 0));
	}
	return fu_expensive(f->m, in, op0, f->rules);
}

/* xla's HloInstruction::IsFusible */
static int
fusible(Fu *f, uint32_t x)
{
	const HloInstr *in = INS(f, x);

	if (f->ctl[x])
		return 0;
	switch (in->op) {
	case HOP_DOMAIN: case HOP_PARAMETER: case HOP_WHILE:
	case HOP_CONDITIONAL: case HOP_CALL:
		return 0;
	case HOP_FUSION:
		return f->fid[x] >= 0;
	case HOP_MAP: case HOP_REDUCE: case HOP_REDUCEWINDOW:
		return 1;
	case HOP_RNG:
		return f->nusr[x] <= 1;
	default:
		if (!f->eff[x])
			f->eff[x] = 1 + pass_has_effect(f->m, in, f->fx,
				f->nfx);
		return f->eff[x] == 1;
	}
}

/* HloInstruction::OperandElementUse, for one instruction */
enum { U_NONE, U_USE, U_PERM, U_REUSE, U_UNKNOWN };

static int
elem_use(const HloModule *m, uint32_t c, uint32_t i, uint32_t k)
{
	const HloInstr *in = hlo_ins(m, c, i);
	const uint32_t *ops = hlo_ops(m, in);

	switch (in->op) {
	case HOP_BITCAST:
		return true_rank(m, in->shape) == true_rank(m, hlo_ins(m, c,
			ops[0])->shape) ? U_USE : U_PERM;
	case HOP_CONCAT: case HOP_RESHAPE: case HOP_REVERSE: case HOP_SLICE:
	case HOP_TRANSPOSE:
		return U_PERM;
	case HOP_PAD:
		return k > 0 ? U_REUSE : U_PERM;
	case HOP_REDUCE:
		return k >= in->nops / 2 ? U_REUSE : U_PERM;
	case HOP_DOT:
		if (hlo_sh(m, in->shape)->rank <= 1 && ((k == 0 &&
		    hlo_sh(m, hlo_ins(m, c, ops[1])->shape)->rank <= 1) ||
		    (k == 1 && hlo_sh(m, hlo_ins(m, c, ops[0])->shape)->rank
		    <= 1)))
			return U_USE;
		return U_REUSE;
	case HOP_DYNUPDSLICE:
		return k <= 1 ? U_USE : U_REUSE;
	case HOP_GATHER:
		return k == 0 ? U_USE : U_PERM;
	default:
		return fu_elementwise(in) ? U_USE : U_REUSE;
	}
}

/* FusionReusesParamElements: how the fused computation fc uses its
 * parameter p, folded from the root; memo per instruction */
static int
param_use(const HloModule *m, uint32_t fc, uint32_t p, int8_t *memo,
	uint32_t x)
{
	const HloInstr *in = hlo_ins(m, fc, x);
	uint32_t k;
	int acc = U_NONE, u, e;

	if (memo[x] >= 0)
		return memo[x];
	if (x == p)
		return memo[x] = U_USE;
	for (k = 0; k < in->nops; k++) {
		u = param_use(m, fc, p, memo, hlo_ops(m, in)[k]);
		if (u == U_NONE)
			continue;
		e = elem_use(m, fc, x, k);
		u = e > u ? e : u;
		if (acc == U_NONE)
			acc = u;
		else if (acc == U_REUSE || u == U_REUSE || acc != u ||
		    u == U_PERM)
			acc = U_REUSE;
	}
	return memo[x] = acc;
}

/* the per-instruction state of a fusion (FuNode). paths: the number of
 * paths from the fused root (capped). use: what param_use would say for
 * the instruction as the parameter. Cloning a producer in place of a
 * leaf only adds paths below that leaf, so both follow from the leaf's
 * own state: one more edge e below a node reached by P paths with use v
 * gives max(v, e) when P is 1 (one path: the worst edge on it), and v if
 * e is U_USE, else U_REUSE, when P > 1 (below the first join every edge
 * must be a plain use). Two sets of paths to one parameter combine to
 * U_REUSE if either is, U_USE if both are, and are left U_UNKNOWN
 * otherwise: param_use answers for those when asked. */

static void
fus_room(FuFus *fu, uint32_t need)
{
	uint32_t cap, i;

	if (need <= fu->cnd)
		return;
	cap = need * 2 + 16;
	fu->nd = xreallocarray(fu->nd, cap, sizeof *fu->nd);
	for (i = fu->cnd; i < cap; i++) {
		fu->nd[i].uhead = HLO_NONE;
		fu->nd[i].paths = 0;
		fu->nd[i].use = U_NONE;
	}
	fu->cnd = cap;
}

/* a use record: the operand at m->ids[pos] is parameter q */
static void
note_use(Fu *f, FuFus *fu, uint32_t q, uint32_t pos)
{
	if (f->nur == f->capur) {
		f->capur = f->capur ? 2 * f->capur : 256;
		f->urpos = xreallocarray(f->urpos, f->capur, sizeof *f->urpos);
		f->urnext = xreallocarray(f->urnext, f->capur,
			sizeof *f->urnext);
	}
	f->urpos[f->nur] = pos;
	f->urnext[f->nur] = fu->nd[q].uhead;
	fu->nd[q].uhead = f->nur++;
}

/* the state of fusion fu, from its fused computation (once) */
static FuNode *
fus_nodes(Fu *f, FuFus *fu)
{
	HloModule *m = f->m;
	const HloComp *cp = &m->comps[fu->comp];
	uint32_t *order, i, k, o, n = cp->nins, s;
	int cnt;

	if (fu->nd)
		return fu->nd;
	fus_room(fu, n + 1);
	fu->nred = 0;
	order = xreallocarray(NULL, n + 1, sizeof *order);
	cnt = hlo_topo(m, fu->comp, order);
	if (cp->root < n)
		fu->nd[cp->root].paths = 1;
	for (i = cnt > 0 ? cnt : 0; i-- > 0;) {
		const HloInstr *in = &cp->ins[order[i]];

		for (k = 0; k < in->nops && fu->nd[order[i]].paths; k++) {
			o = hlo_ops(m, in)[k];
			s = fu->nd[o].paths + fu->nd[order[i]].paths;
			fu->nd[o].paths = s > MAX_DUP_PATHS ? MAX_DUP_PATHS + 1
				: s;
		}
	}
	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (cnt < 0 && in->op == HOP_PARAMETER)
			fu->nd[i].paths = MAX_DUP_PATHS + 1;
		fu->nd[i].use = fu->nd[i].paths ? U_UNKNOWN : U_NONE;
		fu->nred += in->op == HOP_REDUCE;
		for (k = 0; k < in->nops; k++) {
			o = hlo_ops(m, in)[k];
			if (o < n && cp->ins[o].op == HOP_PARAMETER)
				note_use(f, fu, o, in->ops + k);
		}
	}
	free(order);
	return fu->nd;
}

/* the paths through node j (its state set) reach its operands, which
 * are parameters */
static void
fus_extend(Fu *f, FuFus *fu, uint32_t j)
{
	HloModule *m = f->m;
	const HloInstr *in = &m->comps[fu->comp].ins[j];
	FuNode *nd = fu->nd, *q;
	uint32_t k, P = nd[j].paths, s;
	int v = nd[j].use, e, w;

	if (!P)
		return;
	for (k = 0; k < in->nops; k++) {
		q = &nd[hlo_ops(m, in)[k]];
		e = elem_use(m, fu->comp, j, k);
		if (v == U_UNKNOWN)
			w = (P == 1 ? e == U_REUSE : e != U_USE) ? U_REUSE :
				U_UNKNOWN;
		else if (P == 1)
			w = e > v ? e : v;
		else
			w = e == U_USE ? v : U_REUSE;
		if (q->paths && (q->use == U_REUSE || w == U_REUSE))
			w = U_REUSE;
		else if (q->paths && !(q->use == U_USE && w == U_USE))
			w = U_UNKNOWN;
		q->use = w;
		s = q->paths + P;
		q->paths = s > MAX_DUP_PATHS ? MAX_DUP_PATHS + 1 : s;
	}
}

/* xla's ReusesOperandElements(consumer, k) */
static int
reuses(Fu *f, uint32_t x, uint32_t k)
{
	HloModule *m = f->m;
	FuFus *fu;
	FuNode *nd;
	int8_t *memo;
	uint32_t p;

	if (f->fid[x] < 0)
		return elem_use(m, f->c, x, k) == U_REUSE;
	fu = &f->fus[f->fid[x]];
	nd = fus_nodes(f, fu);
	p = fu->prm[k];
	if (p == HLO_NONE)
		return 0;
	if (nd[p].use == U_UNKNOWN) {
		memo = xcalloc(m->comps[fu->comp].nins + 1, 1);
		memset(memo, -1, m->comps[fu->comp].nins);
		nd[p].use = param_use(m, fu->comp, p, memo,
			m->comps[fu->comp].root);
		free(memo);
	}
	return nd[p].use == U_REUSE;
}

/* the number of paths from the fused root to parameter k is over the
 * limit, for FusionNodeIndexingEvaluation::CodeDuplicationTooHigh */
static int
dup_too_high(Fu *f, uint32_t x, uint32_t k)
{
	FuFus *fu = &f->fus[f->fid[x]];

	return fu->prm[k] != HLO_NONE && fus_nodes(f, fu)[fu->prm[k]].paths
		> MAX_DUP_PATHS;
}

/* cpu's CanBeLoopFused */
static int
cpu_loop_fusible(const HloInstr *in)
{
	switch (in->op) {
	case HOP_BITCAST: case HOP_BROADCAST: case HOP_CONCAT:
	case HOP_DYNSLICE: case HOP_DYNUPDSLICE: case HOP_GATHER:
	case HOP_IOTA: case HOP_PAD: case HOP_REDUCE: case HOP_RESHAPE:
	case HOP_REVERSE: case HOP_SLICE: case HOP_TRANSPOSE:
		return 1;
	default:
		return fu_elementwise(in);
	}
}

static int
matvec_dot(Fu *f, uint32_t x)
{
	const HloInstr *in = INS(f, x);
	uint32_t n;

	if (in->op != HOP_DOT || is_complex(f->m, in->shape) ||
	    hlo_sh(f->m, in->shape)->rank > 1)
		return 0;
	hlo_attr_ints(f->m, in, A_LHS_BATCH, &n);
	return n == 0;
}

static int
cpu_output_fusible(Fu *f, uint32_t p, uint32_t x)
{
	return INS(f, x)->op == HOP_ADD && f->fid[x] < 0 && matvec_dot(f, p)
		&& f->nusr[p] == 1 && !(opnd(f, x, 0) == p &&
		opnd(f, x, 1) == p);
}

static int
cpu_minor_concat(Fu *f, uint32_t x)
{
	const HloModule *m = f->m;
	const HloInstr *in = INS(f, x);
	const HloShape *sh = hlo_sh(m, in->shape);
	uint32_t nd;
	const int64_t *dv = hlo_attr_list(m, in, A_DIMENSIONS, &nd);
	int64_t dim = nd ? dv[0] : 0, minor;

	if (in->op != HOP_CONCAT || sh->rank <= 1 || dim >= sh->rank)
		return 0;
	minor = sh->flags & SH_LAYOUT ? hlo_m2m(m, sh)[0] : sh->rank - 1;
	return dim == minor && hlo_dims(m, sh)[dim] *
		hlo_type_bytes(sh->type) >= 64 && hlo_shape_bytes(m,
		in->shape) >= 2048;
}

/* the base class's rules: the root, duplication */
static int
base_should_fuse(Fu *f, uint32_t x, uint32_t p)
{
	const HloInstr *pi = INS(f, p);
	int dup = !(f->nusr[p] == 1);
	int always = pi->op == HOP_BROADCAST || (pi->op == HOP_CONVERT &&
		hlo_shape_bytes(f->m, INS(f, opnd(f, p, 0))->shape) <
		hlo_shape_bytes(f->m, pi->shape));

	if (p == f->m->comps[f->c].root)
		return 0;
	if (dup && (!f->dup || (f->rules != FU_ALL && expensive(f, p))) &&
	    !always)
		return 0;
	/* in place: never duplicate the buffer a dynamic-update-slice
	 * updates */
	if (INS(f, x)->op == HOP_DYNUPDSLICE && opnd(f, x, 0) == p && dup)
		return 0;
	return 1;
}

static int
count_reduces(Fu *f, uint32_t x)
{
	FuFus *fu = &f->fus[f->fid[x]];

	fus_nodes(f, fu);
	return fu->nred;
}

static int
cpu_should_fuse(Fu *f, uint32_t x, uint32_t k)
{
	uint32_t p = opnd(f, x, k), o;
	const HloInstr *pi = INS(f, p), *xi = INS(f, x);
	int xfus = f->fid[x] >= 0;

	if (pi->op == HOP_CONSTANT && !eff_scalar(f->m, pi->shape))
		return 0;
	if (cpu_output_fusible(f, p, x))
		return 1;
	if (pi->op == HOP_ADD && ((o = opnd(f, p, 0), cpu_output_fusible(f,
	    o, p)) || (o = opnd(f, p, 1), cpu_output_fusible(f, o, p))))
		return 0;
	if (!cpu_loop_fusible(pi))
		return 0;
	if ((pi->op == HOP_CONCAT && (pi->nops > CPU_MAX_CONCAT_ARGS ||
	    cpu_minor_concat(f, p))) || (xi->op == HOP_CONCAT && (nopnd(f, x)
	    > CPU_MAX_CONCAT_ARGS || cpu_minor_concat(f, x))))
		return 0;
	if (expensive(f, p) && reuses(f, x, k))
		return 0;
	if (!base_should_fuse(f, x, p))
		return 0;
	if (xfus && pi->op == HOP_REDUCE && count_reduces(f, x) >
	    CPU_MAX_REDUCES)
		return 0;
	if (pi->op == HOP_CONSTANT && !xfus)
		return 0;
	if (xfus && dup_too_high(f, x, k))
		return 0;
	if (xi->op == HOP_DOT && hlo_sh(f->m, xi->shape)->rank <= 1) {
		uint32_t a = opnd(f, x, 0), b = opnd(f, x, 1);

		if (hlo_sh(f->m, INS(f, a)->shape)->rank == 1 && k == 1 &&
		    hlo_shape_bytes(f->m, INS(f, a)->shape) < 16384)
			return 1;
		if (hlo_sh(f->m, INS(f, b)->shape)->rank == 1 && k == 0 &&
		    hlo_shape_bytes(f->m, INS(f, b)->shape) < 16384)
			return 1;
	}
	if (xfus)
		return f->fus[f->fid[x]].kind == FK_LOOP;
	return cpu_loop_fusible(xi);
}

/* gpu_fusible.cc */
static int
gpu_loop_fusible(Fu *f, uint32_t x)
{
	const HloInstr *in = INS(f, x);

	switch (in->op) {
	case HOP_BITCAST: case HOP_BROADCAST: case HOP_CONCAT:
	case HOP_DYNSLICE: case HOP_DYNUPDSLICE: case HOP_GATHER:
	case HOP_PAD: case HOP_REDUCEWINDOW: case HOP_RESHAPE:
	case HOP_REVERSE: case HOP_SLICE: case HOP_TRANSPOSE:
		return 1;
	case HOP_FUSION:
		return f->fid[x] >= 0 && f->fus[f->fid[x]].kind == FK_LOOP;
	case HOP_COPY:	/* IsUniversallyLoopFusible */
		return !pass_copy_tiled_transpose(f->m, INS(f, opnd(f, x,
			0))->shape, in->shape);
	default:
		return fu_elementwise(in) && in->nops > 0;
	}
}

/* IsInputFusible: a kInput fusion, a scatter, or a reduce from or to
 * contiguous dimensions that the tiled emitter does faster than the
 * elemental one (IsReductionFromOrToContiguousDimensions); other
 * reduces fuse as loop consumers (kLoop) */
static int
gpu_input_fusible(Fu *f, uint32_t x)
{
	const HloInstr *in = INS(f, x);
	int row;

	if (in->op == HOP_FUSION)
		return f->fid[x] >= 0 && f->fus[f->fid[x]].kind == FK_INPUT;
	if (in->op == HOP_REDUCE)
		return fu_contiguous_reduce(f->m, f->c, x, &row);
	return in->op == HOP_SCATTER;
}

/* IsLoopFusibleAsConsumer: not a bitcast (it would only be a fusion's
 * root); any reduce */
static int
gpu_loop_consumer(Fu *f, uint32_t x)
{
	const HloInstr *in = INS(f, x);

	if (in->op == HOP_BITCAST)
		return 0;
	return in->op == HOP_REDUCE || gpu_loop_fusible(f, x);
}

static int
gpu_transposing(Fu *f, uint32_t p)
{
	const HloInstr *in = INS(f, p);

	if (in->op == HOP_TRANSPOSE) {
		uint32_t n;
		const int64_t *perm = hlo_attr_ints(f->m, in, A_DIMENSIONS, &n);

		return !perm || !pass_transpose_is_bitcast(f->m, INS(f,
			opnd(f, p, 0))->shape, in->shape, perm, n);
	}
	if (in->op == HOP_COPY)
		return !pass_copy_is_bitcast(f->m, INS(f, opnd(f, p, 0))->shape,
			in->shape);
	return 0;
}

/* operands and outputs of the fusion of p into x */
static uint32_t
gpu_operands_after(Fu *f, uint32_t x, uint32_t p)
{
	uint32_t n = 0, k, j, q;

	for (k = 0; k < nopnd(f, x); k++)
		n += opnd(f, x, k) != p;
	for (k = 0; k < nopnd(f, p); k++) {
		q = opnd(f, p, k);
		for (j = 0; j < nopnd(f, x) && opnd(f, x, j) != q; j++)
			;
		if (j == nopnd(f, x)) {
			for (j = 0; j < k && opnd(f, p, j) != q; j++)
				;
			n += j == k;
		}
	}
	return n + 1;
}

static int
gpu_should_fuse(Fu *f, uint32_t x, uint32_t k)
{
	uint32_t p = opnd(f, x, k);
	const HloInstr *pi = INS(f, p);

	if (pi->op == HOP_FUSION)
		return 0;
	if (expensive(f, p) && reuses(f, x, k))
		return 0;
	if (gpu_input_fusible(f, x) && gpu_transposing(f, p))
		return 0;
	if (pi->op != HOP_IOTA && pi->op != HOP_CONSTANT &&
	    !gpu_loop_fusible(f, p))
		return 0;
	if (!gpu_input_fusible(f, x) && !gpu_loop_consumer(f, x))
		return 0;
	if (pi->op == HOP_CONSTANT && (!eff_scalar(f->m, pi->shape) ||
	    f->fid[x] < 0))
		return 0;
	if (!base_should_fuse(f, x, p))
		return 0;
	if (gpu_operands_after(f, x, p) > GPU_MAX_OPERANDS)
		return 0;
	if (f->fid[x] >= 0 && dup_too_high(f, x, k))
		return 0;
	return 1;
}

/* beyond xla: every loop-fusible edge */
static int
all_should_fuse(Fu *f, uint32_t x, uint32_t k)
{
	uint32_t p = opnd(f, x, k);
	const HloInstr *pi = INS(f, p), *xi = INS(f, x);

	if (pi->op == HOP_FUSION || p == f->m->comps[f->c].root)
		return 0;
	if (!cpu_loop_fusible(pi) && pi->op != HOP_CONSTANT)
		return 0;
	if (pi->op == HOP_CONSTANT && !eff_scalar(f->m, pi->shape))
		return 0;
	if (xi->op == HOP_DYNUPDSLICE && k == 0 && f->nusr[p] > 1)
		return 0;
	if (f->nusr[p] > 1 && f->ncopy[p] >= ALL_MAX_COPIES)
		return 0;	/* the growth limit */
	if (f->fid[x] >= 0)
		return f->fus[f->fid[x]].kind == FK_LOOP;
	return cpu_loop_fusible(xi) && pi->op != HOP_CONSTANT;
}

static int
should_fuse(Fu *f, uint32_t x, uint32_t k)
{
	switch (f->rules) {
	case FU_CPU:
		return cpu_should_fuse(f, x, k);
	case FU_GPU:
		return gpu_should_fuse(f, x, k);
	default:
		return all_should_fuse(f, x, k);
	}
}

static int
choose_kind(Fu *f, uint32_t p, uint32_t x)
{
	if (f->rules == FU_CPU)
		return cpu_output_fusible(f, p, x) ? FK_OUTPUT : FK_LOOP;
	if (f->rules == FU_GPU)
		return gpu_input_fusible(f, x) || gpu_input_fusible(f, p) ?
			FK_INPUT : FK_LOOP;
	return FK_LOOP;
}

/* the machinery: state, new fusions, fusing a producer */

static void
grow(Fu *f, uint32_t need)
{
	uint32_t cap, i;

	if (need <= f->cap)
		return;
	cap = need * 2 + 16;
	f->fwd = xreallocarray(f->fwd, cap, sizeof *f->fwd);
	f->nusr = xreallocarray(f->nusr, cap, sizeof *f->nusr);
	f->fid = xreallocarray(f->fid, cap, sizeof *f->fid);
	f->pos = xreallocarray(f->pos, cap, sizeof *f->pos);
	f->dnd = xreallocarray(f->dnd, cap, 1);
	f->ctl = xreallocarray(f->ctl, cap, 1);
	f->dead = xreallocarray(f->dead, cap, 1);
	f->eff = xreallocarray(f->eff, cap, 1);
	f->ncopy = xreallocarray(f->ncopy, cap, sizeof *f->ncopy);
	for (i = f->cap; i < cap; i++) {
		f->eff[i] = 0;
		f->ncopy[i] = 0;
		f->fwd[i] = i;
		f->nusr[i] = 0;
		f->fid[i] = -1;
		f->pos[i] = -1;
		f->dnd[i] = f->ctl[i] = f->dead[i] = 0;
	}
	f->cap = cap;
}

/* a name for a new instruction or computation as xla's NameUniquer makes
 * it: base itself if unused, else base.1, base.2, ...; f->sfx remembers
 * per base the first suffix not yet known to be taken (strings are never
 * removed from a module, so probing resumes there: linear, not quadratic
 * in the names made from one base) */
static uint32_t
unique_name(Fu *f, const char *base)
{
	HloModule *m = f->m;
	uint32_t id = hlo_find_str(m, base, strlen(base)), j, k, cap;
	FuSuffix *t;

	if (id == HLO_NONE)
		return hlo_strz(m, base);
	if (2 * (f->nsfx + 1) > f->capsfx) {
		cap = f->capsfx ? 2 * f->capsfx : 64;
		t = xcalloc(cap, sizeof *t);
		for (j = 0; j < f->capsfx; j++)
			if (f->sfx[j].k) {
				for (k = f->sfx[j].base * 2654435761u &
				    (cap - 1); t[k].k; k = (k + 1) & (cap - 1))
					;
				t[k] = f->sfx[j];
			}
		free(f->sfx);
		f->sfx = t;
		f->capsfx = cap;
	}
	for (j = id * 2654435761u & (f->capsfx - 1); f->sfx[j].k &&
	    f->sfx[j].base != id; j = (j + 1) & (f->capsfx - 1))
		;
	if (!f->sfx[j].k) {
		f->sfx[j].base = id;
		f->sfx[j].k = 1;
		f->nsfx++;
	}
	for (k = f->sfx[j].k;; k++)
		if ((id = hlo_str_suffixed(m, base, strlen(base), k)) !=
		    HLO_NONE) {
			f->sfx[j].k = k + 1;
			return id;
		}
}

/* frees what the passes' Fu state holds */
static void
fu_free(Fu *f)
{
	free(f->ncalls);
	free(f->fwd);
	free(f->nusr);
	free(f->fid);
	free(f->pos);
	free(f->dnd);
	free(f->ctl);
	free(f->dead);
	free(f->eff);
	free(f->ncopy);
	free(f->ord);
	free(f->fus);
	free(f->newcaller);
	free(f->sfx);
	free(f->urpos);
	free(f->urnext);
}

static FuFus *
add_fus(Fu *f, uint32_t instr, uint32_t comp, int kind)
{
	FuFus *fu;

	if (f->nfus == f->capfus) {
		f->capfus = f->capfus ? 2 * f->capfus : 16;
		f->fus = xreallocarray(f->fus, f->capfus, sizeof *f->fus);
	}
	fu = &f->fus[f->nfus];
	memset(fu, 0, sizeof *fu);
	fu->instr = instr;
	fu->comp = comp;
	fu->kind = kind;
	f->fid[instr] = f->nfus++;
	return fu;
}

static void
fus_push(FuFus *fu, uint32_t op, uint32_t prm)
{
	if (fu->n == fu->cap) {
		fu->cap = fu->cap ? 2 * fu->cap : 8;
		fu->ops = xreallocarray(fu->ops, fu->cap, sizeof *fu->ops);
		fu->prm = xreallocarray(fu->prm, fu->cap, sizeof *fu->prm);
	}
	fu->ops[fu->n] = op;
	fu->prm[fu->n++] = prm;
}

/* an existing fusion instruction the pass may fuse into: unique
 * operands, one parameter each, a computation nothing else calls;
 * seen: scratch per instruction, stamp a value not yet in it */
static void
load_fusion(Fu *f, uint32_t x, uint32_t *seen, uint32_t stamp)
{
	HloModule *m = f->m;
	const HloInstr *in = INS(f, x);
	uint32_t fc, k, j, p, *prm;
	int kind = fu_kind(m, in);
	const HloComp *cp;
	FuFus *fu;

	if (in->ncalled != 1 || kind > FK_OUTPUT || f->ctl[x])
		return;
	fc = hlo_called(m, in)[0];
	if (f->ncalls[fc] != 1 || hlo_param_count(m, fc) != (int)in->nops)
		return;
	for (k = 0; k < in->nops; k++) {
		j = hlo_ops(m, in)[k];
		if (j >= m->comps[f->c].nins || seen[j] == stamp)
			return;
		seen[j] = stamp;
	}
	prm = xreallocarray(NULL, in->nops + 1, sizeof *prm);
	for (k = 0; k < in->nops; k++)
		prm[k] = HLO_NONE;
	cp = &m->comps[fc];
	for (p = 0; p < cp->nins; p++)	/* hlo_param: the first of a number */
		if (cp->ins[p].op == HOP_PARAMETER && !(cp->ins[p].flags &
		    HI_DEAD) && cp->ins[p].num >= 0 && cp->ins[p].num <
		    (int64_t)in->nops && prm[cp->ins[p].num] == HLO_NONE)
			prm[cp->ins[p].num] = p;
	fu = add_fus(f, x, fc, kind);
	for (k = 0; k < INS(f, x)->nops; k++)
		fus_push(fu, m->ids[INS(f, x)->ops + k], prm[k]);
	free(prm);
}

static uint32_t
new_param(Fu *f, FuFus *fu, uint32_t q)
{
	HloModule *m = f->m;
	uint32_t i = hlo_instr_add(m, fu->comp, HOP_PARAMETER, INS(f,
		q)->shape, f->pname, 0, NULL);

	m->comps[fu->comp].ins[i].num = fu->n;
	fus_push(fu, q, i);
	fu->renamed = 1;
	if (fu->nd)
		fus_room(fu, i + 1);
	return i;
}

/* clone p into the fused computation, its operands read through
 * parameters (new ones appended); count_users: q gains a user when it
 * becomes a new operand of the fusion */
static uint32_t
clone_into(Fu *f, FuFus *fu, uint32_t p, int keep_name, int count_users)
{
	HloModule *m = f->m;
	uint32_t j, n = INS(f, p)->nops, k, t, q, *ops;

	j = pass_copy_instr(m, fu->comp, f->c, p, 0, NULL);
	if (keep_name)
		m->comps[fu->comp].ins[j].name = INS(f, p)->name;
	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	for (k = 0; k < n; k++) {
		q = res(f, m->ids[INS(f, p)->ops + k]);
		for (t = 0; t < fu->n && res(f, fu->ops[t]) != q; t++)
			;
		if (t < fu->n) {
			ops[k] = fu->prm[t];
			continue;
		}
		ops[k] = new_param(f, fu, q);
		if (count_users)
			f->nusr[q]++;
	}
	hlo_set_operands(m, fu->comp, j, n, ops);
	if (fu->nd) {
		fus_room(fu, m->comps[fu->comp].nins + 1);
		for (k = 0; k < n; k++)
			note_use(f, fu, ops[k], m->comps[fu->comp].ins[j].ops
				+ k);
		fu->nred += m->comps[fu->comp].ins[j].op == HOP_REDUCE;
	}
	free(ops);
	return j;
}

/* a new fusion instruction in place of consumer x, its fused
 * computation holding a clone of x */
static uint32_t
make_fusion(Fu *f, uint32_t x, uint32_t p, int kind)
{
	HloModule *m = f->m;
	char buf[256];
	uint32_t fc, fi, r;
	const HloAttr *md;
	HloAttr a;
	FuFus *fu;

	fc = hlo_comp_add(m, unique_name(f, "fused_computation"));
	m->comps[fc].flags = HC_FUSION;
	m->comps[fc].thread = m->comps[f->c].thread;
	if (f->nnew == f->capnew) {
		f->capnew = f->capnew ? 2 * f->capnew : 16;
		f->newcaller = xreallocarray(f->newcaller, f->capnew,
			sizeof *f->newcaller);
	}
	f->newcaller[f->nnew++] = f->c;
	pass_name_cat(buf, sizeof buf, hlo_opinfo[INS(f, p)->op].name, "_",
		hlo_opinfo[INS(f, x)->op].name, "_fusion");
	fi = hlo_instr_add(m, f->c, HOP_FUSION, INS(f, x)->shape,
		unique_name(f, buf), 0, NULL);
	hlo_set_called(m, f->c, fi, 1, &fc);
	a = hlo_mk_bytes(m, A_FUSION_KIND, K_WORD, fu_kind_names[kind],
		strlen(fu_kind_names[kind]));
	hlo_attr_set(m, f->c, fi, &a);
	md = hlo_attr(m, INS(f, x), A_METADATA);
	if (md) {
		a = *md;
		hlo_attr_set(m, f->c, fi, &a);
	}
	grow(f, fi + 1);
	fu = add_fus(f, fi, fc, kind);
	fus_room(fu, 1);
	r = clone_into(f, fu, x, 1, 0);
	m->comps[fc].root = r;
	fu->nd[r].paths = 1;
	fu->nd[r].use = U_USE;
	fus_extend(f, fu, r);
	f->fwd[x] = fi;
	f->dead[x] = 1;
	f->nusr[fi] = f->nusr[x];
	if (m->comps[f->c].root == x)
		m->comps[f->c].root = fi;
	return fi;
}

/* InstructionFusion::FuseInstruction: producer p into fusion fi */
static void
fuse_into(Fu *f, uint32_t fi, uint32_t p)
{
	HloModule *m = f->m;
	FuFus *fu = &f->fus[f->fid[fi]];
	HloComp *cp;
	uint32_t k, j, i, t, prm, q;

	for (k = 0; k < fu->n && res(f, fu->ops[k]) != p; k++)
		;
	if (k == fu->n)
		return;
	prm = fu->prm[k];
	fus_nodes(f, fu);
	j = clone_into(f, fu, p, f->nusr[p] == 1, 1);
	cp = &m->comps[fu->comp];
	for (i = fu->nd[prm].uhead; i != HLO_NONE; i = f->urnext[i])
		if (m->ids[f->urpos[i]] == prm)
			m->ids[f->urpos[i]] = j;
	fu->nd[j].paths = fu->nd[prm].paths;
	fu->nd[j].use = fu->nd[prm].use;
	fus_extend(f, fu, j);
	if (cp->root == prm)
		cp->root = j;
	cp->ins[prm].flags |= HI_DEAD;
	memmove(fu->ops + k, fu->ops + k + 1, (fu->n - k - 1) * 4u);
	memmove(fu->prm + k, fu->prm + k + 1, (fu->n - k - 1) * 4u);
	fu->n--;
	fu->renamed = 1;
	f->nusr[p]--;
	if (f->nusr[p] > 0) {
		f->ncopy[p]++;
		return;
	}
	f->dead[p] = 1;
	for (k = 0; k < INS(f, p)->nops; k++) {
		q = res(f, m->ids[INS(f, p)->ops + k]);
		for (t = 0; t < k && res(f, m->ids[INS(f, p)->ops + t]) != q;
		     t++)
			;
		if (t == k && f->nusr[q] > 0)
			f->nusr[q]--;
	}
}

/* ComputeGloballyUnfusible */

typedef struct {
	uint32_t *mark, *mst;	/* descendant stamp, memo stamp */
	uint8_t *mval;
	uint8_t *over;		/* known to have too many descendants */
	uint32_t stamp;
	HloUsers u;
} FuReach;

static int
effectively_unary(Fu *f, uint32_t p)
{
	uint32_t k, q;
	int r = true_rank(f->m, INS(f, p)->shape), n = 0;

	for (k = 0; k < nopnd(f, p); k++) {
		const HloInstr *qi = INS(f, q = opnd(f, p, k));

		if (qi->op == HOP_BROADCAST || qi->op == HOP_IOTA)
			continue;
		if (qi->op == HOP_CONSTANT && eff_scalar(f->m, qi->shape))
			continue;
		n += true_rank(f->m, qi->shape) >= r;
	}
	return n <= 1;
}

/* the descendants of p, at most 4096; 0 if more (also when p reaches
 * an instruction known to have more) */
static int
descendants(Fu *f, FuReach *r, uint32_t p, uint32_t *stack)
{
	uint32_t n = 0, seen = 0, x, k;

	(void)f;
	if (r->over[p])
		return 0;
	r->mark[p] = r->stamp;
	stack[n++] = p;
	while (n > 0) {
		x = stack[--n];
		for (k = r->u.start[x]; k < r->u.start[x + 1]; k++) {
			uint32_t y = r->u.list[k];

			if (r->mark[y] == r->stamp)
				continue;
			if (++seen > 4096 || r->over[y])
				return r->over[p] = 1, 0;
			r->mark[y] = r->stamp;
			stack[n++] = y;
		}
	}
	return 1;
}

static int
all_paths(Fu *f, FuReach *r, uint32_t p, uint32_t x)
{
	uint32_t k, o;
	int ok = 1;

	if (x == p)
		return 1;
	if (!fusible(f, x))
		return 0;
	if (r->mst[x] == r->stamp)
		return r->mval[x];
	for (k = 0; k < nopnd(f, x) && ok; k++) {
		o = opnd(f, x, k);
		if (o != p && r->mark[o] != r->stamp)
			continue;
		if (f->dnd[o] || !should_fuse(f, x, k) || !all_paths(f, r, p,
		    o))
			ok = 0;
	}
	r->mst[x] = r->stamp;
	r->mval[x] = ok;
	return ok;
}

/* what all_paths asks of p's users for their edges from p itself: a
 * necessary condition, known without p's descendants. slot: per entry
 * of r->u, the operand index the user reads p at (users list each use) */
static int
users_take(Fu *f, FuReach *r, const uint32_t *slot, uint32_t p)
{
	uint32_t k, x;

	for (k = r->u.start[p]; k < r->u.start[p + 1]; k++) {
		x = r->u.list[k];
		if (!fusible(f, x) || !should_fuse(f, x, slot[k]))
			return 0;
	}
	return 1;
}

/* the operand index of every entry of u (the users of each
 * instruction, a user once per operand it reads it at, in order) */
static uint32_t *
use_slots(Fu *f, const HloUsers *u)
{
	const HloComp *cp = &f->m->comps[f->c];
	uint32_t *slot = xreallocarray(NULL, u->start[u->n] + 1, sizeof *slot),
		*fill = xreallocarray(NULL, u->n + 1, sizeof *fill), i, k, o;

	memcpy(fill, u->start, u->n * sizeof *fill);
	for (i = 0; i < u->n; i++) {
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		for (k = 0; k < cp->ins[i].nops; k++)
			if ((o = hlo_ops(f->m, &cp->ins[i])[k]) < u->n)
				slot[fill[o]++] = k;
	}
	free(fill);
	return slot;
}

static void
globally_unfusible(Fu *f, const uint32_t *po, uint32_t n)
{
	HloModule *m = f->m;
	uint32_t nins = m->comps[f->c].nins, t, k, j, p, *stack, *slot;
	FuReach r;
	int64_t in_size;

	memset(&r, 0, sizeof r);
	hlo_users(m, f->c, &r.u);
	r.mark = xcalloc(nins + 1, sizeof *r.mark);
	r.over = xcalloc(nins + 1, 1);
	r.mst = xcalloc(nins + 1, sizeof *r.mst);
	r.mval = xcalloc(nins + 1, 1);
	stack = xreallocarray(NULL, nins + 1, sizeof *stack);
	slot = use_slots(f, &r.u);
	for (t = n; t-- > 0;) {
		p = po[t];
		/* users come first: one with too many descendants gives
		 * p too many (this spares most searches) */
		for (k = r.u.start[p]; k < r.u.start[p + 1]; k++)
			r.over[p] |= r.over[r.u.list[k]];
		if (effectively_unary(f, p))
			continue;
		in_size = 0;
		r.stamp++;	/* each operand once */
		for (k = 0; k < nopnd(f, p); k++) {
			j = opnd(f, p, k);
			if (r.mark[j] != r.stamp)
				in_size += total_elems(m, INS(f, j)->shape);
			r.mark[j] = r.stamp;
		}
		if (in_size <= total_elems(m, INS(f, p)->shape))
			continue;
		r.stamp++;
		if (fusible(f, p) && users_take(f, &r, slot, p) &&
		    descendants(f, &r, p, stack)) {
			for (k = r.u.start[p]; k < r.u.start[p + 1]; k++)
				if (!all_paths(f, &r, p, r.u.list[k]))
					break;
			if (k == r.u.start[p + 1])
				continue;
		}
		f->dnd[p] = 1;
	}
	hlo_users_free(&r.u);
	free(r.mark);
	free(r.over);
	free(r.mst);
	free(r.mval);
	free(stack);
	free(slot);
}

/* the fusion loop over one computation */

static void
queue_push(uint32_t **q, uint32_t *n, uint32_t *cap, uint32_t x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*q = xreallocarray(*q, *cap, sizeof **q);
	}
	(*q)[(*n)++] = x;
}

static int
cmp_try(const void *a, const void *b)
{
	const FuTry *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos > y->pos ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* the operands of x still queued, latest first, into f->ord (their
 * count): sorted afresh, or, when x is the fusion a producer was fused
 * into on the visit before (it is visited again at once, and nothing
 * but that producer and the operands it brought changed), the last
 * order without the producer merged with the new operands */
static uint32_t
operand_order(Fu *f, uint32_t x)
{
	uint32_t n = nopnd(f, x), cnt = 0, k, j, i, first = 0, w;
	FuTry e, *o;

	if (2 * n + 2 > f->capord) {
		f->capord = 4 * n + 16;
		f->ord = xreallocarray(f->ord, f->capord, sizeof *f->ord);
	}
	if (x == f->ord_x) {
		for (i = 0; i < f->nord; i++) {
			e = f->ord[i];
			if (e.k == f->ord_kp)
				continue;
			e.k -= e.k > f->ord_kp;
			f->ord[cnt++] = e;
		}
		first = f->ord_n0 - 1;
	}
	o = f->ord + n + 1;	/* the operands from first on, sorted */
	for (k = first, j = 0; k < n; k++) {
		e.pos = f->pos[opnd(f, x, k)];
		e.k = k;
		if (e.pos < 0)
			continue;
		o[j++] = e;
	}
	if (j > 16)
		qsort(o, j, sizeof *o, cmp_try);
	else
		for (i = 1; i < j; i++) {
			e = o[i];
			for (k = i; k > 0 && o[k - 1].pos < e.pos; k--)
				o[k] = o[k - 1];
			o[k] = e;
		}
	/* merged from the back (the two share no queue position) */
	f->nord = cnt + j;
	for (w = cnt + j, i = cnt; j > 0;)
		f->ord[--w] = i > 0 && f->ord[i - 1].pos < o[j - 1].pos ?
			f->ord[--i] : o[--j];
	f->ord_x = HLO_NONE;
	return f->nord;
}

static int
try_operands(Fu *f, uint32_t x, uint32_t **q, uint32_t *nq, uint32_t *cq)
{
	uint32_t n = nopnd(f, x), cnt, k, t, p, fi;
	int kind, done = 0;
	const FuTry *idx;

	cnt = operand_order(f, x);
	idx = f->ord;
	for (t = 0; t < cnt && !done; t++) {
		k = idx[t].k;
		p = opnd(f, x, k);
		if (!fusible(f, p) || f->dnd[p] || !should_fuse(f, x, k))
			continue;
		kind = choose_kind(f, p, x);
		if (f->fid[x] >= 0) {
			fi = x;
			if (f->fus[f->fid[fi]].kind != kind) {
				HloAttr a = hlo_mk_bytes(f->m, A_FUSION_KIND,
					K_WORD, fu_kind_names[kind],
					strlen(fu_kind_names[kind]));

				hlo_attr_set(f->m, f->c, fi, &a);
				f->fus[f->fid[fi]].kind = kind;
			}
		} else {
			fi = make_fusion(f, x, p, kind);
		}
		fuse_into(f, fi, p);
		if (fi == x) {	/* for operand_order */
			f->ord_x = x;
			f->ord_kp = k;
			f->ord_n0 = n;
		}
		f->fused++;
		f->pos[fi] = *nq;
		queue_push(q, nq, cq, fi);
		if (f->dead[p] && f->pos[p] >= 0) {
			(*q)[f->pos[p]] = HLO_NONE;
			f->pos[p] = -1;
		}
		done = 1;
	}
	return done;
}

static int
fuse_comp(Fu *f)
{
	HloModule *m = f->m;
	uint32_t n, *q = NULL, nq = 0, cq, x, i;
	int changed = 0;

	f->nins0 = m->comps[f->c].nins;
	grow(f, f->nins0 + 1);
	cq = f->nins0 + 16;
	q = xreallocarray(NULL, cq, sizeof *q);
	n = pass_post_order(m, f->c, q, f->ctx);
	nq = n;
	for (i = 0; i < n; i++)
		f->pos[q[i]] = i;
	if (f->dup && f->rules != FU_ALL)
		globally_unfusible(f, q, n);
	while (nq > 0) {
		x = q[--nq];
		if (x == HLO_NONE)
			continue;
		f->pos[x] = -1;
		if (INS(f, x)->op == HOP_FUSION ? f->fid[x] < 0 :
		    !fusible(f, x))
			continue;
		changed |= try_operands(f, x, &q, &nq, &cq);
	}
	free(q);
	return changed;
}

static void
setup_comp(Fu *f, uint32_t c)
{
	HloModule *m = f->m;
	HloComp *cp = &m->comps[c];
	uint32_t i, k, n = cp->nins, *seen = xcalloc(n + 1, sizeof *seen);

	f->c = c;
	f->nfus = 0;
	f->nur = 0;
	grow(f, n + 1);
	if (f->hi < n + 1)	/* what the last computation may have used */
		f->hi = n + 1;
	for (i = 0; i < f->hi && i < f->cap; i++) {
		f->fwd[i] = i;
		f->nusr[i] = 0;
		f->fid[i] = -1;
		f->pos[i] = -1;
		f->dnd[i] = f->ctl[i] = f->dead[i] = f->eff[i] = 0;
		f->ncopy[i] = 0;
	}
	f->ord_x = HLO_NONE;
	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (in->nctrl)
			f->ctl[i] = 1;
		for (k = 0; k < in->nctrl; k++)
			f->ctl[hlo_ctrl(m, in)[k]] = 1;
		for (k = 0; k < in->nops; k++) {	/* once per user */
			uint32_t q = hlo_ops(m, in)[k];

			if (q < n && seen[q] != i + 1)
				f->nusr[q]++;
			if (q < n)
				seen[q] = i + 1;
		}
	}
	for (i = 0; i < n; i++)
		if (!(cp->ins[i].flags & HI_DEAD) && cp->ins[i].op ==
		    HOP_FUSION)
			load_fusion(f, i, seen, n + 1 + i);
	free(seen);
}

/* fusion fu done: its parameters numbered by operand position, renamed
 * param_N where the number changed, its operands written and its
 * computation compacted (if renamed); its state freed */
static int
fin_fus(Fu *f, FuFus *fu)
{
	HloModule *m = f->m;
	uint32_t k, n, *ops;
	char buf[64];

	if (fu->renamed) {
		ops = xreallocarray(NULL, fu->n + 1, sizeof *ops);
		for (k = 0; k < fu->n; k++) {
			HloInstr *pi = &m->comps[fu->comp].ins[fu->prm[k]];

			ops[k] = res(f, fu->ops[k]);
			if (pi->num != k || pi->name == f->pname) {
				n = unique_name(f, pass_name_num(buf,
					sizeof buf, "param_", k));
				pi = &m->comps[fu->comp].ins[fu->prm[k]];
				pi->name = n;
				pi->num = k;
			}
		}
		hlo_set_operands(m, f->c, fu->instr, fu->n, ops);
		free(ops);
		if (hlo_comp_compact(m, fu->comp) < 0)
			return pass_err_cycle(f->ctx, m, fu->comp);
	}
	free(fu->ops);
	free(fu->prm);
	free(fu->nd);
	fu->ops = fu->prm = NULL;
	fu->nd = NULL;
	fu->n = fu->cap = fu->cnd = 0;
	fu->renamed = 0;
	return 0;
}

/* every fusion done (fin_fus); operands written; the computation
 * compacted */
static int
finish_comp(Fu *f)
{
	HloModule *m = f->m;
	uint32_t t, k, n;

	for (t = 0; t < f->nfus; t++)
		if (fin_fus(f, &f->fus[t]) < 0)
			return -1;
	n = m->comps[f->c].nins;
	f->hi = n + 1;
	for (k = 0; k < n; k++) {
		f->fwd[k] = res(f, k);
		if (f->dead[k])
			m->comps[f->c].ins[k].flags |= HI_DEAD;
	}
	hlo_forward(m, f->c, f->fwd);
	if (hlo_comp_compact(m, f->c) < 0)
		return pass_err_cycle(f->ctx, m, f->c);
	return 0;
}

void
fu_place_comps(HloModule *m, uint32_t first, const uint32_t *caller)
{
	uint32_t n = m->ncomps, *order, *newid, *start, i, k, j, cnt = 0;
	HloComp *old;

	if (first >= n)
		return;
	order = xreallocarray(NULL, n, sizeof *order);
	newid = xreallocarray(NULL, n, sizeof *newid);
	start = xcalloc(first + 2, sizeof *start);
	for (k = first; k < n; k++)	/* new ones by caller, in order */
		if (caller[k - first] < first)
			start[caller[k - first] + 1]++;
	for (i = 0; i < first; i++)
		start[i + 1] += start[i];
	for (k = first; k < n; k++)
		if (caller[k - first] < first)
			newid[start[caller[k - first]]++] = k;
	for (i = 0, j = 0; i < first; i++) {
		while (j < start[i])
			order[cnt++] = newid[j++];
		order[cnt++] = i;
	}
	free(start);
	old = xreallocarray(NULL, n, sizeof *old);
	memcpy(old, m->comps, n * sizeof *old);
	for (i = 0; i < cnt; i++) {
		m->comps[i] = old[order[i]];
		newid[order[i]] = i;
	}
	m->entry = newid[m->entry];
	for (i = 0; i < n; i++)
		for (j = 0; j < m->comps[i].nins; j++)
			for (k = 0; k < m->comps[i].ins[j].ncalled; k++) {
				uint32_t *d = &m->ids[m->comps[i].ins[j].called
					+ k];

				if (*d < n)
					*d = newid[*d];
			}
	free(old);
	free(order);
	free(newid);
}

/* the computations instruction fusion visits: not fusion computations,
 * not those called as to_apply, comparator, ... (only by while,
 * conditional and call, or the entry) */
static uint8_t *
visited_comps(const HloModule *m, uint32_t *ncalls)
{
	uint8_t *ok = xcalloc(m->ncomps + 1, 1);
	uint32_t c, i, k, d;

	for (c = 0; c < m->ncomps; c++)
		ok[c] = !(m->comps[c].flags & HC_FUSION);
	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if (in->flags & HI_DEAD)
				continue;
			for (k = 0; k < in->ncalled; k++) {
				d = hlo_called(m, in)[k];
				if (d >= m->ncomps)
					continue;
				ncalls[d]++;
				if (in->op != HOP_WHILE && in->op != HOP_CALL &&
				    in->op != HOP_CONDITIONAL)
					ok[d] = 0;
			}
		}
	return ok;
}

static void
fu_init(Fu *f, HloModule *m, PassCtx *ctx, int rules)
{
	memset(f, 0, sizeof *f);
	f->m = m;
	f->ctx = ctx;
	f->rules = rules;
	f->pname = hlo_strz(m, "param");
}

static int
run_rules(HloModule *m, PassCtx *ctx, Fu *f, int dup)
{
	uint32_t c, n0 = m->ncomps, *order;
	uint8_t *ok;
	int changed = 0, r = 0, cnt, t;

	f->dup = dup;
	f->nnew = 0;
	f->first_new = n0;
	f->fx = pass_comp_effects(m, ctx);
	f->nfx = n0;
	f->ncalls = xcalloc(n0 + 1, sizeof *f->ncalls);
	ok = visited_comps(m, f->ncalls);
	order = xreallocarray(NULL, n0 + 1, sizeof *order);
	cnt = hlo_comp_order_all(m, order);
	if (cnt < 0) {
		for (c = 0; c < n0; c++)
			order[c] = c;
		cnt = n0;
	}
	for (t = 0; t < cnt && r == 0; t++) {
		c = order[t];
		if (!ok[c] || m->comps[c].nins == 0)
			continue;
		setup_comp(f, c);
		changed |= fuse_comp(f);
		r = finish_comp(f);
	}
	if (r == 0 && f->nnew)
		fu_place_comps(m, n0, f->newcaller);
	free(ok);
	free(order);
	free(f->ncalls);
	f->ncalls = NULL;
	return r < 0 ? -1 : changed;
}

int
fu_instruction_fusion(HloModule *m, PassCtx *ctx, int rules)
{
	Fu f;
	int r, changed = 0;

	fu_init(&f, m, ctx, rules);
	r = run_rules(m, ctx, &f, rules != FU_GPU);
	if (r >= 0 && rules == FU_GPU) {
		changed = r;
		r = run_rules(m, ctx, &f, 1);
	}
	ctx->stats.rewrites += f.fused;
	fu_free(&f);
	return r < 0 ? -1 : (r | changed);
}

int
pass_fusion_cpu(HloModule *m, PassCtx *ctx)
{
	return fu_instruction_fusion(m, ctx, FU_CPU);
}

int
pass_fusion_gpu(HloModule *m, PassCtx *ctx)
{
	return fu_instruction_fusion(m, ctx, FU_GPU);
}

int
pass_fusion_all(HloModule *m, PassCtx *ctx)
{
	return fu_instruction_fusion(m, ctx, FU_ALL);
}

/* "fusion-merger": xla:GPU's FusionMerger (the byte-ratio version,
 * xla/service/gpu/fusion_merger.cc at 9d7df89334): a loop fusion whose
 * users are all loop or input fusions is merged into each of them and
 * deleted, unless (ShouldFuse, in its order) a user is a reduce fusion
 * and the producer transposes most of its data, the users would read
 * more than 1.1 times the bytes moved now, it holds an expensive
 * instruction (allowed with one user, or when the merge moves under 0.3
 * times the bytes, and no user reads an element twice), a merged fusion
 * would not fit FusionFitsInBudget (64 operands and outputs, 8 reduces),
 * or it would be too large to emit (ProducerConsumerMergedTooLarge, the
 * code-size model of fusion_merger.c, which bounds the growth). Not done
 * as xla: users that are not fusions are not wrapped into new fusions;
 * a user reading the producer twice stops the merge; shared memory and
 * ShouldFuseInPlaceOp are not modelled. With across set (the "merge
 * across" strategy), only the structural conditions hold, and a growth
 * limit: the copies of merged bodies it adds stay within 4 times the
 * instructions the module had (a fusion merged into users that are
 * merged in turn would otherwise multiply without bound). */

/* the live instructions of fused computation c but its parameters */
static int64_t
body_size(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	int64_t n = 0;
	uint32_t i;

	for (i = 0; i < cp->nins; i++)
		n += !(cp->ins[i].flags & HI_DEAD) &&
			cp->ins[i].op != HOP_PARAMETER;
	return n;
}

static uint32_t
merge_into(Fu *f, uint32_t u, uint32_t p, int keep_names)
{
	HloModule *m = f->m;
	FuFus *fu = &f->fus[f->fid[u]], *pf = &f->fus[f->fid[p]];
	uint32_t pc = pf->comp, uc = fu->comp, k, j, t, i, cnt, prm, *map,
		*order, *ops, q, nin = m->comps[pc].nins;

	for (k = 0; k < fu->n && res(f, fu->ops[k]) != p; k++)
		;
	if (k == fu->n)
		return 0;
	free(fu->nd);	/* the state is built anew if needed */
	fu->nd = NULL;
	fu->cnd = 0;
	map = xreallocarray(NULL, nin + 1, sizeof *map);
	order = xreallocarray(NULL, nin + 1, sizeof *order);
	cnt = hlo_topo(m, pc, order);
	for (j = 0; j < pf->n; j++) {
		q = res(f, pf->ops[j]);
		for (t = 0; t < fu->n && res(f, fu->ops[t]) != q; t++)
			;
		if (t < fu->n) {
			map[pf->prm[j]] = fu->prm[t];
		} else {
			map[pf->prm[j]] = new_param(f, &f->fus[f->fid[u]], q);
			f->nusr[q]++;
		}
		fu = &f->fus[f->fid[u]];
	}
	for (t = 0; t < cnt; t++) {
		const HloInstr *in = &m->comps[pc].ins[order[t]];

		if (in->op == HOP_PARAMETER)
			continue;
		ops = xreallocarray(NULL, in->nops + 1, sizeof *ops);
		for (j = 0; j < in->nops; j++)
			ops[j] = map[hlo_ops(m, in)[j]];
		i = pass_copy_instr(m, uc, pc, order[t], in->nops, ops);
		if (keep_names)
			m->comps[uc].ins[i].name = m->comps[pc].ins[order[t]].name;
		map[order[t]] = i;
		free(ops);
	}
	prm = fu->prm[k];
	i = map[m->comps[pc].root];
	for (t = 0; t < m->comps[uc].nins; t++) {
		HloInstr *in = &m->comps[uc].ins[t];

		for (j = 0; j < in->nops && !(in->flags & HI_DEAD); j++)
			if (m->ids[in->ops + j] == prm)
				m->ids[in->ops + j] = i;
	}
	if (m->comps[uc].root == prm)
		m->comps[uc].root = i;
	m->comps[uc].ins[prm].flags |= HI_DEAD;
	memmove(fu->ops + k, fu->ops + k + 1, (fu->n - k - 1) * 4u);
	memmove(fu->prm + k, fu->prm + k + 1, (fu->n - k - 1) * 4u);
	fu->n--;
	fu->renamed = 1;
	f->nusr[p]--;
	free(map);
	free(order);
	return 1;
}

/* the parameter of fusion x that reads p; HLO_NONE if none */
static uint32_t
param_of(Fu *f, uint32_t x, uint32_t p, uint32_t *k)
{
	FuFus *fu = &f->fus[f->fid[x]];

	for (*k = 0; *k < fu->n; (*k)++)
		if (res(f, fu->ops[*k]) == p)
			return fu->prm[*k];
	return HLO_NONE;
}

/* FusionFitsInBudget(consumer x, producer p), on the operands as they
 * are now */
static int
fits_in_budget(Fu *f, uint32_t x, uint32_t p)
{
	FuFus *xf = &f->fus[f->fid[x]], *pf = &f->fus[f->fid[p]];
	uint32_t *xo = xreallocarray(NULL, xf->n + pf->n + 1, sizeof *xo), k;
	int r;

	for (k = 0; k < xf->n; k++)
		xo[k] = res(f, xf->ops[k]);
	for (k = 0; k < pf->n; k++)
		xo[xf->n + k] = res(f, pf->ops[k]);
	r = fu_fits_in_budget(f->m, INS(f, x)->shape, xf->comp, xo, xf->n,
		INS(f, p)->shape, pf->comp, xo + xf->n, pf->n, x, p);
	free(xo);
	return r;
}

/* xla FusionInstructionMerger::ShouldFuse past the structural checks of
 * merge_ok (users are loop or input fusions, each reading p once) */
static int
xla_merge_ok(Fu *f, uint32_t p, const HloUsers *us)
{
	HloModule *m = f->m;
	FuFus *pf = &f->fus[f->fid[p]];
	uint32_t pc = pf->comp, k, i, x, prm, nu = us->start[p + 1] -
		us->start[p];
	double rd, wr, cur, ratio;
	int red = 0, heavy = fu_heavy_to_repeat(m, pc), allow, ok = 1;
	FuIrSize ps, xs;

	for (k = us->start[p]; k < us->start[p + 1]; k++) {
		x = us->list[k];
		if (heavy && fu_reads_param_repeatedly(m,
		    f->fus[f->fid[x]].comp, param_of(f, x, p, &i)))
			return 0;	/* CreatesHeavyComputation */
		red |= f->fus[f->fid[x]].kind == FK_INPUT &&
			fu_reduce_root(m, f->fus[f->fid[x]].comp);
	}
	if (red && fu_transposes_most_data(m, pc, INS(f, p)->shape))
		return 0;
	rd = fu_bytes_read(m, pc);
	wr = (double)hlo_shape_bytes(m, INS(f, p)->shape);
	cur = rd + wr * (nu + 1);
	ratio = rd * nu / (cur > 1 ? cur : 1);
	if (ratio > 1.10)
		return 0;
	allow = nu == 1 || (ratio < 0.3 && cur > 1024);
	for (k = us->start[p]; k < us->start[p + 1] && allow; k++) {
		x = us->list[k];
		param_of(f, x, p, &i);
		allow = !reuses(f, x, i);
	}
	if (!allow && fu_has_expensive(m, pc))
		return 0;
	for (k = us->start[p]; k < us->start[p + 1]; k++)
		if (!fits_in_budget(f, us->list[k], p))
			return 0;
	fu_ir_size(m, pc, &ps);
	for (k = us->start[p]; k < us->start[p + 1] && ok; k++) {
		x = us->list[k];
		prm = param_of(f, x, p, &i);
		fu_ir_size(m, f->fus[f->fid[x]].comp, &xs);
		ok = !fu_merged_too_large(&ps, &xs, prm);
		fu_ir_size_free(&xs);
	}
	fu_ir_size_free(&ps);
	return ok;
}

static int
merge_ok(Fu *f, uint32_t p, const HloUsers *us, int across)
{
	HloModule *m = f->m;
	FuFus *pf = &f->fus[f->fid[p]];
	uint32_t k, i, nu = 0, x;
	double wr;

	if (pf->kind != FK_LOOP || p == m->comps[f->c].root ||
	    us->start[p] == us->start[p + 1] ||
	    hlo_sh(m, INS(f, p)->shape)->type == TY_TUPLE)
		return 0;
	for (k = us->start[p]; k < us->start[p + 1]; k++) {
		x = us->list[k];
		if (f->dead[x] || f->fid[x] < 0 || f->fus[f->fid[x]].kind >
		    FK_OUTPUT)
			return 0;
		if (!across && !gpu_loop_fusible(f, x) &&
		    !gpu_input_fusible(f, x))
			return 0;	/* IsProducerConsumerFusible */
		nu++;
		for (i = us->start[p]; i < k && us->list[i] != x; i++)
			;
		if (i < k)
			return 0;	/* used twice by one user */
	}
	if (!across)
		return xla_merge_ok(f, p, us);
	wr = (double)nu * body_size(m, pf->comp);
	if (wr > f->grow)
		return 0;
	f->grow -= (int64_t)wr;
	return 1;
}

static int
merge_comp(Fu *f, uint8_t *dropc)
{
	HloModule *m = f->m;
	uint32_t n = m->comps[f->c].nins, *po, cnt, t, k, p, q, j;
	HloUsers us;
	int changed = 0;

	po = xreallocarray(NULL, n + 1, sizeof *po);
	cnt = pass_post_order(m, f->c, po, f->ctx);
	hlo_users(m, f->c, &us);
	for (t = 0; t < cnt; t++) {
		p = po[t];
		if (f->fid[p] < 0 || !merge_ok(f, p, &us, f->dup))
			continue;
		for (k = us.start[p]; k < us.start[p + 1]; k++)
			merge_into(f, us.list[k], p, us.start[p + 1] -
				us.start[p] == 1);
		f->dead[p] = 1;
		dropc[f->fus[f->fid[p]].comp] = 1;
		for (k = 0; k < INS(f, p)->nops; k++) {
			q = m->ids[INS(f, p)->ops + k];
			for (j = 0; j < k && m->ids[INS(f, p)->ops + j] != q;
			     j++)
				;
			if (j == k && f->nusr[q] > 0)
				f->nusr[q]--;
		}
		f->fused++;
		changed = 1;
	}
	hlo_users_free(&us);
	free(po);
	return changed;
}

/* the loop of the merging passes: body(f, c, dropc, &r) on every
 * computation they visit that has instructions (1 changed; r the
 * finish_comp status), while r is 0; then the computations left unused
 * (dropc) are dropped */
static int
merge_each(HloModule *m, PassCtx *ctx, int dup,
	int (*body)(Fu *f, uint32_t c, uint8_t *dropc, int *r))
{
	Fu f;
	uint32_t c, n0 = m->ncomps;
	uint8_t *ok, *dropc;
	int changed = 0, r = 0;

	fu_init(&f, m, ctx, FU_GPU);
	f.dup = dup;
	for (c = 0; c < n0; c++)
		f.grow += 4 * (int64_t)body_size(m, c);
	f.fx = pass_comp_effects(m, ctx);
	f.nfx = n0;
	f.ncalls = xcalloc(n0 + 1, sizeof *f.ncalls);
	ok = visited_comps(m, f.ncalls);
	dropc = xcalloc(n0 + 1, 1);
	for (c = 0; c < n0 && r == 0; c++)
		if (ok[c] && m->comps[c].nins)
			changed |= body(&f, c, dropc, &r);
	if (r == 0 && changed)
		pass_drop_comps(m, dropc);
	ctx->stats.rewrites += f.fused;
	free(ok);
	free(dropc);
	fu_free(&f);
	return r < 0 ? -1 : changed;
}

static int
merger_comp(Fu *f, uint32_t c, uint8_t *dropc, int *r)
{
	int changed = 0;

	setup_comp(f, c);
	if (f->nfus)
		changed = merge_comp(f, dropc);
	*r = finish_comp(f);
	return changed;
}

int
fu_fusion_merger(HloModule *m, PassCtx *ctx, int across)
{
	return merge_each(m, ctx, across, merger_comp);
}

int
pass_fusion_merger(HloModule *m, PassCtx *ctx)
{
	return fu_fusion_merger(m, ctx, 0);
}

int
pass_fusion_merger_across(HloModule *m, PassCtx *ctx)
{
	return fu_fusion_merger(m, ctx, 1);
}
