/* conditional_code_motion.c: "conditional-code-motion", xla's
 * ConditionalCodeMotion (xla/service/conditional_code_motion.cc, openxla/xla
 * as mirrored by jpli02/xla c4cbd3c3453569a9c3c1cfdc8a9105b442aab38f) with
 * the options every unit test and pipeline constructs it with:
 * is_layout_sensitive = true, pursue_full_conditional_code_motion = true,
 * search_config = 0 (no tuning), memory_increase_allowance = 5000.
 * XLA:CPU and XLA:GPU do not run it (no OSS pipeline does; it is TPU's).
 *
 * Contract. First HloCSE(layout sensitive) and HloDCE over the module.
 * Then the conditionals, in computation post order and instruction post
 * order, whose users are all get-tuple-elements (or whose result is an
 * array), are analysed one at a time as xla does, boundary by boundary:
 *   - seeds: the branch roots (one boundary inside the branches), each
 *     user of the conditional, each branch operand;
 *   - from a seed, a breadth-first group of connected boundaries that may
 *     move: inside the branches an instruction identical in every branch
 *     (opcode, layout-sensitive shapes of it and its operands, attributes
 *     but metadata/sharding, called computations equal; cross-module
 *     all-reduces with any channel id), outside any user (or operand);
 *     an instruction with several users (inside) or several non-constant
 *     operands (outside users) joins only once all of them were reached;
 *     xla's move table decides (WorthHoisting: elementwise ops, reshape,
 *     reduce, constants, all-reduce, reduce-scatter; convert only after
 *     all-reduce, reshape or get-tuple-element; tuples and
 *     get-tuple-elements not of a parameter); never a parameter, never the
 *     root tuple of the conditional's computation, never a collective or
 *     send/recv (channel instruction) into a branch; an operand with
 *     several users, a side effect, a sharded tuple or a get-tuple-element
 *     never moves into the branches;
 *   - its benefit by xla's reuse model (ReusesCarriedBy per opcode pair,
 *     divided by the users and non-constant operands on either side; the
 *     copy folding bonus); refused when negative or when the average
 *     memory growth exceeds 5000 << 9 bytes per moved instruction;
 *   - the direction with the larger summed benefit wins (ties: out).
 * Moving out: the identical instructions are cloned after the
 * conditional, whose branches return the values they needed (a new root
 * tuple); the old get-tuple-elements are replaced. Moving in: users of
 * the conditional are cloned into every branch, the root tuples return
 * their results and get-tuple-elements replace them outside. When
 * nothing moves and no branch computation is shared: converts at the
 * same root index of every branch (not fed by or feeding a convert, not
 * repeated in the root) are hoisted after the conditional. A branch
 * computation something else calls is cloned before it changes. After a
 * change: HloDCE, TupleSimplifier, HloDCE.
 *
 * Left out, as stated: moving operands of the conditional into its
 * branches (MoveOperandInstructionsIn): the analysis weighs those groups
 * as xla does (so a winning move-in decision is the same), but only the
 * user groups of that decision are carried out; the search_config tuning
 * (not the default). Refused where xla would stop on a check failure:
 * conditionals in a computation with control dependencies, moving out of
 * branches whose roots are not tuples. A branch computation that a call,
 * fusion, while, ... also calls counts as shared and is cloned before it
 * changes (xla counts conditional branches only, and would change the
 * other caller's callee too). The conditional keeps its name and
 * attributes where xla makes a new one (convert hoisting); its sharding is
 * dropped when its shape changes, as xla's copy from the new root tuple.
 * Returns 1 when the module changed, the cleanup included.
 */
#include <stdlib.h>
#include <string.h>

#include "conditional_code_motion.h"

/* building */
static uint32_t
add_op(Ccm *s, uint32_t c, int op, uint32_t shape, uint32_t n,
	const uint32_t *ops)
{
	s->touched[c] = 1;
	return hlo_instr_add(s->m, c, op, shape,
		hlo_fresh_name(s->m, hlo_opinfo[op].name), n, ops);
}

static uint32_t
add_gte(Ccm *s, uint32_t c, uint32_t t, int64_t idx)
{
	const HloShape *sh = hlo_sh(s->m, ins(s, c, t)->shape);
	uint32_t g = add_op(s, c, HOP_GTE, hlo_tuple_elems(s->m, sh)[idx], 1,
		&t);
	HloAttr a = hlo_mk_int(A_INDEX, idx);

	hlo_set_attrs(s->m, c, g, 1, &a);
	return g;
}

static uint32_t
add_gte_sh(Ccm *s, uint32_t c, uint32_t t, int64_t idx, uint32_t shape)
{
	uint32_t g = add_op(s, c, HOP_GTE, shape, 1, &t);
	HloAttr a = hlo_mk_int(A_INDEX, idx);

	hlo_set_attrs(s->m, c, g, 1, &a);
	return g;
}

