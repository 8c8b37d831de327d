/* proto.c: binary xla.HloModuleProto <-> the IR: modules and
 * computations (the other hlo/proto_*.c files do the parts).
 *
 * Reading unpacks the bytes with protobuf-c (after a schema-aware walk of
 * the wire format that finds the byte offset of the first bad field and
 * bounds the nesting depth), converts, and frees the unpacked message at
 * once: protobuf types never leave this file. xla.HloProto and
 * xla.HloSnapshot wrappers are recognised from the content.
 *
 * Writing builds the messages in an arena and packs them. Attributes the
 * IR keeps as text (sharding, metadata, replica groups, ...) are parsed
 * into their proto fields and printed back the way XLA prints them.
 *
 * Round trips are exact: after building an instruction the writer runs
 * the reader's conversion on it and compares; whatever does not come back
 * identical (non-canonical text, attributes XLA's schema has no field
 * for, module header options of HloModuleConfig, print order) is stored
 * in a private extension field (number EXT below) that XLA keeps as an
 * unknown field and ignores. Protos from XLA carry no such field and are
 * read as XLA would print them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* the reader's flags for an instruction: what the IR keeps of how XLA
 * prints its called computations */
static unsigned
rdflags(int op, uint32_t ncalled, int t0)
{
	return op == HOP_CONDITIONAL && ncalled == 2 && t0 != TY_PRED ?
		HI_BRANCHES : 0;
}

static int
wrerr(Wr *w, uint32_t c, uint32_t i, const char *what)
{
	const HloModule *m = w->m;

	return hlo_err_in(w->e, NULL, "cannot write proto", hlo_cstr(m,
		m->comps[c].name), hlo_cstr(m, m->comps[c].ins[i].name), "%s",
		what);
}

static int64_t *
wrrefs(Wr *w, uint32_t c, uint32_t i, uint32_t off, uint32_t n,
	const uint64_t *ids, int *bad)
{
	const HloComp *cp = &w->m->comps[c];
	int64_t *v = hlo_aallocn(&w->a, n + 1, sizeof *v);
	uint32_t k, o;

	for (k = 0; k < n; k++) {
		o = w->m->ids[off + k];
		if (o >= cp->nins || !ids[o]) {
			*bad = 1;
			return v;
		}
		v[k] = ids[o];
	}
	return v;
}

static Xla__HloInstructionProto *
wrinstr(Wr *w, uint32_t c, uint32_t i, const uint64_t *ids, Ab *rb)
{
	const HloModule *m = w->m;
	const HloComp *cp = &m->comps[c];
	const HloInstr *in = &cp->ins[i];
	const HloAttr *av = m->attrv + in->attrs;
	Xla__HloInstructionProto *ip = hlo_aalloc(&w->a, sizeof *ip);
	Sub sub;
	HloBuf x = {0};
	const char *dt;
	uint32_t k, s = 0;
	unsigned want;
	int t0 = -1, bad = 0, op = in->op;

	memset(&sub, 0, sizeof sub);
	xla__hlo_instruction_proto__init(ip);
	ip->name = (char *)hlo_cstr(m, in->name);
	ip->opcode = (char *)hlo_opinfo[op].name;
	ip->shape = hlo_wrshape(w, m, in->shape, 0);
	ip->id = ids[i];
	ip->n_operand_ids = in->nops;
	ip->operand_ids = wrrefs(w, c, i, in->ops, in->nops, ids, &bad);
	ip->n_control_predecessor_ids = in->nctrl;
	ip->control_predecessor_ids = wrrefs(w, c, i, in->ctrl, in->nctrl,
		ids, &bad);
	if (bad) {
		wrerr(w, c, i, "refers to a missing or deleted instruction");
		return NULL;
	}
	ip->n_called_computation_ids = in->ncalled;
	ip->called_computation_ids = hlo_aallocn(&w->a, in->ncalled + 1,
		sizeof(int64_t));
	for (k = 0; k < in->ncalled; k++) {
		uint32_t cc = m->ids[in->called + k];

		if (cc >= m->ncomps) {
			wrerr(w, c, i, "calls a missing computation");
			return NULL;
		}
		ip->called_computation_ids[k] = w->compid[cc];
	}
	if (in->nops)
		t0 = hlo_sh(m, cp->ins[m->ids[in->ops]].shape)->type;
	if (op == HOP_PARAMETER)
		ip->parameter_number = in->num;
	for (k = 0; k < in->nattrs; k++) {
		if (av[k].key == A_LITERAL) {
			size_t pos = 0;

			if (op == HOP_CONSTANT && av[k].kind == K_LITERAL &&
			    av[k].v != HLO_ELIDED) {
				ip->literal = hlo_wrlit(w, in->shape, (const uint8_t *)
					m->bytes + av[k].v, av[k].n, &pos, 0);
				if (pos != av[k].n)
					ip->literal = NULL;
			}
			continue;
		}
		hlo_wrattr(w, &sub, ip, op, &av[k]);
	}
	if (op == HOP_COMPARE && !*ip->comparison_type &&
	    (dt = hlo_defcmptype(t0)))
		ip->comparison_type = (char *)dt;
	if (op == HOP_CONV || op == HOP_CUSTOMCALL) {
		if (!ip->feature_group_count)
			ip->feature_group_count = 1;
		if (!ip->batch_group_count)
			ip->batch_group_count = 1;
	}
	if (op == HOP_CUSTOMCALL && !ip->custom_call_api_version)
		ip->custom_call_api_version =
			XLA__CUSTOM_CALL_API_VERSION__API_VERSION_ORIGINAL;
	if (op == HOP_DOT || op == HOP_SCALEDDOT || op == HOP_RAGGEDDOT)
		hlo_subdot(w, &sub, ip, op);
	if (op == HOP_GATHER)
		hlo_pbsubname(&w->a, &ip->base, "gather_dimension_numbers");
	if (op == HOP_SCATTER)
		hlo_pbsubname(&w->a, &ip->base, "scatter_dimension_numbers");
	if (hlo_hasprecision(op))
		hlo_subprec(w, &sub, ip);

	/* what the reader makes of it */
	if (op == HOP_CONSTANT) {
		char why[256];

		if (hlo_rdshape(w->s, ip->shape, &s, 0, why, sizeof why) < 0)
			ip->literal = NULL;
	}
	if (hlo_rdattrs(rb, ip, op, s, t0) < 0)
		rb->n = 0;
	want = in->flags & (HI_CCFLAG | HI_BRANCHES);
	if (want != rdflags(op, in->ncalled, t0)) {
		hlo_puttag(&x, 1, 0);
		hlo_putvarint(&x, want);
	}
	hlo_attrdiff(&x, m, av, in->nattrs, w->s, rb->v, rb->n);
	if (x.len)
		hlo_addext(&w->a, &ip->base, &x);
	hlo_buf_free(&x);
	return ip;
}

