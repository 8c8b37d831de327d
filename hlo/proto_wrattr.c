/* proto_wrattr.c: instruction attributes from the IR's attribute list
 * into the fields of an xla.HloInstructionProto. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* instruction attributes: attribute list -> proto fields */

static int64_t *
aints(Wr *w, const HloAttr *a)
{
	return hlo_adupvec(&w->a, w->m->ints + a->v, a->n);
}



Lx
hlo_alx(Wr *w, const HloAttr *a)
{
	Lx l;

	l.p = a->v == HLO_ELIDED ? "" : w->m->bytes + a->v;
	l.e = l.p + (a->v == HLO_ELIDED ? 0 : a->n);
	return l;
}

int
hlo_aname(const HloModule *m, const HloAttr *a, const char *name)
{
	return a->key == A_OTHER && !strcmp(hlo_cstr(m, a->name), name);
}

static int
aint64(Wr *w, const HloAttr *a, int64_t *v)
{
	Lx l = hlo_alx(w, a);

	return hlo_lxint(&l, v) && hlo_lxend(&l);
}

static int
aenum(Wr *w, const HloAttr *a, const char *const *tab, int n)
{
	if (a->v == HLO_ELIDED)
		return -1;
	return hlo_lookup(tab, n, w->m->bytes + a->v, a->n);
}

Xla__DotDimensionNumbers *
hlo_subdot(Wr *w, Sub *s, Xla__HloInstructionProto *ip, int op)
{
	if (!s->dot) {
		s->dot = hlo_aalloc(&w->a, sizeof *s->dot);
		xla__dot_dimension_numbers__init(s->dot);
		if (op == HOP_RAGGEDDOT) {
			s->ragged = hlo_aalloc(&w->a, sizeof *s->ragged);
			xla__ragged_dot_dimension_numbers__init(s->ragged);
			s->ragged->dot_dimension_numbers = s->dot;
			ip->ragged_dot_dimension_numbers = s->ragged;
		} else {
			ip->dot_dimension_numbers = s->dot;
		}
	}
	return s->dot;
}



Xla__PrecisionConfig *
hlo_subprec(Wr *w, Sub *s, Xla__HloInstructionProto *ip)
{
	if (!s->prec) {
		s->prec = hlo_aalloc(&w->a, sizeof *s->prec);
		xla__precision_config__init(s->prec);
		ip->precision_config = s->prec;
	}
	return s->prec;
}


#define SETINTS(obj, f) do { (obj)->n_##f = a->n; \
	(obj)->f = aints(w, a); } while (0)

static void
wrwindow(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	const int64_t *v = w->m->ints + a->v;
	Xla__Window *win = hlo_aalloc(&w->a, sizeof *win);
	size_t n = a->n / 7, i;

	xla__window__init(win);
	win->n_dimensions = n;
	win->dimensions = hlo_aallocn(&w->a, n + 1, sizeof *win->dimensions);
	for (i = 0; i < n; i++) {
		Xla__WindowDimension *d = hlo_aalloc(&w->a, sizeof *d);

		xla__window_dimension__init(d);
		d->size = v[7 * i];
		d->stride = v[7 * i + 1];
		d->padding_low = v[7 * i + 2];
		d->padding_high = v[7 * i + 3];
		d->window_dilation = v[7 * i + 4];
		d->base_dilation = v[7 * i + 5];
		d->window_reversal = v[7 * i + 6] != 0;
		win->dimensions[i] = d;
	}
	ip->window = win;
}

static void
wrpadslice(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	const int64_t *v = w->m->ints + a->v;
	size_t n = a->n / 3, i;

	if (a->key == A_SLICE) {
		ip->n_slice_dimensions = n;
		ip->slice_dimensions = hlo_aallocn(&w->a, n + 1,
			sizeof *ip->slice_dimensions);
		for (i = 0; i < n; i++) {
			Xla__HloInstructionProto__SliceDimensions *d =
				hlo_aalloc(&w->a, sizeof *d);

			xla__hlo_instruction_proto__slice_dimensions__init(d);
			d->start = v[3 * i];
			d->limit = v[3 * i + 1];
			d->stride = v[3 * i + 2];
			ip->slice_dimensions[i] = d;
		}
	} else {
		Xla__PaddingConfig *pc = hlo_aalloc(&w->a, sizeof *pc);

		xla__padding_config__init(pc);
		pc->n_dimensions = n;
		pc->dimensions = hlo_aallocn(&w->a, n + 1, sizeof *pc->dimensions);
		for (i = 0; i < n; i++) {
			Xla__PaddingConfig__PaddingConfigDimension *d =
				hlo_aalloc(&w->a, sizeof *d);

			xla__padding_config__padding_config_dimension__init(d);
			d->edge_padding_low = v[3 * i];
			d->edge_padding_high = v[3 * i + 1];
			d->interior_padding = v[3 * i + 2];
			pc->dimensions[i] = d;
		}
		ip->padding_config = pc;
	}
}