static uint32_t
add_tuple(Ccm *s, uint32_t c, uint32_t n, const uint32_t *ops)
{
	uint32_t *sh = xreallocarray(NULL, n + 1, sizeof *sh), k, t;

	for (k = 0; k < n; k++)
		sh[k] = ins(s, c, ops[k])->shape;
	t = hlo_shape_tuple(s->m, n, sh);
	free(sh);
	return add_op(s, c, HOP_TUPLE, t, n, ops);
}

/* the conditional takes the shape of its first branch's root; its
 * sharding follows the new root tuple's (none) */
static void
reshape_cond(Ccm *s)
{
	HloModule *m = s->m;

	m->comps[s->P].ins[s->X].shape =
		ins(s, s->br[0], m->comps[s->br[0]].root)->shape;
	hlo_attr_del(m, s->P, s->X, A_SHARDING);
	s->touched[s->P] = 1;
}

/* marks dead, in order, the instructions of list (in c) that nothing
 * live uses once the earlier ones are gone (RemoveInstruction of the
 * dead); never the root */
static void
kill_unused(Ccm *s, uint32_t c, const uint32_t *list, uint32_t n)
{
	HloComp *cp = &s->m->comps[c];
	uint32_t *cnt = xcalloc(cp->nins + 1, sizeof *cnt), i, k, x;
	int any = 0;

	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD))
			for (k = 0; k < cp->ins[i].nops; k++)
				cnt[s->m->ids[cp->ins[i].ops + k]]++;
	for (i = 0; i < n; i++) {
		x = list[i];
		if ((cp->ins[x].flags & HI_DEAD) || cp->root == x || cnt[x])
			continue;
		cp->ins[x].flags |= HI_DEAD;
		any = 1;
		for (k = 0; k < cp->ins[x].nops; k++)
			cnt[s->m->ids[cp->ins[x].ops + k]]--;
	}
	free(cnt);
	if (any)
		pass_ccm_invalidate(s, c);
}

/* replace the operands of c's live instructions (and the root) by map */
static void
forward(Ccm *s, uint32_t c, uint32_t *map, uint32_t nmap)
{
	uint32_t n = s->m->comps[c].nins, i;

	map = xreallocarray(map, n + 1, sizeof *map);
	for (i = nmap; i < n; i++)
		map[i] = i;
	hlo_forward(s->m, c, map);
	free(map);
	pass_ccm_invalidate(s, c);
}

static uint32_t *
idmap(Ccm *s, uint32_t c)
{
	uint32_t n = s->m->comps[c].nins, i,
		*map = xreallocarray(NULL, n + 1, sizeof *map);

	for (i = 0; i < n; i++)
		map[i] = i;
	return map;
}