static Xla__ProgramShapeProto *
progshape(Wr *w, uint32_t c)
{
	const HloModule *m = w->m;
	const HloComp *cp = &m->comps[c];
	Xla__ProgramShapeProto *ps = hlo_aalloc(&w->a, sizeof *ps);
	uint32_t i, np = 0, *pi;
	int64_t num;

	xla__program_shape_proto__init(ps);
	for (i = 0; i < cp->nins; i++)
		if (cp->ins[i].op == HOP_PARAMETER &&
		    !(cp->ins[i].flags & HI_DEAD) && cp->ins[i].num >= np &&
		    cp->ins[i].num < (int64_t)cp->nins)
			np = cp->ins[i].num + 1;
	pi = xreallocarray(NULL, np + 1, sizeof *pi);
	for (i = 0; i < np; i++)
		pi[i] = HLO_NONE;
	for (i = 0; i < cp->nins; i++) {
		num = cp->ins[i].num;
		if (cp->ins[i].op == HOP_PARAMETER &&
		    !(cp->ins[i].flags & HI_DEAD) && num >= 0 && num < np)
			pi[num] = i;
	}
	ps->n_parameters = np;
	ps->parameters = hlo_aallocn(&w->a, np + 1, sizeof *ps->parameters);
	ps->n_parameter_names = np;
	ps->parameter_names = hlo_aallocn(&w->a, np + 1,
		sizeof *ps->parameter_names);
	for (i = 0; i < np; i++) {
		if (pi[i] == HLO_NONE) {
			ps->parameters[i] = hlo_aalloc(&w->a,
				sizeof *ps->parameters[i]);
			xla__shape_proto__init(ps->parameters[i]);
			ps->parameter_names[i] = "";
			continue;
		}
		ps->parameters[i] = hlo_wrshape(w, m, cp->ins[pi[i]].shape, 0);
		ps->parameter_names[i] = (char *)hlo_cstr(m,
			cp->ins[pi[i]].name);
	}
	if (cp->root < cp->nins)
		ps->result = hlo_wrshape(w, m, cp->ins[cp->root].shape, 0);
	free(pi);
	return ps;
}

