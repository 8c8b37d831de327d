/* eval_excess.c: the excess-precision reference of ev_verify
 * (xla_allow_excess_precision, which xla defaults to true).
 *
 * Under excess precision a value rounded to a narrower float type and
 * converted back may keep its wider value. ev_excess_module gives the
 * module that computes every value the way xla's SimplifyFPConversions
 * (xla/hlo/transforms/simplifiers/simplify_fp_conversions.cc, hlopt's
 * passes/simplify_fp_conv.c) may make it: a chain of two or more
 * converts whose results are all floating point, x -> convert -> ... ->
 * convert, reads x itself when it ends in x's element type, else
 * converts x once (f32 -> bf16 -> f32 becomes x; f32 -> bf16 -> f16
 * becomes one f32 -> f16 convert). Nothing else changes: a single
 * narrowing convert, a narrowing convert whose value is used as such, a
 * convert with control dependencies (which the pass leaves alone) and
 * every other instruction keep their strict meaning, so a module equal
 * to this reference is one the original may legally compute, not one
 * close to it within a looser tolerance. Every computation is rewritten
 * (fusion, reducer and loop bodies too), as the pass visits them all.
 */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

static int
float_convert(const HloModule *m, const HloInstr *in)
{
	return !(in->flags & HI_DEAD) && in->op == HOP_CONVERT &&
		in->nops == 1 &&
		hlo_typeinfo[hlo_sh(m, in->shape)->type].cls == C_FLOAT;
}

/* ctl[i] = 1 for instructions of c with control predecessors or
 * successors */
static void
mark_ctrl(const HloModule *m, uint32_t c, uint8_t *ctl)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, k, p;

	memset(ctl, 0, cp->nins + 1);
	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if ((in->flags & HI_DEAD) || !in->nctrl)
			continue;
		ctl[i] = 1;
		for (k = 0; k < in->nctrl; k++)
			if ((p = hlo_ctrl(m, in)[k]) < cp->nins)
				ctl[p] = 1;
	}
}

/* the start of the chain of float converts that ends in instruction i
 * of computation c of a, and the chain's length (0 when i is not a
 * float convert) */
static uint32_t
chain_start(const HloModule *a, uint32_t c, uint32_t i, uint32_t *len)
{
	const HloComp *cp = &a->comps[c];
	uint32_t y = i;

	*len = 0;
	while (y < cp->nins && float_convert(a, &cp->ins[y]) &&
	    *len <= cp->nins) {
		y = hlo_ops(a, &cp->ins[y])[0];
		(*len)++;
	}
	return y;
}

/* computation c of m (a clone of a): the chains collapsed; their count */
static int64_t
collapse(const HloModule *a, HloModule *m, uint32_t c, uint32_t *map,
	uint8_t *ctl, int apply)
{
	const HloComp *cp = &a->comps[c];
	uint32_t i, y, len, n = cp->nins;
	int64_t count = 0;

	if (apply)
		for (i = 0; i < n; i++)
			map[i] = i;
	mark_ctrl(a, c, ctl);
	for (i = 0; i < n; i++) {
		y = chain_start(a, c, i, &len);
		if (len < 2 || ctl[i] || y >= n)
			continue;
		count++;
		if (!apply)
			continue;
		if (hlo_sh(a, cp->ins[i].shape)->type ==
		    hlo_sh(a, cp->ins[y].shape)->type)
			map[i] = y;
		else
			hlo_set_operands(m, c, i, 1, &y);
	}
	if (apply && count)
		hlo_forward(m, c, map);
	return count;
}

/* the count of chains the excess-precision reference collapses */
static int64_t
count_chains(const HloModule *a)
{
	uint32_t c, most = 0;
	uint8_t *ctl;
	int64_t n = 0;

	for (c = 0; c < a->ncomps; c++)
		if (a->comps[c].nins > most)
			most = a->comps[c].nins;
	ctl = xcalloc(most + 1, 1);
	for (c = 0; c < a->ncomps; c++)
		n += collapse(a, NULL, c, NULL, ctl, 0);
	free(ctl);
	return n;
}

HloModule *
ev_excess_module(const HloModule *a, int64_t *chains)
{
	HloModule *m;
	uint32_t c, most = 0, *map;
	uint8_t *ctl;

	*chains = count_chains(a);
	if (!*chains)
		return NULL;
	m = hlo_module_clone(a);
	for (c = 0; c < a->ncomps; c++)
		if (a->comps[c].nins > most)
			most = a->comps[c].nins;
	map = xcalloc(most + 1, sizeof *map);
	ctl = xcalloc(most + 1, 1);
	for (c = 0; c < a->ncomps; c++)
		collapse(a, m, c, map, ctl, 1);
	free(map);
	free(ctl);
	return m;
}