/* operand_layout_constraints={f32[2]{0}, ...} */
static int
wrshapes(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	Lx l = hlo_alx(w, a);
	Xla__ShapeProto **v = NULL;
	size_t n = 0, cap = 0;
	uint32_t s;
	int ok = 0;

	if (!hlo_lxc(&l, '{'))
		goto out;
	if (!hlo_lxc(&l, '}')) {
		do {
			if (!hlo_psshape(&l, w->s, &s, 0))
				goto out;
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[n++] = hlo_wrshape(w, w->s, s, 0);
		} while (hlo_lxc(&l, ','));
		if (!hlo_lxc(&l, '}'))
			goto out;
	}
	if (!hlo_lxend(&l))
		goto out;
	ip->constrain_layout = 1;
	ip->n_operand_shapes_with_layout = n;
	ip->operand_shapes_with_layout = hlo_adupn(&w->a, v, n, sizeof *v);
	ok = 1;
out:
	free(v);
	return ok;
}

static Xla__OpSharding *
wrsharding(Wr *w, Lx *l)
{
	Xla__OpSharding *s = hlo_aalloc(&w->a, sizeof *s);

	if (!hlo_pssharding(l, &w->a, s, 0))
		return NULL;
	return s;
}

/* domain={kind="sharding", entry={...}, exit={...}} */
static void
wrdomain(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	Lx l = hlo_alx(w, a);
	HloBuf t = {0};
	Xla__OpSharding *s[2];
	int i;

	if (!hlo_lxc(&l, '{') || !hlo_lxkw(&l, "kind") || !hlo_lxc(&l, '=') ||
	    !hlo_lxstr(&l, &t) || t.len != 8 || memcmp(t.buf, "sharding", 8) ||
	    !hlo_lxc(&l, ','))
		goto out;
	for (i = 0; i < 2; i++) {
		if (!hlo_lxkw(&l, i ? "exit" : "entry") || !hlo_lxc(&l, '='))
			goto out;
		if (hlo_lxpeek(&l, '{') && l.p + 1 < l.e && l.p[1] == '}') {
			l.p += 2;
			s[i] = NULL;
		} else if (!(s[i] = wrsharding(w, &l))) {
			goto out;
		}
		if (!hlo_lxc(&l, i ? '}' : ','))
			goto out;
	}
	if (hlo_lxend(&l)) {
		ip->domain_exit_sharding = s[0];
		ip->domain_entry_sharding = s[1];
	}
out:
	hlo_buf_free(&t);
}

static void
wrother(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	const HloModule *m = w->m;
	int64_t v;
	int t;

	if (hlo_aname(m, a, "inferred_dimension")) {
		if (aint64(w, a, &v)) {
			ip->n_dimensions = 1;
			ip->dimensions = hlo_adupvec(&w->a, &v, 1);
		}
	} else if (hlo_aname(m, a, "padding_type")) {
		if ((t = aenum(w, a, hlo_padtypename, NELEM(hlo_padtypename))) >= 0)
			ip->padding_type = t;
	} else if (hlo_aname(m, a, "cross_program_prefetch_index")) {
		if (aint64(w, a, &v) && v >= INT32_MIN && v <= INT32_MAX) {
			ip->optional_cross_program_prefetch_index_case = XPF_SET;
			ip->cross_program_prefetch_index = (int32_t)v;
		}
	} else if (hlo_aname(m, a, "domain")) {
		wrdomain(w, ip, a);
	} else if (hlo_aname(m, a, "num_carries")) {
		if (aint64(w, a, &v))
			ip->num_carries = v;
	} else if (hlo_aname(m, a, "is_reverse")) {
		Lx l = hlo_alx(w, a);

		ip->is_reverse = hlo_lxkw(&l, "true") && hlo_lxend(&l);
	} else if (hlo_aname(m, a, "is_associative")) {
		Lx l = hlo_alx(w, a);

		if (hlo_lxkw(&l, "true") && hlo_lxend(&l))
			ip->is_associative = XLA__TRI_STATE__TRI_STATE_TRUE;
		l = hlo_alx(w, a);
		if (hlo_lxkw(&l, "false") && hlo_lxend(&l))
			ip->is_associative = XLA__TRI_STATE__TRI_STATE_FALSE;
	}
}

/* the dot dimension numbers (of a ragged dot inside its
 * RaggedDotDimensionNumbers) */