static Xla__HloComputationProto *
wrcomp(Wr *w, uint32_t c, Ab *rb)
{
	const HloModule *m = w->m;
	const HloComp *cp = &m->comps[c];
	Xla__HloComputationProto *pc = hlo_aalloc(&w->a, sizeof *pc);
	uint32_t *order = xreallocarray(NULL, cp->nins + 1, sizeof *order);
	uint32_t *pos = NULL, i, k;
	uint64_t *ids = xcalloc(cp->nins + 1, sizeof *ids);
	HloBuf x = {0}, p = {0};
	int n, same = 1;

	xla__hlo_computation_proto__init(pc);
	pc->name = (char *)hlo_cstr(m, cp->name);
	pc->id = w->compid[c];
	pc->is_fusion_computation = (cp->flags & HC_FUSION) != 0;
	if (cp->thread)
		pc->execution_thread = (char *)hlo_cstr(m, cp->thread);
	if ((n = hlo_topo(m, c, order)) < 0) {
		hlo_err_in(w->e, NULL, "cannot write proto", hlo_cstr(m,
			cp->name), NULL, "it has a cycle");
		pc = NULL;
		goto out;
	}
	if (cp->root >= cp->nins || (cp->ins[cp->root].flags & HI_DEAD)) {
		hlo_err_in(w->e, NULL, "cannot write proto", hlo_cstr(m,
			cp->name), NULL, "it has no root");
		pc = NULL;
		goto out;
	}
	for (k = 0; k < (uint32_t)n; k++)
		ids[order[k]] = w->nid++;
	pc->n_instructions = n;
	pc->instructions = hlo_aallocn(&w->a, n + 1, sizeof *pc->instructions);
	for (k = 0; k < (uint32_t)n; k++)
		if (!(pc->instructions[k] = wrinstr(w, c, order[k], ids, rb))) {
			pc = NULL;
			goto out;
		}
	pc->root_id = ids[cp->root];
	pc->program_shape = progshape(w, c);
	/* the print order, when it is not the topological one */
	pos = xreallocarray(NULL, cp->nins + 1, sizeof *pos);
	for (k = 0; k < (uint32_t)n; k++)
		pos[order[k]] = k;
	for (i = 0, k = 0; i < cp->nins; i++) {
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		same &= pos[i] == k;
		hlo_putvarint(&p, pos[i]);
		k++;
	}
	if (!same) {
		hlo_putlenfield(&x, 1, p.buf, p.len);
		hlo_addext(&w->a, &pc->base, &x);
	}
	if (w->sched && !(cp->flags & HC_FUSION)) {
		Xla__HloScheduleProto__SequencesEntry *e;
		Xla__HloScheduleProto__InstructionSequence *q;

		e = hlo_aalloc(&w->a, sizeof *e);
		xla__hlo_schedule_proto__sequences_entry__init(e);
		q = hlo_aalloc(&w->a, sizeof *q);
		xla__hlo_schedule_proto__instruction_sequence__init(q);
		e->key = pc->id;
		e->value = q;
		q->instruction_ids = hlo_aallocn(&w->a, n + 1,
			sizeof *q->instruction_ids);
		for (i = 0; i < cp->nins; i++)
			if (!(cp->ins[i].flags & HI_DEAD))
				q->instruction_ids[q->n_instruction_ids++] =
					ids[i];
		w->seq[w->nseq++] = e;
	}
out:
	free(order);
	free(pos);
	free(ids);
	hlo_buf_free(&x);
	hlo_buf_free(&p);
	return pc;
}

/* module header attributes as the reader derives them, in the order of
 * XLA's HloModule::ToString */

typedef struct {
	HloAttr *v;
	uint32_t n, cap;
} Hdr;

static void
hdrpush(Hdr *h, HloModule *mm, const char *key, const char *val, size_t n)
{
	HloAttr a = hlo_mk_bytes(mm, A_OTHER, K_RAW, n ? val : "", n);

	a.name = hlo_strz(mm, key);
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 8;
		h->v = xreallocarray(h->v, h->cap, sizeof *h->v);
	}
	h->v[h->n++] = a;
}

static int
prprog(HloModule *mm, const Xla__ProgramShapeProto *ps, HloBuf *b,
	char *why, size_t nwhy)
{
	uint32_t s;
	size_t i;

	hlo_buf_puts(b, "{(");
	for (i = 0; i < ps->n_parameters; i++) {
		if (hlo_rdshape(mm, ps->parameters[i], &s, 0, why, nwhy) < 0)
			return -1;
		if (i)
			hlo_buf_put(b, ", ", 2);
		if (i && i % 5 == 0)
			hlo_buf_printf(b, "/*index=%zu*/", i);
		hlo_print_shape(mm, s, b);
	}
	hlo_buf_puts(b, ")->");
	if (hlo_rdshape(mm, ps->result, &s, 0, why, nwhy) < 0)
		return -1;
	hlo_print_shape(mm, s, b);
	hlo_buf_put(b, "}", 1);
	return 0;
}

static int
rdheader(HloModule *mm, const Xla__HloModuleProto *mp, Hdr *h, char *why,
	size_t nwhy)
{
	HloBuf t = {0};

	h->n = 0;
	if (mp->schedule)
		hdrpush(h, mm, "is_scheduled", "true", 4);
	if (mp->input_output_alias && mp->input_output_alias->n_entries) {
		hlo_prioalias(&t, mp->input_output_alias);
		hdrpush(h, mm, "input_output_alias", t.buf, t.len);
	}
	if (mp->buffer_donor && mp->buffer_donor->n_entries) {
		t.len = 0;
		hlo_prdonor(&t, mp->buffer_donor);
		hdrpush(h, mm, "buffer_donor", t.buf, t.len);
	}
	if (mp->host_program_shape && mp->host_program_shape->result) {
		t.len = 0;
		if (prprog(mm, mp->host_program_shape, &t, why, nwhy) < 0) {
			hlo_buf_free(&t);
			return -1;
		}
		hdrpush(h, mm, "entry_computation_layout", t.buf, t.len);
	}
	if (mp->frontend_attributes && mp->frontend_attributes->n_map) {
		t.len = 0;
		hlo_prfattrs(&t, mp->frontend_attributes);
		hdrpush(h, mm, "frontend_attributes", t.buf, t.len);
	}
	hlo_buf_free(&t);
	return 0;
}