/* MoveInstructionOut */
static int
move_out(Ccm *s, const BVec *tm, const BVec *nbs)
{
	HloModule *m = s->m;
	BMap hoisted;
	uint32_t i, j, k, *ops, *map, nmap, nu, *gtes, n, x;
	int ok = 1;

	if (hlo_sh(m, ins(s, s->P, s->X)->shape)->type != TY_TUPLE)
		return 0;
	for (j = 0; j < s->nb; j++)
		if (opc(s, s->br[j], m->comps[s->br[j]].root) != HOP_TUPLE)
			return 0;
	memset(&hoisted, 0, sizeof hoisted);
	for (k = 0; k < nbs->n; k++) {
		x = add_gte_sh(s, s->P, s->X, k, ins(s, s->br[0],
			b0(s, nbs->v[k]))->shape);
		*pass_ccm_bmslot(s, &hoisted, nbs->v[k], 1) = x;
	}
	for (i = tm->n; i-- > 0 && ok;) {
		Bnd b = tm->v[i];
		uint32_t x0 = b0(s, b), no = ins(s, s->br[0], x0)->nops;

		ops = xreallocarray(NULL, no + 1, sizeof *ops);
		for (k = 0; k < no && ok; k++) {
			Bnd ob = pass_ccm_bnew(s, B_IN, s->nb);
			uint32_t *h;

			for (j = 0; j < s->nb; j++)
				BID(s, ob, j) = opnd(s, s->br[j],
					BID(s, b, j), k);
			h = pass_ccm_bmslot(s, &hoisted, ob, 0);
			if (!h || *h == HLO_NONE)
				ok = 0;
			else
				ops[k] = *h;
		}
		if (ok)
			*pass_ccm_bmslot(s, &hoisted, b, 1) = pass_copy_instr(m, s->P,
				s->br[0], x0, no, ops);
		free(ops);
	}
	if (!ok) {
		pass_ccm_bmfree(&hoisted);
		return hlo_err(&s->ctx->err, "conditional-code-motion: "
			"an operand of a hoisted instruction was not hoisted");
	}
	s->touched[s->P] = 1;
	/* the old users of the conditional read the hoisted values */
	nu = pass_ccm_nusers(s, s->P, s->X);
	gtes = xreallocarray(NULL, nu + 1, sizeof *gtes);
	for (k = 0; k < nu; k++)
		gtes[k] = pass_ccm_user_at(s, s->P, s->X, k);
	nmap = s->m->comps[s->P].nins;
	map = idmap(s, s->P);
	for (k = 0; k < nu; k++) {
		int64_t idx = hlo_attr_int(m, ins(s, s->P, gtes[k]), A_INDEX,
			0);
		Bnd ob = pass_ccm_bnew(s, B_IN, s->nb);
		uint32_t *h;

		for (j = 0; j < s->nb; j++)
			BID(s, ob, j) = opnd(s, s->br[j],
				m->comps[s->br[j]].root, (uint32_t)idx);
		h = pass_ccm_bmslot(s, &hoisted, ob, 0);
		if (h && *h != HLO_NONE)
			map[gtes[k]] = *h;
	}
	forward(s, s->P, map, nmap);
	kill_unused(s, s->P, gtes, nu);
	free(gtes);
	/* each branch returns the values the hoisted code needs */
	n = nbs->n > tm->n ? nbs->n : tm->n;
	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	for (j = 0; j < s->nb; j++) {
		uint32_t c = s->br[j];

		for (k = 0; k < nbs->n; k++)
			ops[k] = BID(s, nbs->v[k], j);
		m->comps[c].root = add_tuple(s, c, nbs->n, ops);
		pass_ccm_invalidate(s, c);
		for (i = 0; i < tm->n; i++)
			ops[i] = BID(s, tm->v[i], j);
		kill_unused(s, c, ops, tm->n);
	}
	free(ops);
	reshape_cond(s);
	pass_ccm_bmfree(&hoisted);
	s->rewrites += tm->n;
	return 1;
}

/* appends x (of c) to the root tuple of c */
static void
root_append(Ccm *s, uint32_t c, uint32_t x)
{
	HloModule *m = s->m;
	uint32_t r = m->comps[c].root, n = ins(s, c, r)->nops, k;
	uint32_t *ops = xreallocarray(NULL, n + 2, sizeof *ops);

	for (k = 0; k < n; k++)
		ops[k] = opnd(s, c, r, k);
	ops[n] = x;
	hlo_set_operands(m, c, r, n + 1, ops);
	for (k = 0; k <= n; k++)
		ops[k] = ins(s, c, ops[k])->shape;
	m->comps[c].ins[r].shape = hlo_shape_tuple(m, n + 1, ops);
	free(ops);
}

/* CopyIntoConditional's operands, checked before anything changes: each
 * operand of a moved user is hoisted (the conditional, the used
 * get-tuple-element, an earlier moved user), a constant or a
 * get-tuple-element of the conditional */
static int
move_in_ok(Ccm *s, const BVec *tm, uint32_t from, uint32_t tuse,
	int64_t use_index)
{
	uint32_t i, k, o;

	for (i = from; i < tm->n; i++) {
		uint32_t x = b0(s, tm->v[i]);

		for (k = 0; k < ins(s, s->P, x)->nops; k++) {
			uint32_t q;

			o = opnd(s, s->P, x, k);
			if (o == s->X || (use_index >= 0 && o == tuse))
				continue;
			for (q = from; q < i; q++)
				if (b0(s, tm->v[q]) == o)
					break;
			if (q < i || opc(s, s->P, o) == HOP_CONSTANT)
				continue;
			if (opc(s, s->P, o) != HOP_GTE ||
			    opnd(s, s->P, o, 0) != s->X)
				return 0;
		}
	}
	return 1;
}

/* the branch values standing for outside instruction o: hoisted[o] */
typedef struct {
	uint32_t key;		/* instruction of the parent */
	uint32_t off;		/* nb ids in the pool */
} Hoist;

static int
hoist_find(const Hoist *h, uint32_t n, uint32_t key)
{
	uint32_t i;

	for (i = n; i-- > 0;)
		if (h[i].key == key)
			return (int)i;
	return -1;
}

/* MoveUserInstructionsIn's new branch roots: every old root entry but
 * use_index (which goes to bu), the old roots in bo */