static void
wrdot(Wr *w, Sub *s, Xla__HloInstructionProto *ip, int op, const HloAttr *a)
{
	switch (a->key) {
	case A_LHS_BATCH:
		SETINTS(hlo_subdot(w, s, ip, op), lhs_batch_dimensions);
		break;
	case A_LHS_CONTRACT:
		SETINTS(hlo_subdot(w, s, ip, op), lhs_contracting_dimensions);
		break;
	case A_RHS_BATCH:
		SETINTS(hlo_subdot(w, s, ip, op), rhs_batch_dimensions);
		break;
	case A_RHS_CONTRACT:
		SETINTS(hlo_subdot(w, s, ip, op), rhs_contracting_dimensions);
		break;
	case A_LHS_RAGGED:
		hlo_subdot(w, s, ip, op);
		if (s->ragged)
			SETINTS(s->ragged, lhs_ragged_dimensions);
		break;
	case A_RHS_GROUP:
		hlo_subdot(w, s, ip, op);
		if (s->ragged)
			SETINTS(s->ragged, rhs_group_dimensions);
		break;
	}
}

/* parameter_replication={true,false} */
static void
wrreplication(Wr *w, Xla__HloInstructionProto *ip, Lx *l)
{
	Vec v = {0};
	Xla__ParameterReplication *pr;
	size_t i;

	if (!hlo_lxc(l, '{'))
		return;
	if (!hlo_lxc(l, '}')) {
		do {
			if (hlo_lxkw(l, "true"))
				hlo_vpush(&v, 1);
			else if (hlo_lxkw(l, "false"))
				hlo_vpush(&v, 0);
			else
				break;
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}')) {
			free(v.v);
			return;
		}
	}
	if (hlo_lxend(l)) {
		pr = hlo_aalloc(&w->a, sizeof *pr);
		xla__parameter_replication__init(pr);
		pr->n_replicated_at_leaf_buffers = v.n;
		pr->replicated_at_leaf_buffers = hlo_abools(&w->a, v.n);
		for (i = 0; i < v.n; i++)
			pr->replicated_at_leaf_buffers[i] = v.v[i];
		ip->parameter_replication = pr;
	}
	free(v.v);
}

/* the collectives' text forms: replica groups, source-target pairs */
static void
wrcollective(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a, Lx *l)
{
	Xla__HloInstructionProto tmp;

	xla__hlo_instruction_proto__init(&tmp);
	if (a->key == A_REPLICA_GROUPS) {
		if (hlo_psgroups(l, &w->a, &tmp) && hlo_lxend(l)) {
			ip->n_replica_groups = tmp.n_replica_groups;
			ip->replica_groups = tmp.replica_groups;
			ip->replica_group_list_case =
				tmp.replica_group_list_case;
			ip->iota_collective_device_list =
				tmp.iota_collective_device_list;
		}
	} else if (hlo_pspairs(l, &w->a, &tmp) && hlo_lxend(l)) {
		ip->n_source_target_pairs = tmp.n_source_target_pairs;
		ip->source_target_pairs = tmp.source_target_pairs;
	}
}

/* a dot's sparsity=L.1@2:4 as dot_sparsity descriptors */
static void
wrsparsity(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	HloSparsity sp[2];
	Xla__SparsityDescriptor **v;
	int n, k;

	if (a->v == HLO_ELIDED ||
	    (n = hlo_sparsity_parse(w->m->bytes + a->v, a->n, sp, 2)) <= 0)
		return;
	v = hlo_aallocn(&w->a, n, sizeof *v);
	for (k = 0; k < n; k++) {
		v[k] = hlo_aalloc(&w->a, sizeof *v[k]);
		xla__sparsity_descriptor__init(v[k]);
		v[k]->type = XLA__SPARSITY_TYPE__SPARSITY_STRUCTURED_N_M;
		v[k]->index = sp[k].index;
		v[k]->dimension = (int32_t)sp[k].dim;
		v[k]->n = sp[k].n;
		v[k]->m = sp[k].m;
	}
	ip->n_dot_sparsity = n;
	ip->dot_sparsity = v;
}