/* {(f32[2]{0}, s32[])->f32[2]{0}} */
static Xla__ProgramShapeProto *
psprog(Wr *w, Lx *l)
{
	Xla__ProgramShapeProto *ps = hlo_aalloc(&w->a, sizeof *ps);
	Xla__ShapeProto **v = NULL;
	size_t n = 0, cap = 0;
	uint32_t s;

	xla__program_shape_proto__init(ps);
	if (!hlo_lxc(l, '{') || !hlo_lxc(l, '('))
		goto bad;
	if (!hlo_lxc(l, ')')) {
		do {
			if (!hlo_psshape(l, w->s, &s, 0))
				goto bad;
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[n++] = hlo_wrshape(w, w->s, s, 0);
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, ')'))
			goto bad;
	}
	if (!hlo_lxc(l, '-') || !hlo_lxc(l, '>') || !hlo_psshape(l, w->s, &s, 0) ||
	    !hlo_lxc(l, '}') || !hlo_lxend(l))
		goto bad;
	ps->result = hlo_wrshape(w, w->s, s, 0);
	ps->n_parameters = n;
	ps->parameters = hlo_aallocn(&w->a, n + 1, sizeof *v);
	if (n)
		memcpy(ps->parameters, v, n * sizeof *v);
	ps->n_parameter_names = n;
	ps->parameter_names = hlo_aallocn(&w->a, n + 1, sizeof(char *));
	for (s = 0; s < n; s++) {
		char t[32];

		snprintf(t, sizeof t, "p%u", s);
		ps->parameter_names[s] = hlo_astrndup(&w->a, t, strlen(t));
	}
	free(v);
	return ps;
bad:
	free(v);
	return NULL;
}

static int
hdrsame(const HloModule *m, const HloAttr *a, uint32_t na,
	const HloModule *s, const Hdr *h)
{
	uint32_t i;

	if (na != h->n)
		return 0;
	for (i = 0; i < na; i++)
		if (!hlo_attrsame(m, &a[i], s, &h->v[i]))
			return 0;
	return 1;
}

/* the header attributes into their proto fields */
static void
wrheader(Wr *w, Xla__HloModuleProto *mp)
{
	const HloModule *m = w->m;
	const HloAttr *a = m->attrv + m->hattrs;
	uint32_t i;

	for (i = 0; i < m->nhattrs; i++) {
		Lx l = hlo_alx(w, &a[i]);

		if (hlo_aname(m, &a[i], "is_scheduled")) {
			w->sched = hlo_lxkw(&l, "true") && hlo_lxend(&l);
		} else if (hlo_aname(m, &a[i], "entry_computation_layout")) {
			mp->host_program_shape = psprog(w, &l);
		} else if (hlo_aname(m, &a[i], "input_output_alias")) {
			Xla__HloInputOutputAliasProto *io = hlo_aalloc(&w->a,
				sizeof *io);

			if (hlo_psioalias(&l, &w->a, io))
				mp->input_output_alias = io;
		} else if (hlo_aname(m, &a[i], "buffer_donor")) {
			Xla__HloBufferDonorProto *d = hlo_aalloc(&w->a, sizeof *d);

			if (hlo_psdonor(&l, &w->a, d))
				mp->buffer_donor = d;
		} else if (hlo_aname(m, &a[i], "frontend_attributes")) {
			Xla__FrontendAttributes *fa = hlo_aalloc(&w->a,
				sizeof *fa);

			if (hlo_psfattrs(&l, &w->a, fa) && hlo_lxend(&l))
				mp->frontend_attributes = fa;
		}
	}
}

/* module extension: 1 header attributes {1 key, 2 value}, 4 = 1 when
 * they replace the derived ones, 2 verbatim frame tables, 3 print order
 * of computations (proto positions) */
