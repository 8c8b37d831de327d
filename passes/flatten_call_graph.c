/* flatten_call_graph.c: "flatten-call-graph", xla's FlattenCallGraph.
 *
 * Computations are visited callees first. Every caller instruction of a
 * computation but the first (in module order) gets its own copy of it,
 * and so does the first when it calls the computation more than once
 * (each reference then gets a copy). A copy's callees are copied too,
 * transitively, so that in the end every computation is called from at
 * most one instruction and at most once. Copies are named <name>.clone.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

/* a copy of c whose callees are fresh copies too, transitively */
static uint32_t
clone_tree(HloModule *m, uint32_t c, uint32_t **stack, uint32_t *cap)
{
	uint32_t root = hlo_comp_clone(m, c, ".clone"), top = 0, d, i, k, s;

	(*stack)[top++] = root;
	while (top) {
		d = (*stack)[--top];
		for (i = 0; i < m->comps[d].nins; i++) {
			const HloInstr *in = &m->comps[d].ins[i];

			for (k = 0; k < in->ncalled; k++) {
				s = m->ids[in->called + k];
				if (s >= m->ncomps)
					continue;
				s = hlo_comp_clone(m, s, ".clone");
				in = &m->comps[d].ins[i];
				m->ids[in->called + k] = s;
				if (top == *cap) {
					*cap *= 2;
					*stack = xreallocarray(*stack, *cap,
						sizeof **stack);
				}
				(*stack)[top++] = s;
			}
		}
	}
	return root;
}

int
pass_flatten_call_graph(HloModule *m, PassCtx *ctx)
{
	PassCallers cg;
	uint32_t *order, c, j, k, first, cap = 64, *stack;
	int n, i, changed = 0, refs;

	if (!(order = pass_comps_in_post_order(m, ctx, &n)))
		return -1;
	pass_callers(m, &cg, ctx);
	pass_fresh_names(m);
	stack = xreallocarray(NULL, cap, sizeof *stack);
	for (i = 0; i < n; i++) {
		c = order[i];
		first = 1;
		for (j = cg.start[c]; j < cg.start[c + 1]; j++) {
			PassSite s = cg.site[j];
			const HloInstr *in;

			/* one entry per reference: act once per caller */
			if (j > cg.start[c] && cg.site[j - 1].comp == s.comp &&
			    cg.site[j - 1].instr == s.instr)
				continue;
			in = &m->comps[s.comp].ins[s.instr];
			if (first) {
				first = 0;
				for (k = 0, refs = 0; k < in->ncalled; k++)
					refs += m->ids[in->called + k] == c;
				if (refs <= 1)
					continue;
			}
			changed = 1;
			ctx->stats.rewrites++;
			for (k = 0; k < in->ncalled; k++) {
				uint32_t d;

				in = &m->comps[s.comp].ins[s.instr];
				if (m->ids[in->called + k] != c)
					continue;
				d = clone_tree(m, c, &stack, &cap);
				in = &m->comps[s.comp].ins[s.instr];
				m->ids[in->called + k] = d;
			}
		}
	}
	free(stack);
	free(order);
	return changed;
}