/* the attributes the IR keeps in one of XLA's text forms */
static void
wrtext(Wr *w, Sub *s, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	Lx l = hlo_alx(w, a);
	Xla__HloInstructionProto tmp;
	Xla__PrecisionConfig pc;
	uint32_t sh;

	switch (a->key) {
	case A_DIM_LABELS: {
		Xla__ConvolutionDimensionNumbers *d = hlo_aalloc(&w->a,
			sizeof *d);

		xla__convolution_dimension_numbers__init(d);
		if (a->v != HLO_ELIDED && hlo_pslabels(w->m->bytes + a->v,
		    a->n, &w->a, d))
			ip->convolution_dimension_numbers = d;
		break;
	}
	case A_OPERAND_PRECISION:
		xla__precision_config__init(&pc);
		if (hlo_psprec(&l, &w->a, &pc) && hlo_lxend(&l)) {
			hlo_subprec(w, s, ip)->n_operand_precision =
				pc.n_operand_precision;
			s->prec->operand_precision = pc.operand_precision;
		}
		break;
	case A_REPLICA_GROUPS:
	case A_SOURCE_TARGET_PAIRS:
		wrcollective(w, ip, a, &l);
		break;
	case A_SPARSITY:
		wrsparsity(w, ip, a);
		break;
	case A_OUTFEED_SHAPE:
		if (hlo_psshape(&l, w->s, &sh, 0) && hlo_lxend(&l))
			ip->outfeed_shape = hlo_wrshape(w, w->s, sh, 0);
		break;
	case A_OPERAND_LAYOUT_CONSTRAINTS:
		wrshapes(w, ip, a);
		break;
	case A_OUTPUT_OPERAND_ALIASING:
		xla__hlo_instruction_proto__init(&tmp);
		if (hlo_psalias(&l, &w->a, &tmp) && hlo_lxend(&l)) {
			ip->n_output_operand_aliasing =
				tmp.n_output_operand_aliasing;
			ip->output_operand_aliasing =
				tmp.output_operand_aliasing;
		}
		break;
	case A_PARAMETER_REPLICATION:
		wrreplication(w, ip, &l);
		break;
	case A_SHARDING: {
		Xla__OpSharding *sp = wrsharding(w, &l);

		if (sp && hlo_lxend(&l))
			ip->sharding = sp;
		break;
	}
	case A_FRONTEND_ATTRIBUTES: {
		Xla__FrontendAttributes *fa = hlo_aalloc(&w->a, sizeof *fa);

		if (hlo_psfattrs(&l, &w->a, fa) && hlo_lxend(&l))
			ip->frontend_attributes = fa;
		break;
	}
	case A_METADATA: {
		Xla__OpMetadata *md = hlo_aalloc(&w->a, sizeof *md);

		xla__op_metadata__init(md);
		if (hlo_lxc(&l, '{') && hlo_psmeta(&l, &w->a, md) &&
		    hlo_lxend(&l))
			ip->metadata = md;
		break;
	}
	default:
		break;	/* result_accuracy, statistics, origin: extension */
	}
}

/* attribute a of an instruction (opcode op) into ip's fields; those
 * that map one to one to a field go through attrs.def's field column */
void
hlo_wrattr(Wr *w, Sub *s, Xla__HloInstructionProto *ip, int op,
	const HloAttr *a)
{
	char *str, *end;
	int t;
	float f;

	if (hlo_wrfield(w, &ip->base, a, NULL))
		return;
	switch (a->key) {
	case A_SLICE:
	case A_PADDING:
		wrpadslice(w, ip, a);
		break;
	case A_IOTA_DIM:
		ip->n_dimensions = 1;
		ip->dimensions = hlo_adupvec(&w->a, &a->v, 1);
		break;
	case A_WINDOW:
		wrwindow(w, ip, a);
		break;
	case A_LHS_BATCH: case A_LHS_CONTRACT: case A_RHS_BATCH:
	case A_RHS_CONTRACT: case A_LHS_RAGGED: case A_RHS_GROUP:
		wrdot(w, s, ip, op, a);
		break;
	case A_ALGORITHM:
		if (op == HOP_RNGBITGEN) {
			if ((t = aenum(w, a, hlo_rngalgname,
			    NELEM(hlo_rngalgname))) >= 0)
				ip->rng_algorithm = t;
		} else if ((t = aenum(w, a, hlo_algname,
		    NELEM(hlo_algname))) > 0) {
			hlo_subprec(w, s, ip)->algorithm = t;
		}
		break;
	case A_INDEX_VECTOR_DIM:
		hlo_wrfield(w, &ip->base, a, op == HOP_SCATTER ?
			"scatter_dimension_numbers.index_vector_dim" :
			"gather_dimension_numbers.index_vector_dim");
		break;
	case A_LOWER:
		hlo_wrfield(w, &ip->base, a, op == HOP_CHOLESKY ?
			"cholesky_options.lower" :
			"triangular_solve_options.lower");
		break;
	case A_EPSILON:
		if ((str = hlo_aword(w, a))) {
			errno = 0;
			f = strtof(str, &end);
			if (end != str && !*end)
				ip->epsilon = f;
		}
		break;
	case A_OTHER:
		wrother(w, ip, a);
		break;
	default:
		wrtext(w, s, ip, a);
		break;
	}
}
#undef SETINTS
