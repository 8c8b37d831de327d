/* change_op_data_type.c: "change-op-data-type", xla's ChangeOpDataType
 * (xla/service/change_op_data_type.cc, openxla/xla fdb896a, the version
 * the cpu_compiler.cc of xla_cpu.def runs), as XLA:CPU configures it:
 * ChangeOpDataType(F16, F32, dot_conv_f16_to_f32_filter), the filter
 * accepting dots and convolutions (xla_cpu_strict_dot_conv_math off, no
 * oneDNN, no library call: the ynn dot library is target dependent and
 * hlopt changes the dots it would take too).
 *
 * Contract: in every non-fusion computation, in post order, an
 * instruction the predicate picks whose operands all have one element
 * type F with a mapping F -> T, whose result is an array and which is not
 * a parameter, is copied with its operands converted to T and its result
 * type T; a convert back replaces it. XLA converts the result back to F,
 * the operand type; hlopt converts it back to the instruction's own
 * result type (the same whenever the result type is F, which it is for
 * every dot and convolution operand_upcaster has seen; for an f16 x f16
 * -> f32 dot XLA's replacement would change the result type, hlopt's
 * needs no convert back).
 * Must not fire: operands of different types (dynamic-slice of f16 with
 * s32 indices), a type not in the map, tuple results, instructions the
 * predicate rejects (adds for change-op-data-type), instructions with
 * control dependencies (XLA's ReplaceInstruction refuses them).
 */
#include "change_op_data_type.h"

/* the type operand types map to, -1 if the operands are not uniform or
 * their type has no mapping */
static int
target(PassEdit *ed, const PassChangeType *t, uint32_t i, int *from)
{
	const HloInstr *in = pass_ins(ed, i);
	uint32_t k;
	int ty = -1, u;

	if (in->nops == 0 || in->op == HOP_PARAMETER)
		return -1;
	for (k = 0; k < in->nops; k++) {
		u = pass_b_type(ed, pass_opnd(ed, i, k));
		if (k > 0 && u != ty)
			return -1;
		ty = u;
	}
	for (k = 0; k < t->nmap; k++)
		if (t->map[k][0] == ty) {
			*from = ty;
			return t->map[k][1];
		}
	return -1;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const PassChangeType *t = arg;
	const HloShape *s = hlo_sh(ed->m, pass_ins(ed, i)->shape);
	int from;

	if (s->type == TY_TUPLE || s->type == TY_TOKEN ||
	    s->type == TY_OPAQUE || s->type == TY_BUFFER)
		return 0;
	return t->match(ed, i) && target(ed, t, i, &from) >= 0;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	const PassChangeType *t = arg;
	HloModule *m = ed->m;
	uint32_t buf[8], *ops, n = pass_ins(ed, i)->nops, k, x, shape;
	int from, to = target(ed, t, i, &from), rt;

	ops = n <= 8 ? buf : pass_zalloc(ed->ctx, n, sizeof *ops);
	for (k = 0; k < n; k++)
		ops[k] = pass_b_convert(ed, pass_opnd(ed, i, k), to);
	shape = pass_ins(ed, i)->shape;
	rt = hlo_sh(m, shape)->type;
	x = pass_copy_instr(m, ed->c, ed->c, i, n, ops);
	m->comps[ed->c].ins[x].shape = hlo_shape_with_type(m, shape, to);
	pass_edit_added(ed, x);
	if (t->fixup)
		t->fixup(ed, x, to);
	if (rt == to)
		return x;
	return pass_b_convert(ed, x, rt);
}

int
pass_change_op_type(HloModule *m, PassCtx *ctx, const PassChangeType *t)
{
	return pass_expand(m, ctx, match, expand, (void *)t);
}

static int
dot_or_conv(PassEdit *ed, uint32_t i)
{
	int op = pass_ins(ed, i)->op;

	return op == HOP_DOT || op == HOP_CONV;
}

int
pass_change_op_data_type(HloModule *m, PassCtx *ctx)
{
	static const int map[][2] = {{TY_F16, TY_F32}};
	PassChangeType t = {map, 1, dot_or_conv, NULL};

	return pass_change_op_type(m, ctx, &t);
}