static void
wrmodext(Wr *w, Xla__HloModuleProto *mp, const uint32_t *order, uint32_t n)
{
	const HloModule *m = w->m;
	HloBuf x = {0}, r = {0}, t = {0};
	Hdr h = {0};
	char why[256];
	uint32_t i;
	int same = 1;

	if (rdheader(w->s, mp, &h, why, sizeof why) < 0 ||
	    !hdrsame(m, m->attrv + m->hattrs, m->nhattrs, w->s, &h)) {
		const HloAttr *a = m->attrv + m->hattrs;

		for (i = 0; i < m->nhattrs; i++) {
			const char *k = hlo_cstr(m, a[i].name);

			r.len = 0;
			hlo_putlenfield(&r, 1, k, strlen(k));
			if (a[i].v != HLO_ELIDED && a[i].kind >= K_WORD)
				hlo_putlenfield(&r, 2, m->bytes + a[i].v, a[i].n);
			hlo_putlenfield(&x, 1, r.buf, r.len);
		}
		hlo_puttag(&x, 4, 0);
		hlo_putvarint(&x, 1);
	}
	if (m->frames) {
		const char *f = hlo_cstr(m, m->frames);
		Xla__StackFrameIndexProto *sf = hlo_aalloc(&w->a, sizeof *sf);

		if (hlo_psframes(f, strlen(f), &w->a, sf)) {
			mp->stack_frame_index = sf;
			hlo_prframes(&t, sf);
		}
		if (t.len != strlen(f) || memcmp(t.buf, f, t.len))
			hlo_putlenfield(&x, 2, f, strlen(f));
	}
	r.len = 0;
	for (i = 0; i < n; i++) {
		same &= order[i] == i;
		hlo_putvarint(&r, w->compid[i] - 1);
	}
	if (!same)
		hlo_putlenfield(&x, 3, r.buf, r.len);
	if (x.len)
		hlo_addext(&w->a, &mp->base, &x);
	free(h.v);
	hlo_buf_free(&x);
	hlo_buf_free(&r);
	hlo_buf_free(&t);
}

int
hlo_write_proto(const HloModule *m, HloBuf *b, HloError *e)
{
	Xla__HloModuleProto mp;
	Xla__HloScheduleProto *sp;
	Wr w;
	Ab rb;
	uint32_t *order = NULL, k;
	size_t size;
	int n, r = -1;

	if (m->entry >= m->ncomps)
		return hlo_err(e, "error: cannot write proto: the module has "
			"no entry computation");
	memset(&w, 0, sizeof w);
	memset(&rb, 0, sizeof rb);
	w.m = m;
	w.s = hlo_module_new();
	w.e = e;
	w.nid = 1;
	w.shcache = xcalloc(m->nshapes + 1, sizeof *w.shcache);
	w.compid = xcalloc(m->ncomps + 1, sizeof *w.compid);
	w.seq = hlo_aallocn(&w.a, m->ncomps + 1, sizeof *w.seq);
	rb.m = w.s;
	order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	if ((n = hlo_comp_order_all(m, order)) < 0 ||
	    (uint32_t)n != m->ncomps) {
		hlo_err(e, "error: cannot write proto: computations call each "
			"other in a cycle");
		goto out;
	}
	for (k = 0; k < m->ncomps; k++)
		w.compid[order[k]] = k + 1;
	xla__hlo_module_proto__init(&mp);
	mp.name = (char *)hlo_cstr(m, m->name);
	wrheader(&w, &mp);
	mp.n_computations = m->ncomps;
	mp.computations = hlo_aallocn(&w.a, m->ncomps + 1,
		sizeof *mp.computations);
	for (k = 0; k < m->ncomps; k++)
		if (!(mp.computations[k] = wrcomp(&w, order[k], &rb)))
			goto out;
	mp.entry_computation_name = (char *)hlo_cstr(m,
		m->comps[m->entry].name);
	mp.entry_computation_id = w.compid[m->entry];
	if (!mp.host_program_shape)
		mp.host_program_shape = progshape(&w, m->entry);
	if (w.sched) {
		sp = hlo_aalloc(&w.a, sizeof *sp);
		xla__hlo_schedule_proto__init(sp);
		sp->n_sequences = w.nseq;
		sp->sequences = w.seq;
		mp.schedule = sp;
	}
	wrmodext(&w, &mp, order, m->ncomps);
	size = xla__hlo_module_proto__get_packed_size(&mp);
	if (size > SIZE_MAX / 2 - b->len) {
		hlo_err(e, "error: cannot write proto: module too large");
		goto out;
	}
	if (b->len + size + 1 > b->cap) {
		b->buf = xreallocarray(b->buf, b->len + size + 1, 1);
		b->cap = b->len + size + 1;
	}
	xla__hlo_module_proto__pack(&mp, (uint8_t *)b->buf + b->len);
	b->len += size;
	r = 0;
out:
	free(order);
	free(w.shcache);
	free(w.compid);
	free(rb.v);
	hlo_buf_free(&rb.t);
	hlo_module_free(w.s);
	hlo_afree(&w.a);
	return r;
}

/* the reader */

typedef struct {
	int64_t id;
	uint32_t pos;
} Idp;

static int
cmpidp(const void *a, const void *b)
{
	const Idp *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* position of id: -1 missing, -2 ambiguous */
static int64_t
idfind(const Idp *v, size_t n, int64_t id)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || v[lo].id != id)
		return -1;
	if (lo + 1 < n && v[lo + 1].id == id)
		return -2;
	return v[lo].pos;
}