static void
move_in_roots(Ccm *s, int64_t use_index, Bnd bo, Bnd bu)
{
	HloModule *m = s->m;
	uint32_t j, k, *ops;

	for (j = 0; j < s->nb; j++) {
		uint32_t c = s->br[j], r = m->comps[c].root, n, w = 0;
		const HloShape *rs = hlo_sh(m, ins(s, c, r)->shape);

		BID(s, bo, j) = r;
		BID(s, bu, j) = HLO_NONE;
		if (opc(s, c, r) == HOP_TUPLE) {
			n = ins(s, c, r)->nops;
			ops = xreallocarray(NULL, n + 1, sizeof *ops);
			for (k = 0; k < n; k++) {
				if ((int64_t)k == use_index)
					BID(s, bu, j) = opnd(s, c, r, k);
				else
					ops[w++] = opnd(s, c, r, k);
			}
		} else if (rs->type == TY_TUPLE) {
			n = rs->ntuple;
			ops = xreallocarray(NULL, n + 1, sizeof *ops);
			for (k = 0; k < n; k++) {
				uint32_t g = add_gte(s, c, r, k);

				if ((int64_t)k == use_index)
					BID(s, bu, j) = g;
				else
					ops[w++] = g;
			}
		} else {
			ops = xreallocarray(NULL, 1, sizeof *ops);
		}
		m->comps[c].root = add_tuple(s, c, w, ops);
		free(ops);
		if (opc(s, c, r) == HOP_TUPLE)
			kill_unused(s, c, &r, 1);
		pass_ccm_invalidate(s, c);
	}
}

/* MoveUserInstructionsIn */
static int
move_user_in(Ccm *s, const BVec *tm)
{
	HloModule *m = s->m;
	uint32_t tuse = HLO_NONE, from, i, j, k, nh = 0, *ops, *map, nmap;
	uint32_t *dead;
	int64_t use_index = -1, op_index;
	int tup = hlo_sh(m, ins(s, s->P, s->X)->shape)->type == TY_TUPLE;
	Hoist *h;
	Bnd bu, bo;

	if (!tm->n || (!tup && pass_ccm_nusers(s, s->P, s->X) > 1))
		return 0;
	if (opc(s, s->P, b0(s, tm->v[0])) == HOP_GTE)
		tuse = b0(s, tm->v[0]);
	if (tuse != HLO_NONE && pass_ccm_nusers(s, s->P, tuse) == 1)
		use_index = hlo_attr_int(m, ins(s, s->P, tuse), A_INDEX, 0);
	from = tuse != HLO_NONE;
	if (!move_in_ok(s, tm, from, tuse, use_index))
		return 0;
	op_index = tup ? (int64_t)hlo_sh(m, ins(s, s->P, s->X)->shape)->ntuple
		- (use_index >= 0) : 0;
	bo = pass_ccm_bnew(s, B_IN, s->nb);	/* b_old_root */
	bu = pass_ccm_bnew(s, B_IN, s->nb);	/* b_opd_use */
	move_in_roots(s, use_index, bo, bu);
	if (use_index != -1)
		for (k = 0; k < pass_ccm_nusers(s, s->P, s->X); k++) {
			uint32_t g = pass_ccm_user_at(s, s->P, s->X, k);
			int64_t idx = hlo_attr_int(m, ins(s, s->P, g),
				A_INDEX, -1);

			if (opc(s, s->P, g) == HOP_GTE && idx > use_index) {
				HloAttr a = hlo_mk_int(A_INDEX, idx - 1);

				hlo_attr_set(m, s->P, g, &a);
			}
		}
	h = xreallocarray(NULL, tm->n + 3, sizeof *h);
	h[nh].key = s->X;
	h[nh++].off = bo.off;
	if (use_index >= 0) {
		h[nh].key = tuse;
		h[nh++].off = bu.off;
	}
	nmap = s->m->comps[s->P].nins;
	map = idmap(s, s->P);
	ops = xreallocarray(NULL, 1, sizeof *ops);
	for (i = from; i < tm->n; i++) {
		uint32_t x = b0(s, tm->v[i]), no = ins(s, s->P, x)->nops;
		Bnd nw = pass_ccm_bnew(s, B_IN, s->nb);
		int out = !(i + 1 < tm->n && pass_ccm_nusers(s, s->P, x) == 1 &&
			pass_ccm_user_at(s, s->P, x, 0) == b0(s, tm->v[i + 1]));

		ops = xreallocarray(ops, no + 1, sizeof *ops);
		for (j = 0; j < s->nb; j++) {
			uint32_t c = s->br[j];

			for (k = 0; k < no; k++) {
				uint32_t o = opnd(s, s->P, x, k);
				int hi = hoist_find(h, nh, o);

				if (hi >= 0)
					ops[k] = s->pool[h[hi].off + j];
				else if (opc(s, s->P, o) == HOP_CONSTANT)
					ops[k] = pass_copy_instr(m, c, s->P,
						o, 0, NULL);
				else
					ops[k] = opnd(s, c, m->comps[c].root,
						(uint32_t)hlo_attr_int(m,
						ins(s, s->P, o), A_INDEX, 0));
			}
			BID(s, nw, j) = pass_copy_instr(m, c, s->P, x, no,
				ops);
			s->touched[c] = 1;
		}
		h[nh].key = x;
		h[nh++].off = nw.off;
		if (!out)
			continue;
		for (j = 0; j < s->nb; j++)
			root_append(s, s->br[j], BID(s, nw, j));
		map[x] = add_gte_sh(s, s->P, s->X, op_index++,
			ins(s, s->P, x)->shape);
	}
	free(ops);
	free(h);
	reshape_cond(s);
	if (use_index != -1)
		for (k = 0; k < pass_ccm_nusers(s, s->P, s->X); k++) {
			uint32_t g = pass_ccm_user_at(s, s->P, s->X, k);
			const HloShape *cs = hlo_sh(m, ins(s, s->P, s->X)->shape);
			int64_t idx = hlo_attr_int(m, ins(s, s->P, g),
				A_INDEX, -1);

			if (opc(s, s->P, g) == HOP_GTE && idx >= 0 &&
			    idx < cs->ntuple)
				m->comps[s->P].ins[g].shape =
					hlo_tuple_elems(m, cs)[idx];
		}
	forward(s, s->P, map, nmap);
	dead = xreallocarray(NULL, tm->n + 1, sizeof *dead);
	for (i = 0; i < tm->n; i++)
		dead[i] = b0(s, tm->v[tm->n - 1 - i]);
	kill_unused(s, s->P, dead, tm->n);
	free(dead);
	for (j = 0; j < s->nb; j++)
		pass_ccm_invalidate(s, s->br[j]);
	s->rewrites += tm->n;
	return 1;
}

