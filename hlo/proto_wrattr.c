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

static char *
aword(Wr *w, const HloAttr *a)
{
	if (a->v == HLO_ELIDED)
		return NULL;
	if (a->n && memchr(w->m->bytes + a->v, 0, a->n))
		return NULL;
	return hlo_astrndup(&w->a, w->m->bytes + a->v, a->n);
}

static ProtobufCBinaryData
abin(Wr *w, const HloAttr *a)
{
	ProtobufCBinaryData d;

	d.len = a->v == HLO_ELIDED ? 0 : a->n;
	d.data = d.len ? (uint8_t *)w->m->bytes + a->v : NULL;
	return d;
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

Xla__GatherDimensionNumbers *
hlo_subgather(Wr *w, Sub *s, Xla__HloInstructionProto *ip)
{
	if (!s->gather) {
		s->gather = hlo_aalloc(&w->a, sizeof *s->gather);
		xla__gather_dimension_numbers__init(s->gather);
		ip->gather_dimension_numbers = s->gather;
	}
	return s->gather;
}

Xla__ScatterDimensionNumbers *
hlo_subscatter(Wr *w, Sub *s, Xla__HloInstructionProto *ip)
{
	if (!s->scatter) {
		s->scatter = hlo_aalloc(&w->a, sizeof *s->scatter);
		xla__scatter_dimension_numbers__init(s->scatter);
		ip->scatter_dimension_numbers = s->scatter;
	}
	return s->scatter;
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

static Xla__TriangularSolveOptions *
subtri(Wr *w, Sub *s, Xla__HloInstructionProto *ip)
{
	if (!s->tri) {
		s->tri = hlo_aalloc(&w->a, sizeof *s->tri);
		xla__triangular_solve_options__init(s->tri);
		ip->triangular_solve_options = s->tri;
	}
	return s->tri;
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
	ip->operand_shapes_with_layout = hlo_aallocn(&w->a, n + 1, sizeof *v);
	if (n)
		memcpy(ip->operand_shapes_with_layout, v, n * sizeof *v);
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

void
hlo_wrattr(Wr *w, Sub *s, Xla__HloInstructionProto *ip, int op,
	const HloAttr *a)
{
	Lx l = hlo_alx(w, a);
	char *str;
	int t;

	switch (a->key) {
	case A_FUSION_KIND:
		if ((str = aword(w, a)))
			ip->fusion_kind = str;
		break;
	case A_SLICE:
	case A_PADDING:
		wrpadslice(w, ip, a);
		break;
	case A_DIMENSIONS:
		SETINTS(ip, dimensions);
		break;
	case A_INDEX:
		ip->tuple_index = a->v;
		break;
	case A_IOTA_DIM:
		ip->n_dimensions = 1;
		ip->dimensions = hlo_adupvec(&w->a, &a->v, 1);
		break;
	case A_DIRECTION:
		if ((str = aword(w, a)))
			ip->comparison_direction = str;
		break;
	case A_CMP_TYPE:
		if ((str = aword(w, a)))
			ip->comparison_type = str;
		break;
	case A_DYN_SLICE_SIZES:
		SETINTS(ip, dynamic_slice_sizes);
		break;
	case A_WINDOW:
		wrwindow(w, ip, a);
		break;
	case A_DIM_LABELS: {
		Xla__ConvolutionDimensionNumbers *d = hlo_aalloc(&w->a, sizeof *d);

		xla__convolution_dimension_numbers__init(d);
		if (a->v != HLO_ELIDED && hlo_pslabels(w->m->bytes + a->v, a->n,
		    &w->a, d))
			ip->convolution_dimension_numbers = d;
		break;
	}
	case A_FEATURE_GROUP_COUNT:
		ip->feature_group_count = a->v;
		break;
	case A_BATCH_GROUP_COUNT:
		ip->batch_group_count = a->v;
		break;
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
	case A_OPERAND_PRECISION: {
		Xla__PrecisionConfig pc;

		xla__precision_config__init(&pc);
		if (hlo_psprec(&l, &w->a, &pc) && hlo_lxend(&l)) {
			hlo_subprec(w, s, ip)->n_operand_precision =
				pc.n_operand_precision;
			s->prec->operand_precision = pc.operand_precision;
		}
		break;
	}
	case A_ALGORITHM:
		if (op == HOP_RNGBITGEN) {
			if ((t = aenum(w, a, hlo_rngalgname, NELEM(hlo_rngalgname))) >= 0)
				ip->rng_algorithm = t;
		} else if ((t = aenum(w, a, hlo_algname, NELEM(hlo_algname))) > 0) {
			hlo_subprec(w, s, ip)->algorithm = t;
		}
		break;
	case A_OFFSET_DIMS:
		SETINTS(hlo_subgather(w, s, ip), offset_dims);
		break;
	case A_COLLAPSED_SLICE_DIMS:
		SETINTS(hlo_subgather(w, s, ip), collapsed_slice_dims);
		break;
	case A_START_INDEX_MAP:
		SETINTS(hlo_subgather(w, s, ip), start_index_map);
		break;
	case A_OPERAND_BATCHING_DIMS:
		SETINTS(hlo_subgather(w, s, ip), operand_batching_dims);
		break;
	case A_START_INDICES_BATCHING_DIMS:
		SETINTS(hlo_subgather(w, s, ip), start_indices_batching_dims);
		break;
	case A_UPDATE_WINDOW_DIMS:
		SETINTS(hlo_subscatter(w, s, ip), update_window_dims);
		break;
	case A_INSERTED_WINDOW_DIMS:
		SETINTS(hlo_subscatter(w, s, ip), inserted_window_dims);
		break;
	case A_SCATTER_DIMS_TO_OPERAND_DIMS:
		SETINTS(hlo_subscatter(w, s, ip), scatter_dims_to_operand_dims);
		break;
	case A_INPUT_BATCHING_DIMS:
		SETINTS(hlo_subscatter(w, s, ip), input_batching_dims);
		break;
	case A_SCATTER_INDICES_BATCHING_DIMS:
		SETINTS(hlo_subscatter(w, s, ip), scatter_indices_batching_dims);
		break;
	case A_INDEX_VECTOR_DIM:
		if (op == HOP_SCATTER)
			hlo_subscatter(w, s, ip)->index_vector_dim = a->v;
		else
			hlo_subgather(w, s, ip)->index_vector_dim = a->v;
		break;
	case A_SLICE_SIZES:
		SETINTS(ip, gather_slice_sizes);
		break;
	case A_INDICES_ARE_SORTED:
		ip->indices_are_sorted = a->v != 0;
		break;
	case A_UNIQUE_INDICES:
		ip->unique_indices = a->v != 0;
		break;
	case A_EXPONENT_BITS:
		ip->exponent_bits = (int32_t)a->v;
		break;
	case A_MANTISSA_BITS:
		ip->mantissa_bits = (int32_t)a->v;
		break;
	case A_EPSILON:
		if ((str = aword(w, a))) {
			char *end;
			float f;

			errno = 0;
			f = strtof(str, &end);
			if (end != str && !*end)
				ip->epsilon = f;
		}
		break;
	case A_FEATURE_INDEX:
		ip->feature_index = a->v;
		break;
	case A_DISTRIBUTION:
		if ((t = aenum(w, a, hlo_distname, NELEM(hlo_distname))) >= 0)
			ip->distribution = t;
		break;
	case A_FFT_TYPE:
		if ((t = aenum(w, a, hlo_fftname, NELEM(hlo_fftname))) >= 0)
			ip->fft_type = t;
		break;
	case A_FFT_LENGTH:
		SETINTS(ip, fft_length);
		break;
	case A_IS_STABLE:
		ip->is_stable = a->v != 0;
		break;
	case A_K:
		ip->k = a->v;
		break;
	case A_LARGEST:
		ip->largest = a->v != 0;
		break;
	case A_CHANNEL_ID:
		ip->channel_id = a->v;
		break;
	case A_REPLICA_GROUPS: {
		Xla__HloInstructionProto tmp;

		xla__hlo_instruction_proto__init(&tmp);
		if (hlo_psgroups(&l, &w->a, &tmp) && hlo_lxend(&l)) {
			ip->n_replica_groups = tmp.n_replica_groups;
			ip->replica_groups = tmp.replica_groups;
			ip->replica_group_list_case =
				tmp.replica_group_list_case;
			ip->iota_collective_device_list =
				tmp.iota_collective_device_list;
		}
		break;
	}
	case A_USE_GLOBAL_DEVICE_IDS:
		ip->use_global_device_ids = a->v != 0;
		break;
	case A_CONSTRAIN_LAYOUT:
		ip->constrain_layout = a->v != 0;
		break;
	case A_SOURCE_TARGET_PAIRS: {
		Xla__HloInstructionProto tmp;

		xla__hlo_instruction_proto__init(&tmp);
		if (hlo_pspairs(&l, &w->a, &tmp) && hlo_lxend(&l)) {
			ip->n_source_target_pairs = tmp.n_source_target_pairs;
			ip->source_target_pairs = tmp.source_target_pairs;
		}
		break;
	}
	case A_IS_HOST_TRANSFER:
		ip->is_host_transfer = a->v != 0;
		break;
	case A_INFEED_CONFIG:
		ip->infeed_config = abin(w, a);
		break;
	case A_OUTFEED_CONFIG:
		ip->outfeed_config = abin(w, a);
		break;
	case A_OUTFEED_SHAPE: {
		uint32_t sh;

		if (hlo_psshape(&l, w->s, &sh, 0) && hlo_lxend(&l))
			ip->outfeed_shape = hlo_wrshape(w, w->s, sh, 0);
		break;
	}
	case A_CUSTOM_CALL_TARGET:
		if ((str = aword(w, a)))
			ip->custom_call_target = str;
		break;
	case A_CUSTOM_CALL_SIDE_EFFECT:
		ip->custom_call_has_side_effect = a->v != 0;
		break;
	case A_OPERAND_LAYOUT_CONSTRAINTS:
		wrshapes(w, ip, a);
		break;
	case A_OUTPUT_OPERAND_ALIASING: {
		Xla__HloInstructionProto tmp;

		xla__hlo_instruction_proto__init(&tmp);
		if (hlo_psalias(&l, &w->a, &tmp) && hlo_lxend(&l)) {
			ip->n_output_operand_aliasing =
				tmp.n_output_operand_aliasing;
			ip->output_operand_aliasing =
				tmp.output_operand_aliasing;
		}
		break;
	}
	case A_CUSTOM_CALL_SCHEDULE:
		if ((t = aenum(w, a, hlo_schedname, NELEM(hlo_schedname))) >= 0)
			ip->custom_call_schedule = t;
		break;
	case A_API_VERSION:
		if ((t = aenum(w, a, hlo_apiname, NELEM(hlo_apiname))) >= 0)
			ip->custom_call_api_version = t;
		break;
	case A_LEFT_SIDE:
		subtri(w, s, ip)->left_side = a->v != 0;
		break;
	case A_LOWER:
		if (op == HOP_CHOLESKY) {
			Xla__CholeskyOptions *c = hlo_aalloc(&w->a, sizeof *c);

			xla__cholesky_options__init(c);
			c->lower = a->v != 0;
			ip->cholesky_options = c;
		} else {
			subtri(w, s, ip)->lower = a->v != 0;
		}
		break;
	case A_UNIT_DIAGONAL:
		subtri(w, s, ip)->unit_diagonal = a->v != 0;
		break;
	case A_TRANSPOSE_A:
		if ((t = aenum(w, a, hlo_transname, NELEM(hlo_transname))) >= 0)
			subtri(w, s, ip)->transpose_a = t;
		break;
	case A_DELTA:
		ip->delta = a->v;
		break;
	case A_PARAMETER_REPLICATION: {
		Vec v = {0};
		Xla__ParameterReplication *pr;
		size_t i;

		if (!hlo_lxc(&l, '{'))
			break;
		if (!hlo_lxc(&l, '}')) {
			do {
				if (hlo_lxkw(&l, "true"))
					hlo_vpush(&v, 1);
				else if (hlo_lxkw(&l, "false"))
					hlo_vpush(&v, 0);
				else
					break;
			} while (hlo_lxc(&l, ','));
			if (!hlo_lxc(&l, '}')) {
				free(v.v);
				break;
			}
		}
		if (hlo_lxend(&l)) {
			pr = hlo_aalloc(&w->a, sizeof *pr);
			xla__parameter_replication__init(pr);
			pr->n_replicated_at_leaf_buffers = v.n;
			pr->replicated_at_leaf_buffers = hlo_abools(&w->a, v.n);
			for (i = 0; i < v.n; i++)
				pr->replicated_at_leaf_buffers[i] = v.v[i];
			ip->parameter_replication = pr;
		}
		free(v.v);
		break;
	}
	case A_ASYNC_THREAD:
		if ((str = aword(w, a)))
			ip->async_execution_thread = str;
		break;
	case A_IS_COMPOSITE:
		ip->is_composite = a->v != 0;
		break;
	case A_OTHER:
		wrother(w, ip, a);
		break;
	case A_SHARDING: {
		Xla__OpSharding *sh = wrsharding(w, &l);

		if (sh && hlo_lxend(&l))
			ip->sharding = sh;
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
		if (hlo_lxc(&l, '{') && hlo_psmeta(&l, &w->a, md) && hlo_lxend(&l))
			ip->metadata = md;
		break;
	}
	case A_BACKEND_CONFIG:
		ip->backend_config = abin(w, a);
		break;
	default:
		break;	/* result_accuracy, statistics, origin: extension */
	}
}
#undef SETINTS
