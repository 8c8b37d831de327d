/* real_imag_expander.c: "real_imag_expander", xla's RealImagExpander.
 *
 * An OpExpanderPass: real(x) of a non-complex x becomes x; imag(x) of a
 * non-complex x becomes a broadcast of the scalar zero of x's type to
 * imag's shape. real and imag of complex values are left alone.
 */
#include "build.h"

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = &ed->m->comps[ed->c].ins[i];

	(void)arg;
	return (in->op == HOP_REAL || in->op == HOP_IMAG) && in->nops == 1 &&
		hlo_typeinfo[pass_b_type(ed, ed->m->ids[in->ops])].cls !=
		C_CPLX;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = &ed->m->comps[ed->c].ins[i];
	uint32_t x = ed->m->ids[in->ops], shape = in->shape, z;

	(void)arg;
	if (in->op == HOP_REAL)
		return pass_res(ed, x);
	z = pass_b_scalar(ed, pass_b_type(ed, x), 0);
	return pass_b_bcast(ed, z, shape, 0, NULL);
}

int
pass_real_imag_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