/* FindSpecialConverts' convert_invalid: fed by or feeding a convert */
static int
convert_invalid(Ccm *s, uint32_t c, uint32_t x)
{
	uint32_t k;

	for (k = 0; k < pass_ccm_nusers(s, c, x); k++)
		if (opc(s, c, pass_ccm_user_at(s, c, x, k)) == HOP_CONVERT)
			return 1;
	for (k = 0; k < ins(s, c, x)->nops; k++)
		if (opc(s, c, opnd(s, c, x, k)) == HOP_CONVERT)
			return 1;
	return 0;
}

/* FindSpecialConverts: special[k] for root index k */
static int
find_converts(Ccm *s, uint8_t *special)
{
	uint32_t c = s->br[0], r = s->m->comps[c].root, n = ins(s, c, r)->nops;
	uint32_t k, q, j, x, y, cnt;
	int any = 0;

	for (k = 0; k < n; k++) {
		special[k] = 0;
		x = opnd(s, c, r, k);
		if (opc(s, c, x) != HOP_CONVERT)
			continue;
		for (q = cnt = 0; q < n; q++)
			cnt += opnd(s, c, r, q) == x;
		if (convert_invalid(s, c, x) || cnt > 1)
			continue;
		for (j = 1; j < s->nb; j++) {
			uint32_t bc = s->br[j], br = s->m->comps[bc].root;

			if (k >= ins(s, bc, br)->nops)
				break;
			y = opnd(s, bc, br, k);
			if (opc(s, bc, y) != HOP_CONVERT ||
			    convert_invalid(s, bc, y))
				break;
			if (!pass_shape_equal(s->m, ins(s, bc, y)->shape,
			    ins(s, c, x)->shape) ||
			    !pass_shape_equal(s->m,
			    ins(s, bc, opnd(s, bc, y, 0))->shape,
			    ins(s, c, opnd(s, c, x, 0))->shape))
				break;
		}
		if (j == s->nb)
			special[k] = any = 1;
	}
	return any;
}

/* ConvertSpecialMove: converts at the same root index of every branch
 * hoisted after the conditional */
