/* call_inliner.c: "call-inliner", xla's CallInliner with its default
 * options (every call site, no domain update).
 *
 * Computations are visited callees first; in each, in xla's post order,
 * every call without a backend_config, outside an async computation and
 * without frontend attribute inlineable="false" is replaced by a copy of
 * its callee's instructions (parameters become the call's operands,
 * control predecessors are kept and the call's own are added to every
 * copy). The call is then replaced by the copy of the callee's root with
 * ReplaceInstruction (control dependencies relayed), composite calls
 * included (their composite.* frontend attributes dropped first). When
 * anything was inlined, dce runs over the module. PassOptions
 * single_call_site restricts inlining to computations with one call site.
 * Not done: the MUST_FUSE / MAXIMAL_FUSE attribute propagation.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

static int
inlineable(const HloModule *m, const HloInstr *in)
{
	uint32_t n;
	const char *v;

	if (in->op != HOP_CALL || in->ncalled != 1)
		return 0;
	if (hlo_attr_word(m, in, A_BACKEND_CONFIG, &n) && n)
		return 0;
	v = pass_frontend_attr(m, in, "inlineable", &n);
	return !v || (n == 4 && !memcmp(v, "true", 4));
}

/* drops the composite.* keys from the frontend attributes of call i */
static void
drop_composite_attrs(HloModule *m, uint32_t c, uint32_t i)
{
	HloBuf b = {0};
	uint32_t n, k, start, end;
	const char *s = hlo_attr_word(m, &m->comps[c].ins[i],
		A_FRONTEND_ATTRIBUTES, &n);
	char *t;
	HloAttr a;
	int first = 1, inq;

	if (!s)
		return;
	t = xmalloc(n + 1);
	memcpy(t, s, n);
	hlo_buf_puts(&b, "{");
	k = t[0] == '{';
	while (k < n) {
		while (k < n && (t[k] == ' ' || t[k] == ','))
			k++;
		if (k >= n || t[k] == '}')
			break;
		start = k;
		for (inq = 0; k < n; k++) {
			if (inq && t[k] == '\\') {
				k++;
				continue;
			}
			if (t[k] == '"')
				inq = !inq;
			else if (!inq && (t[k] == ',' || t[k] == '}'))
				break;
		}
		end = k > n ? n : k;
		if (end - start >= 10 && !memcmp(t + start, "composite.", 10))
			continue;
		if (!first)
			hlo_buf_puts(&b, ",");
		hlo_buf_put(&b, t + start, end - start);
		first = 0;
	}
	hlo_buf_puts(&b, "}");
	if (first) {
		hlo_attr_del(m, c, i, A_FRONTEND_ATTRIBUTES);
	} else {
		a = hlo_mk_bytes(m, A_FRONTEND_ATTRIBUTES, K_RAW, b.buf, b.len);
		hlo_attr_set(m, c, i, &a);
	}
	hlo_buf_free(&b);
	free(t);
}

/* the post order of callee d, computed at its first call site and kept:
 * d is final by then (callees are done before their callers) */
typedef struct {
	uint32_t **order, *n;
} PostOrders;

static const uint32_t *
callee_order(PostOrders *po, const HloModule *m, uint32_t d, uint32_t *cnt,
	PassCtx *ctx)
{
	if (!po->order[d]) {
		po->order[d] = xreallocarray(NULL, m->comps[d].nins + 1,
			sizeof **po->order);
		po->n[d] = pass_post_order(m, d, po->order[d], ctx);
	}
	*cnt = po->n[d];
	return po->order[d];
}

