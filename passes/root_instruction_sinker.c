/* root_instruction_sinker.c: "root-instruction-sinker", xla's
 * RootInstructionSinker (xla/hlo/transforms/simplifiers/
 * root_instruction_sinker.cc, jpli02/xla c4cbd3c).
 *
 * In a scheduled module (is_scheduled=true: the order of a computation's
 * instructions is its schedule), every non-fusion computation whose root
 * is not its last instruction gets a new root appended at the end: a
 * tuple root is duplicated (TupleUtil::Duplicate: a get-tuple-element of
 * the old root per element and a new tuple of them), any other root is
 * wrapped in a bitcast to its own shape. The old root stays where it was.
 *
 * Must not fire: a computation whose root is already last, fusion
 * computations, and a module without a schedule (xla's TF_RET_CHECK
 * fails there; hlopt leaves it unchanged). Nothing is moved or removed,
 * so side-effecting instructions stay as they are.
 */
#include <stdlib.h>
#include <string.h>

#include "wutil.h"

static int
scheduled(const HloModule *m)
{
	const HloAttr *a = m->attrv + m->hattrs;
	uint32_t i;

	for (i = 0; i < m->nhattrs; i++)
		if (a[i].name && !strcmp(hlo_cstr(m, a[i].name),
		    "is_scheduled") && a[i].kind == K_RAW && a[i].n == 4 &&
		    !memcmp(m->bytes + a[i].v, "true", 4))
			return 1;
	return 0;
}

static int
sink(HloModule *m, uint32_t c)
{
	HloComp *cp = &m->comps[c];
	uint32_t last = cp->nins, root = cp->root, n, k, *el, r;
	const HloShape *sh;

	while (last > 0 && (cp->ins[last - 1].flags & HI_DEAD))
		last--;
	if (root >= cp->nins || last == 0 || root == last - 1)
		return 0;
	sh = hlo_sh(m, cp->ins[root].shape);
	if (sh->type != TY_TUPLE) {
		r = wu_add(m, c, HOP_BITCAST, cp->ins[root].shape, 1, &root,
			NULL);
	} else {
		n = sh->ntuple;
		el = xreallocarray(NULL, n + 1, sizeof *el);
		for (k = 0; k < n; k++)
			el[k] = wu_gte(m, c, root, k, NULL);
		r = wu_tuple(m, c, n, el, NULL);
		free(el);
	}
	m->comps[c].root = r;
	return 1;
}

int
pass_root_instruction_sinker(HloModule *m, PassCtx *ctx)
{
	uint8_t *skip;
	uint32_t c, ncomps = m->ncomps;
	int changed = 0;

	if (!scheduled(m))
		return 0;
	skip = pass_skipped_comps(m, 0);
	for (c = 0; c < ncomps && changed >= 0; c++) {
		if (skip[c] || !sink(m, c))
			continue;
		ctx->stats.rewrites++;
		changed = 1;
		if (hlo_comp_compact(m, c) < 0)
			changed = pass_err_cycle(ctx, m, c);
	}
	free(skip);
	return changed;
}