static int
convert_special(Ccm *s)
{
	HloModule *m = s->m;
	uint32_t j, k, n, r, *ops, *gtes, *map, nmap, nu, t, c, x, *olduse;
	uint8_t *special;
	uint32_t *hoist;

	for (j = 0; j < s->nb; j++)
		if (opc(s, s->br[j], m->comps[s->br[j]].root) != HOP_TUPLE)
			return 0;
	r = m->comps[s->br[0]].root;
	n = ins(s, s->br[0], r)->nops;
	special = xcalloc(n + 1, 1);
	if (!find_converts(s, special)) {
		free(special);
		return 0;
	}
	/* RestructureConditionalInstruction */
	nu = pass_ccm_nusers(s, s->P, s->X);
	olduse = xreallocarray(NULL, nu + 1, sizeof *olduse);
	for (k = 0; k < nu; k++)
		olduse[k] = pass_ccm_user_at(s, s->P, s->X, k);
	t = hlo_sh(m, ins(s, s->P, s->X)->shape)->ntuple;
	gtes = xreallocarray(NULL, t + 1, sizeof *gtes);
	for (k = 0; k < t; k++)
		gtes[k] = add_gte(s, s->P, s->X, k);
	t = add_tuple(s, s->P, hlo_sh(m, ins(s, s->P, s->X)->shape)->ntuple,
		gtes);
	if (m->comps[s->P].root == s->X)
		m->comps[s->P].root = t;
	for (k = 0; k < nu; k++) {
		HloInstr *u = &m->comps[s->P].ins[olduse[k]];
		uint32_t q;

		for (q = 0; q < u->nops; q++)
			if (m->ids[u->ops + q] == s->X)
				m->ids[u->ops + q] = t;
	}
	free(olduse);
	/* the branches return the converts' operands */
	hoist = xreallocarray(NULL, n + 1, sizeof *hoist);
	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	for (j = 0; j < s->nb; j++) {
		c = s->br[j];
		r = m->comps[c].root;
		for (k = 0; k < n; k++) {
			x = opnd(s, c, r, k);
			if (j == 0)
				hoist[k] = x;
			ops[k] = special[k] ? opnd(s, c, x, 0) : x;
		}
		m->comps[c].root = add_tuple(s, c, n, ops);
		kill_unused(s, c, &r, 1);
		pass_ccm_invalidate(s, c);
	}
	free(ops);
	reshape_cond(s);
	/* the converts after the conditional */
	nmap = s->m->comps[s->P].nins;
	map = idmap(s, s->P);
	for (k = 0; k < n; k++) {
		uint32_t g, cv;

		if (!special[k])
			continue;
		m->comps[s->P].ins[gtes[k]].shape = hlo_tuple_elems(m,
			hlo_sh(m, ins(s, s->P, s->X)->shape))[k];
		g = add_gte(s, s->P, s->X, k);
		cv = pass_copy_instr(m, s->P, s->br[0], hoist[k], 1, &g);
		map[gtes[k]] = cv;
		s->rewrites++;
	}
	forward(s, s->P, map, nmap);
	kill_unused(s, s->P, gtes, n);
	free(gtes);
	free(hoist);
	free(special);
	return 1;
}

/* the conditionals to analyse (in computation and instruction post
 * order) and how many times each branch computation is called as one */
typedef struct {
	uint32_t c, i;
} Site;