typedef struct {
	HloModule *m;
	const char *fname;
	HloError *e;
	Ab b;
	const Xla__HloModuleProto *mp;
	Idp *cid;		/* computation ids */
	uint32_t *c2ir;		/* proto position -> computation index */
} Rd;

static int
rderr(Rd *r, const char *comp, const char *ins, const char *what)
{
	return hlo_err_in(r->e, r->fname, NULL, comp, ins, "%s", what);
}

/* a permutation of 0..n-1 from packed varints p..e into perm */
static int
getperm(const uint8_t *p, const uint8_t *e, uint32_t *perm, size_t n)
{
	uint8_t *seen = xcalloc(n + 1, 1);
	uint64_t v;
	size_t k = 0, s;
	int ok = 0;

	while (p < e) {
		if (!(s = hlo_getvarint(p, e, &v)) || k == n || v >= n || seen[v])
			goto out;
		seen[v] = 1;
		perm[k++] = v;
		p += s;
	}
	ok = k == n;
out:
	free(seen);
	return ok;
}

/* the print order of computation pc's instructions: order[j] is the
 * proto position of instruction j */
static void
instrorder(Rd *r, const Xla__HloComputationProto *pc, uint32_t *order,
	const Idp *ids)
{
	const uint8_t *p, *e;
	size_t n = pc->n_instructions, xn, i, k;
	WField f;

	if (hlo_getext(&pc->base, &p, &xn)) {
		e = p + xn;
		while (hlo_nextfield(&p, e, &f) > 0)
			if (f.num == 1 && f.wt == 2 &&
			    getperm(f.p, f.p + f.n, order, n))
				return;
	}
	if (r->mp->schedule) {
		const Xla__HloScheduleProto *sp = r->mp->schedule;

		for (i = 0; i < sp->n_sequences; i++) {
			const Xla__HloScheduleProto__InstructionSequence *q =
				sp->sequences[i]->value;
			uint8_t *seen;
			int64_t pos;
			int ok = 1;

			if (sp->sequences[i]->key != pc->id || !q ||
			    q->n_instruction_ids != n)
				continue;
			seen = xcalloc(n + 1, 1);
			for (k = 0; k < n && ok; k++) {
				pos = idfind(ids, n, q->instruction_ids[k]);
				if (pos < 0 || seen[pos])
					ok = 0;
				else
					seen[pos] = 1, order[k] = pos;
			}
			free(seen);
			if (ok)
				return;
		}
	}
	for (k = 0; k < n; k++)
		order[k] = k;
}

static int
rdrefs(Rd *r, const int64_t *v, size_t n, const Idp *ids, size_t nids,
	const uint32_t *pos2i, uint32_t *out)
{
	size_t k;
	int64_t p;

	for (k = 0; k < n; k++) {
		if ((p = idfind(ids, nids, v[k])) < 0)
			return -1;
		out[k] = pos2i[p];
	}
	return 0;
}

/* the operands, control predecessors and called computations of
 * instruction j of computation c from ip (of computation proto pc, whose
 * instruction ids are ids); refs is scratch space */
static int
rdlinks(Rd *r, uint32_t c, uint32_t j, const Xla__HloComputationProto *pc,
	const Xla__HloInstructionProto *ip, const Idp *ids,
	const uint32_t *pos2i, uint32_t **refs)
{
	HloModule *m = r->m;
	size_t n = pc->n_instructions, nmax, k;
	int64_t p;

	nmax = ip->n_operand_ids;
	if (ip->n_control_predecessor_ids > nmax)
		nmax = ip->n_control_predecessor_ids;
	if (ip->n_called_computation_ids > nmax)
		nmax = ip->n_called_computation_ids;
	if (nmax > UINT32_MAX / 16)
		return rderr(r, pc->name, ip->name, "too many operands");
	*refs = xreallocarray(*refs, nmax + 1, sizeof **refs);
	if (rdrefs(r, ip->operand_ids, ip->n_operand_ids, ids, n, pos2i,
	    *refs) < 0)
		return rderr(r, pc->name, ip->name, "unknown or ambiguous "
			"operand id");
	if (ip->n_operand_ids)
		hlo_set_operands(m, c, j, ip->n_operand_ids, *refs);
	if (rdrefs(r, ip->control_predecessor_ids,
	    ip->n_control_predecessor_ids, ids, n, pos2i, *refs) < 0)
		return rderr(r, pc->name, ip->name, "unknown or ambiguous "
			"control predecessor id");
	if (ip->n_control_predecessor_ids)
		hlo_set_ctrl(m, c, j, ip->n_control_predecessor_ids, *refs);
	for (k = 0; k < ip->n_called_computation_ids; k++) {
		p = idfind(r->cid, r->mp->n_computations,
			ip->called_computation_ids[k]);
		if (p < 0)
			return rderr(r, pc->name, ip->name, "unknown or "
				"ambiguous called computation id");
		(*refs)[k] = r->c2ir[p];
	}
	if (ip->n_called_computation_ids)
		hlo_set_called(m, c, j, ip->n_called_computation_ids, *refs);
	return 0;
}

