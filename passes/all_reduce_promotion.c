/* all_reduce_promotion.c: "all-reduce-promotion", xla's AllReducePromotion
 * (xla/service/all_reduce_promotion.cc, openxla/xla 24c6fef, tests
 * 80c095f) as XLA:CPU runs it: AllReducePromotion({{BF16, F32}}),
 * promote_all_reduce_only false. It is ChangeOpDataType
 * (change_op_data_type.c) with IsAllReduce as the predicate and a cloner
 * that gives the copy a new reducer.
 *
 * Contract: an all-reduce or reduce-scatter with an array result whose
 * operands are bf16 becomes convert(bf16 -> f32) of each operand, the
 * same collective in f32 and a convert back to bf16. Its reducer is a
 * new computation NAME_promoted (NAME: the old reducer's), parameters x
 * and y of f32[] and a root of the old root's opcode over them; the old
 * reducer stays in the module (XLA:CPU runs no dce after it; the next
 * dce removes it when nothing else calls it). XLA builds the new root
 * from the opcode alone; hlopt promotes only reducers that are that one
 * binary op of the two parameters (p0 op p1, or p1 op p0 for a
 * commutative op), where the rebuilt reducer computes the same thing.
 * Must not fire: other types (f32, u16: XLA:GPU's {u16, s16} table is
 * not XLA:CPU's), tuple-shaped (variadic) all-reduces, other collectives
 * (all-gather, all-to-all, collective-permute), all-reduce-start,
 * reducers of another form, instructions with control dependencies. The
 * collective is neither merged, duplicated nor deleted: it is replaced
 * by its promoted copy.
 */
#include <stdio.h>

#include "change_op_data_type.h"

static int
match(PassEdit *ed, uint32_t i)
{
	const HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i), *r;
	const HloComp *rc;
	uint32_t p0, p1, a, b;
	int op;

	if ((in->op != HOP_ALLREDUCE && in->op != HOP_REDUCESCATTER) ||
	    in->ncalled != 1)
		return 0;
	rc = &m->comps[hlo_called(m, in)[0]];
	if (hlo_param_count(m, (uint32_t)(rc - m->comps)) != 2)
		return 0;
	p0 = hlo_param(m, (uint32_t)(rc - m->comps), 0);
	p1 = hlo_param(m, (uint32_t)(rc - m->comps), 1);
	r = &rc->ins[rc->root];
	op = r->op;
	if (hlo_op_family(op) != OPFAM_BINARY || r->nops != 2 ||
	    r->ncalled || r->nattrs > 1)
		return 0;
	if (r->nattrs == 1 && m->attrv[r->attrs].key != A_METADATA)
		return 0;
	a = hlo_ops(m, r)[0];
	b = hlo_ops(m, r)[1];
	return (a == p0 && b == p1) || (a == p1 && b == p0 &&
	    (hlo_opinfo[op].flags & OPF_COMM));
}

/* the copy x gets a reducer of the old root's opcode over scalars of
 * type to */
static void
fixup(PassEdit *ed, uint32_t x, int to)
{
	HloModule *m = ed->m;
	uint32_t old = hlo_called(m, hlo_ins(m, ed->c, x))[0], nc;
	const HloComp *oc = &m->comps[old];
	int op = oc->ins[oc->root].op;
	char name[300];

	snprintf(name, sizeof name, "%.200s_promoted",
	    hlo_cstr(m, oc->name));
	nc = pass_b_scalar_comp(m, name, op, to, "x", "y");
	hlo_set_called(m, ed->c, x, 1, &nc);
}

int
pass_all_reduce_promotion(HloModule *m, PassCtx *ctx)
{
	static const int map[][2] = {{TY_BF16, TY_F32}};
	PassChangeType t = {map, 1, match, fixup};

	return pass_change_op_type(m, ctx, &t);
}