/* CallInliner::Inline */
static int
inline_call(PassEdit *ed, uint32_t x, PassCtx *ctx, PostOrders *po)
{
	HloModule *m = ed->m;
	uint32_t c = ed->c, callee, *map, cnt, i, k, h, j, nops;
	const uint32_t *order;
	uint32_t *ops, *ctrl, ncallpred, *callpred, root;
	const HloInstr *in = &m->comps[c].ins[x];

	callee = m->ids[in->called];
	if (callee >= m->ncomps || callee == c ||
	    m->comps[callee].root >= m->comps[callee].nins ||
	    hlo_param_count(m, callee) != (int)in->nops)
		return 0;
	for (i = 0; i < m->comps[callee].nins; i++)
		if (m->comps[callee].ins[i].op == HOP_PARAMETER &&
		    (m->comps[callee].ins[i].num < 0 ||
		    m->comps[callee].ins[i].num >= in->nops))
			return 0;
	if (hlo_attr_int(m, in, A_IS_COMPOSITE, 0))
		drop_composite_attrs(m, c, x);
	in = &m->comps[c].ins[x];
	ncallpred = in->nctrl;
	callpred = pass_alloc(ctx, (ncallpred + 1) * sizeof *callpred);
	for (k = 0; k < ncallpred; k++)
		callpred[k] = pass_res(ed, m->ids[in->ctrl + k]);
	nops = m->comps[callee].nins;
	map = pass_alloc(ctx, (nops + 1) * sizeof *map);
	for (i = 0; i < nops; i++)
		map[i] = HLO_NONE;
	order = callee_order(po, m, callee, &cnt, ctx);
	for (i = 0; i < cnt; i++) {
		const HloInstr *hi = &m->comps[callee].ins[h = order[i]];
		uint32_t n = hi->nops, nc = hi->nctrl;

		if (hi->op == HOP_PARAMETER) {
			map[h] = pass_res(ed, m->ids[m->comps[c].ins[x].ops +
				hi->num]);
			continue;
		}
		ops = pass_alloc(ctx, (n + 1) * sizeof *ops);
		for (k = 0; k < n; k++)
			ops[k] = map[m->ids[hi->ops + k]];
		ctrl = pass_alloc(ctx, (nc + ncallpred + 1) * sizeof *ctrl);
		for (k = 0; k < nc; k++)
			ctrl[k] = map[m->ids[hi->ctrl + k]];
		memcpy(ctrl + nc, callpred, ncallpred * sizeof *ctrl);
		j = pass_copy_instr(m, c, callee, h, n, ops);
		if (nc + ncallpred)
			hlo_set_ctrl(m, c, j, nc + ncallpred, ctrl);
		pass_edit_added(ed, j);
		map[h] = j;
	}
	root = map[m->comps[callee].root];
	if (root == HLO_NONE)
		return 0;
	pass_replace(ed, x, root, 0, 1);
	return 1;
}

/* whether computation c has a call instruction */
int
pass_call_inliner(HloModule *m, PassCtx *ctx)
{
	PassEdit ed;
	PassCallers cg;
	PostOrders po;
	uint32_t ncomps = m->ncomps, *corder, *order, c, i, k, cnt, x, d;
	uint8_t *fx = xmalloc(ncomps + 1), *async = xcalloc(ncomps + 1, 1);
	uint32_t *sites = xcalloc(ncomps + 1, sizeof *sites);
	int n, changed = 0, r = 0;

	for (c = 0; c < ncomps && !hlo_comp_has_op(m, c, HOP_CALL); c++)
		;
	if (c == ncomps) {
		free(fx);
		free(async);
		free(sites);
		return 0;
	}
	pass_fresh_names(m);
	corder = xreallocarray(NULL, ncomps + 1, sizeof *corder);
	n = pass_comp_post_order(m, corder);
	memcpy(fx, pass_comp_effects(m, ctx), ncomps);
	pass_callers(m, &cg, ctx);
	for (c = 0; c < ncomps; c++) {
		sites[c] = cg.start[c + 1] - cg.start[c];
		for (i = cg.start[c]; i < cg.start[c + 1]; i++) {
			const HloInstr *in =
				&m->comps[cg.site[i].comp].ins[cg.site[i].instr];

			if (hlo_opinfo[in->op].flags & OPF_ASYNC)
				async[c] = 1;
		}
	}
	pass_reset(ctx);
	if (n < 0) {
		r = pass_err_cycle(ctx, m, HLO_NONE);
		goto out;
	}
	pass_edit_init(&ed, m, ctx, fx, ncomps);
	po.order = xcalloc(ncomps + 1, sizeof *po.order);
	po.n = xcalloc(ncomps + 1, sizeof *po.n);
	for (i = 0; i < (uint32_t)n; i++) {
		c = corder[i];
		if (async[c] || !hlo_comp_has_op(m, c, HOP_CALL))
			continue;
		pass_edit_begin(&ed, c);
		order = pass_alloc(ctx, (m->comps[c].nins + 1) *
			sizeof *order);
		cnt = pass_post_order(m, c, order, ctx);
		for (k = 0; k < cnt; k++) {
			const HloInstr *in = &m->comps[c].ins[x = order[k]];

			if ((in->flags & HI_DEAD) || !inlineable(m, in))
				continue;
			d = m->ids[in->called];
			if (ctx->opt.single_call_site && (d >= ncomps ||
			    sites[d] != 1))
				continue;
			if (inline_call(&ed, x, ctx, &po)) {
				ctx->stats.rewrites++;
				changed = 1;
			}
		}
		r = pass_edit_end(&ed);
		pass_reset(ctx);
		if (r < 0)
			break;
	}
	pass_edit_free(&ed);
	for (c = 0; c < ncomps; c++)
		free(po.order[c]);
	free(po.order);
	free(po.n);
	if (r == 0 && changed && pass_dce_module(m, ctx) < 0)
		r = -1;
out:
	free(fx);
	free(async);
	free(sites);
	free(corder);
	return r < 0 ? -1 : changed;
}