static Site *
collect(Ccm *s, uint32_t *nsites, uint32_t **shared)
{
	HloModule *m = s->m;
	uint32_t *corder = xreallocarray(NULL, m->ncomps + 1, sizeof *corder);
	uint32_t *order, *seen, n = 0, cap = 8, k, q, j;
	int nc = pass_comp_post_order(m, corder), ci;
	Site *v = xreallocarray(NULL, cap, sizeof *v);

	*shared = xcalloc(m->ncomps + 1, sizeof **shared);
	seen = xcalloc(m->ncomps + 1, sizeof *seen);
	/* a branch computation anything else calls counts as shared too
	 * (xla counts conditionals only, and would change the other
	 * caller's callee) */
	for (ci = 0; ci < (int)m->ncomps; ci++)
		for (k = 0; k < m->comps[ci].nins; k++) {
			const HloInstr *in = ins(s, ci, k);

			if ((in->flags & HI_DEAD) || in->op == HOP_CONDITIONAL)
				continue;
			for (j = 0; j < in->ncalled; j++)
				seen[m->ids[in->called + j]] = 1;
		}
	for (ci = 0; ci < nc; ci++) {
		uint32_t c = corder[ci], cnt;

		if (!hlo_comp_has_op(m, c, HOP_CONDITIONAL))
			continue;

		order = pass_alloc(s->ctx, (m->comps[c].nins + 1) *
			sizeof *order);
		cnt = pass_post_order(m, c, order, s->ctx);
		for (k = 0; k < cnt; k++) {
			const HloInstr *in = ins(s, c, order[k]);
			int ok = 1;

			if (in->op != HOP_CONDITIONAL)
				continue;
			for (j = 0; j < in->ncalled; j++) {
				uint32_t b = m->ids[in->called + j];

				if (seen[b])
					(*shared)[b]++;
				seen[b] = 1;
			}
			if (hlo_sh(m, in->shape)->type == TY_TUPLE)
				for (q = 0; q < pass_ccm_nusers(s, c, order[k]); q++)
					if (opc(s, c, pass_ccm_user_at(s, c, order[k],
					    q)) != HOP_GTE)
						ok = 0;
			if (!ok)
				continue;
			if (n == cap) {
				cap *= 2;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[n].c = c;
			v[n++].i = order[k];
		}
	}
	free(seen);
	free(corder);
	*nsites = n;
	return v;
}

/* the branches of s->X that others share are cloned (xla's clone_i) */
static void
own_branches(Ccm *s, uint32_t *shared)
{
	HloModule *m = s->m;
	uint32_t j, cl;

	for (j = 0; j < s->nb; j++) {
		uint32_t b = s->br[j];

		if (b >= m->ncomps || !shared[b])
			continue;
		cl = hlo_comp_clone(m, b, ".clone");
		pass_ccm_grow_comps(s);
		s->fx[cl] = s->fx[b];
		s->ctrl[cl] = s->ctrl[b];
		shared[b]--;
		s->br[j] = cl;
		hlo_set_called(m, s->P, s->X, s->nb, s->br);
		s->touched[cl] = 1;
	}
}

/* the analysis and motion of one conditional; 1 changed, -1 error */
static int
one_conditional(Ccm *s, uint32_t *shared, uint32_t nshared)
{
	HloModule *m = s->m;
	Visitor v;
	Bnd b;
	BVec outs, ins_, nout, nin, tm, nx;
	uint32_t *gstart_in, ngin = 0, *gstart_out, ngout = 0, i, j, k;
	int64_t gain, bout = 0, bin = 0;
	int d, final = D_NONE, is_shared = 0, changed = 0, r;

	for (j = 0; j < s->nb; j++)
		if (s->br[j] < nshared && shared[s->br[j]])
			is_shared = 1;
	memset(&v, 0, sizeof v);
	memset(&outs, 0, sizeof outs);
	memset(&ins_, 0, sizeof ins_);
	memset(&nout, 0, sizeof nout);
	memset(&nin, 0, sizeof nin);
	memset(&tm, 0, sizeof tm);
	memset(&nx, 0, sizeof nx);
	/* groups: boundaries of group g in [gstart[g], gstart[g + 1]) of
	 * outs/ins_, their new boundaries likewise in nout/nin */
	gstart_in = xreallocarray(NULL, 2, sizeof *gstart_in);
	gstart_out = xreallocarray(NULL, 2, sizeof *gstart_out);
	pass_ccm_vclear(s);
	pass_ccm_bpush(&v.work, pass_ccm_bone(s, B_SEED, s->X));
	while (pass_ccm_vis_next(s, &v, &b)) {
		tm.n = nx.n = 0;
		d = pass_ccm_consider(s, b, &tm, &nx, &gain);
		if (d == D_NONE) {
			for (i = 0; i < nx.n; i++)
				pass_ccm_bpush(&v.work, nx.v[i]);
			continue;
		}
		if (d == D_OUT) {
			gstart_out = xreallocarray(gstart_out, 2 * ngout + 4,
				sizeof *gstart_out);
			gstart_out[2 * ngout] = outs.n;
			gstart_out[2 * ngout + 1] = nout.n;
			ngout++;
			for (i = 0; i < tm.n; i++)
				pass_ccm_bpush(&outs, tm.v[i]);
			for (i = 0; i < nx.n; i++)
				pass_ccm_bpush(&nout, nx.v[i]);
			bout += gain;
			if (bout >= bin)
				final = D_OUT;
		} else {
			gstart_in = xreallocarray(gstart_in, 2 * ngin + 4,
				sizeof *gstart_in);
			gstart_in[2 * ngin] = ins_.n;
			gstart_in[2 * ngin + 1] = nin.n;
			ngin++;
			for (i = 0; i < tm.n; i++)
				pass_ccm_bpush(&ins_, tm.v[i]);
			for (i = 0; i < nx.n; i++)
				pass_ccm_bpush(&nin, nx.v[i]);
			bin += gain;
			if (bout < bin)
				final = D_IN;
		}
	}
	gstart_out[2 * ngout] = outs.n;
	gstart_out[2 * ngout + 1] = nout.n;
	gstart_in[2 * ngin] = ins_.n;
	gstart_in[2 * ngin + 1] = nin.n;
	if (final != D_NONE && is_shared)
		own_branches(s, shared);
	r = 0;
	if (final == D_OUT) {
		for (k = 0; k < ngout && r >= 0; k++) {
			BVec a = { outs.v + gstart_out[2 * k],
				gstart_out[2 * k + 2] - gstart_out[2 * k], 0, 0 };
			BVec c = { nout.v + gstart_out[2 * k + 1],
				gstart_out[2 * k + 3] - gstart_out[2 * k + 1],
				0, 0 };

			r = move_out(s, &a, &c);
			changed |= r > 0;
		}
	} else if (final == D_IN) {
		for (k = 0; k < ngin && r >= 0; k++) {
			BVec a = { ins_.v + gstart_in[2 * k],
				gstart_in[2 * k + 2] - gstart_in[2 * k], 0, 0 };

			/* operands into the branches: not done (contract) */
			if (!a.n || a.v[0].pos != B_USER)
				continue;
			r = move_user_in(s, &a);
			changed |= r > 0;
		}
	} else if (!is_shared) {
		r = convert_special(s);
		changed |= r > 0;
	}
	(void)m;
	pass_ccm_vis_free(&v);
	pass_ccm_bvfree(&outs);
	pass_ccm_bvfree(&ins_);
	pass_ccm_bvfree(&nout);
	pass_ccm_bvfree(&nin);
	pass_ccm_bvfree(&tm);
	pass_ccm_bvfree(&nx);
	free(gstart_in);
	free(gstart_out);
	return r < 0 ? -1 : changed;
}

/* HloCSE(layout sensitive) and HloDCE, as xla's before-pipeline */
static int
cleanup_before(HloModule *m, PassCtx *ctx)
{
	int save = ctx->opt.cse_layout_sensitive, a, b;

	ctx->opt.cse_layout_sensitive = 1;
	a = pass_cse(m, ctx);
	ctx->opt.cse_layout_sensitive = save;
	if (a < 0)
		return -1;
	b = pass_dce_module(m, ctx);
	if (b < 0)
		return -1;
	pass_reset(ctx);
	return a || b;
}

static int
cleanup_after(HloModule *m, PassCtx *ctx)
{
	int a, b, c;

	if ((a = pass_dce_module(m, ctx)) < 0 ||
	    (b = pass_tuple_simplifier(m, ctx)) < 0 ||
	    (c = pass_dce_module(m, ctx)) < 0)
		return -1;
	return a || b || c;
}

static void
ccm_free(Ccm *s)
{
	uint32_t c;

	for (c = 0; c < s->capc; c++) {
		free(s->us[c].start);
		free(s->us[c].list);
		free(s->us[c].nonleaf);
	}
	free(s->us);
	free(s->fx);
	free(s->touched);
	free(s->ctrl);
	free(s->pool);
	free(s->vk);
	free(s->vv);
	free(s->vu);
	free(s->br);
}

int
pass_conditional_code_motion(HloModule *m, PassCtx *ctx)
{
	Ccm s;
	Site *sites;
	uint32_t nsites, *shared, nshared, i, c, k;
	int before, changed = 0, r = 0;
	uint8_t *fx;

	before = cleanup_before(m, ctx);
	if (before < 0)
		return -1;
	memset(&s, 0, sizeof s);
	s.m = m;
	s.ctx = ctx;
	pass_ccm_grow_comps(&s);
	fx = pass_comp_effects(m, ctx);
	memcpy(s.fx, fx, m->ncomps);
	for (c = 0; c < m->ncomps; c++)
		for (k = 0; k < m->comps[c].nins; k++)
			if (m->comps[c].ins[k].nctrl)
				s.ctrl[c] = 1;
	nshared = m->ncomps;
	sites = collect(&s, &nsites, &shared);
	if (nsites)
		pass_fresh_names(m);
	for (i = 0; i < nsites && r >= 0; i++) {
		const HloInstr *x = ins(&s, sites[i].c, sites[i].i);
		uint32_t j;
		int skip = s.ctrl[sites[i].c];

		s.P = sites[i].c;
		s.X = sites[i].i;
		s.nb = x->ncalled;
		if (!s.nb || (x->flags & HI_DEAD))
			continue;
		s.br = xreallocarray(s.br, s.nb, sizeof *s.br);
		memcpy(s.br, m->ids + x->called, s.nb * sizeof *s.br);
		for (j = 0; j < s.nb; j++)
			if (s.ctrl[s.br[j]] ||
			    hlo_param_count(m, s.br[j]) != 1)
				skip = 1;
		if (skip)
			continue;
		r = one_conditional(&s, shared, nshared);
		if (r > 0)
			changed = 1;
		s.npool = 0;
	}
	free(sites);
	free(shared);
	if (r < 0) {
		ccm_free(&s);
		return -1;
	}
	ctx->stats.rewrites += s.rewrites;
	if (changed) {
		for (c = 0; c < m->ncomps; c++)
			if (s.touched[c] && hlo_comp_compact(m, c) < 0) {
				ccm_free(&s);
				return pass_err_cycle(ctx, m, c);
			}
		ccm_free(&s);
		pass_reset(ctx);
		if (cleanup_after(m, ctx) < 0)
			return -1;
		return 1;
	}
	ccm_free(&s);
	return before;
}