/* the attributes and flags of instruction j of computation c from ip
 * and its extension */
static int
rdinstattrs(Rd *r, uint32_t c, uint32_t j, const char *comp,
	const Xla__HloInstructionProto *ip)
{
	HloModule *m = r->m;
	const HloInstr *in = &m->comps[c].ins[j];
	const uint8_t *xp;
	size_t xn;
	unsigned flags;
	int t0 = -1;

	if (in->nops)
		t0 = hlo_sh(m, m->comps[c].ins[m->ids[in->ops]].shape)->type;
	if (hlo_rdattrs(&r->b, ip, in->op, in->shape, t0) < 0)
		return rderr(r, comp, ip->name, r->b.why);
	flags = rdflags(in->op, in->ncalled, t0);
	if (hlo_getext(&ip->base, &xp, &xn) &&
	    hlo_extapply(&r->b, xp, xn, &flags) < 0)
		return rderr(r, comp, ip->name, "bad hlopt extension");
	hlo_set_attrs(m, c, j, r->b.n, r->b.v);
	m->comps[c].ins[j].flags = flags & (HI_CCFLAG | HI_BRANCHES);
	return 0;
}

static int
rdcomp(Rd *r, uint32_t c, const Xla__HloComputationProto *pc)
{
	HloModule *m = r->m;
	size_t n = pc->n_instructions, j;
	Idp *ids = xreallocarray(NULL, n + 1, sizeof *ids);
	uint32_t *order = xreallocarray(NULL, n + 1, sizeof *order);
	uint32_t *pos2i = xreallocarray(NULL, n + 1, sizeof *pos2i);
	uint32_t *refs = NULL, s;
	char why[256];
	int ret = -1;
	int64_t root;

	if (n > UINT32_MAX / 16) {
		rderr(r, pc->name, NULL, "too many instructions");
		goto out;
	}
	for (j = 0; j < n; j++) {
		ids[j].id = pc->instructions[j]->id;
		ids[j].pos = j;
	}
	qsort(ids, n, sizeof *ids, cmpidp);
	instrorder(r, pc, order, ids);
	if (n > m->comps[c].cap) {
		m->comps[c].ins = xreallocarray(m->comps[c].ins, n,
			sizeof *m->comps[c].ins);
		m->comps[c].cap = n;
	}
	for (j = 0; j < n; j++) {
		const Xla__HloInstructionProto *ip = pc->instructions[order[j]];
		int op = hlo_op_by_name(ip->opcode, strlen(ip->opcode));
		uint32_t i;

		if (op < 0) {
			snprintf(why, sizeof why, "unknown opcode '%s'",
				ip->opcode);
			rderr(r, pc->name, ip->name, why);
			goto out;
		}
		if (hlo_rdshape(m, ip->shape, &s, 0, why, sizeof why) < 0) {
			rderr(r, pc->name, ip->name, why);
			goto out;
		}
		i = hlo_instr_add(m, c, op, s, hlo_strz(m, ip->name), 0, NULL);
		if (op == HOP_PARAMETER)
			m->comps[c].ins[i].num = ip->parameter_number;
		pos2i[order[j]] = i;
	}
	for (j = 0; j < n; j++) {
		const Xla__HloInstructionProto *ip = pc->instructions[order[j]];

		if (rdlinks(r, c, j, pc, ip, ids, pos2i, &refs) < 0 ||
		    rdinstattrs(r, c, j, pc->name, ip) < 0)
			goto out;
	}
	root = idfind(ids, n, pc->root_id);
	if (root == -1 && n && pc->root_id == 0)
		root = n - 1;
	if (root < 0) {
		rderr(r, pc->name, NULL, "unknown root id");
		goto out;
	}
	m->comps[c].root = pos2i[root];
	ret = 0;
out:
	free(ids);
	free(order);
	free(pos2i);
	free(refs);
	return ret;
}

/* module extension: header attributes, frames, computation order */
static int
rdmodext(Rd *r, Hdr *h, int *hset, uint32_t *corder, int *cset)
{
	const Xla__HloModuleProto *mp = r->mp;
	const uint8_t *p, *e, *q, *qe;
	size_t n;
	WField f, g;

	*hset = *cset = 0;
	if (!hlo_getext(&mp->base, &p, &n))
		return 0;
	e = p + n;
	h->n = 0;
	while (hlo_nextfield(&p, e, &f) > 0) {
		if (f.num == 1 && f.wt == 2) {
			const uint8_t *k = NULL, *v = NULL;
			size_t nk = 0, nv = 0;
			char *key;

			q = f.p;
			qe = f.p + f.n;
			while (hlo_nextfield(&q, qe, &g) > 0) {
				if (g.num == 1 && g.wt == 2)
					k = g.p, nk = g.n;
				else if (g.num == 2 && g.wt == 2)
					v = g.p, nv = g.n;
			}
			key = xmalloc(nk + 1);
			if (nk)
				memcpy(key, k, nk);
			key[nk] = 0;
			hdrpush(h, r->m, key, (const char *)v, nv);
			free(key);
		} else if (f.num == 4 && f.wt == 0) {
			*hset = f.v != 0;
		} else if (f.num == 2 && f.wt == 2) {
			r->m->frames = hlo_strid(r->m, f.p, f.n);
		} else if (f.num == 3 && f.wt == 2) {
			*cset = getperm(f.p, f.p + f.n, corder,
				mp->n_computations);
		}
	}
	return 0;
}

static int
convert(Rd *r, const Xla__HloModuleProto *mp)
{
	HloModule *m = r->m;
	size_t nc = mp->n_computations, k;
	uint32_t *corder = NULL, c;
	Hdr h = {0};
	char why[256];
	int hset, cset, ret = -1;
	int64_t ent;

	r->mp = mp;
	if (!nc)
		return hlo_err_file(r->e, r->fname, "the module has no "
			"computations");
	if (nc > UINT32_MAX / 16)
		return hlo_err_file(r->e, r->fname, "too many computations");
	m->name = hlo_strz(m, mp->name);
	r->cid = xreallocarray(NULL, nc, sizeof *r->cid);
	r->c2ir = xreallocarray(NULL, nc, sizeof *r->c2ir);
	corder = xreallocarray(NULL, nc, sizeof *corder);
	for (k = 0; k < nc; k++) {
		r->cid[k].id = mp->computations[k]->id;
		r->cid[k].pos = k;
	}
	qsort(r->cid, nc, sizeof *r->cid, cmpidp);
	rdmodext(r, &h, &hset, corder, &cset);
	if (!cset)
		for (k = 0; k < nc; k++)
			corder[k] = k;
	/* corder[ir index] = proto position */
	for (k = 0; k < nc; k++) {
		const Xla__HloComputationProto *pc;

		pc = mp->computations[corder[k]];
		c = hlo_comp_add(m, hlo_strz(m, pc->name));
		m->comps[c].flags = pc->is_fusion_computation ? HC_FUSION : 0;
		if (*pc->execution_thread)
			m->comps[c].thread = hlo_strz(m, pc->execution_thread);
		r->c2ir[corder[k]] = c;
	}
	for (k = 0; k < nc; k++)
		if (rdcomp(r, k, mp->computations[corder[k]]) < 0)
			goto out;
	ent = idfind(r->cid, nc, mp->entry_computation_id);
	if (ent < 0 && *mp->entry_computation_name) {
		for (k = 0; k < nc; k++)
			if (!strcmp(mp->computations[k]->name,
			    mp->entry_computation_name))
				break;
		ent = k < nc ? (int64_t)k : -1;
	}
	if (ent < 0)
		ent = nc - 1;
	m->entry = r->c2ir[ent];
	if (!hset) {
		if (rdheader(m, mp, &h, why, sizeof why) < 0) {
			hlo_err_file(r->e, r->fname, "module header: %s", why);
			goto out;
		}
	}
	m->hattrs = hlo_push_attrs(m, h.v, h.n);
	m->nhattrs = h.n;
	if (!m->frames && mp->stack_frame_index) {
		HloBuf t = {0};

		hlo_prframes(&t, mp->stack_frame_index);
		m->frames = hlo_strid(m, t.buf, t.len);
		hlo_buf_free(&t);
	}
	ret = 0;
out:
	free(corder);
	free(h.v);
	free(r->cid);
	free(r->c2ir);
	return ret;
}

int
hlo_read_proto(const void *data, size_t n, const char *fname,
	HloModule **out, HloError *e)
{
	const uint8_t *p = data, *end = p + n;
	Arena arena = {NULL};
	ProtobufCAllocator al = hlo_pcallocator(&arena);
	Xla__HloModuleProto *mp;
	Walk w;
	Rd r;
	int ret;

	*out = NULL;
	if (!fname)
		fname = "<proto>";
	if (!hlo_ismodule(p, end)) {
		hlo_unwrap(&p, &end);
		memset(&w, 0, sizeof w);
		w.base = data;
		if (hlo_walkmsg(&w, &xla__hlo_module_proto__descriptor, p, end,
		    0) < 0)
			return hlo_err_file(e, fname, "malformed proto at "
				"byte %zu: %s", w.off, w.why);
	}
	mp = xla__hlo_module_proto__unpack(&al, end - p, p);
	if (!mp) {
		hlo_afree(&arena);
		return hlo_err_file(e, fname, "malformed proto: protobuf-c "
			"cannot unpack it as xla.HloModuleProto");
	}
	memset(&r, 0, sizeof r);
	r.m = hlo_module_new();
	r.fname = fname;
	r.e = e;
	r.b.m = r.m;
	ret = convert(&r, mp);
	hlo_afree(&arena);
	free(r.b.v);
	hlo_buf_free(&r.b.t);
	if (ret < 0) {
		hlo_module_free(r.m);
		return -1;
	}
	*out = r.m;
	return 0;
}
