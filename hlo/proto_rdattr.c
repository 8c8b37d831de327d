/* proto_rdattr.c: instruction attributes from an xla.HloInstructionProto
 * into the IR's attribute list, as XLA's printer would write them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* instruction attributes: proto -> attribute list, as XLA prints them */

void
hlo_abpush(Ab *b, HloAttr a)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->v = xreallocarray(b->v, b->cap, sizeof *b->v);
	}
	b->v[b->n++] = a;
}

static void
abint(Ab *b, int key, int64_t v)
{
	hlo_abpush(b, hlo_mk_int(key, v));
}

int
hlo_abints(Ab *b, int key, const int64_t *v, size_t n)
{
	if (n > UINT32_MAX / 16) {
		snprintf(b->why, sizeof b->why, "%s has too many elements",
			hlo_attrinfo[key].key);
		return -1;
	}
	hlo_abpush(b, hlo_mk_ints(b->m, key, v, (uint32_t)n));
	return 0;
}

int
hlo_abtext(Ab *b, int key, int kind, const void *s, size_t n)
{
	if (n > UINT32_MAX / 4) {
		snprintf(b->why, sizeof b->why, "attribute too large");
		return -1;
	}
	hlo_abpush(b, hlo_mk_bytes(b->m, key, kind, n ? s : "", (uint32_t)n));
	return 0;
}

static int
abword(Ab *b, int key, const char *s)
{
	return hlo_abtext(b, key, hlo_attrinfo[key].kind, s, strlen(s));
}

/* attribute key from b->t */
static int
abbuf(Ab *b, int key)
{
	return hlo_abtext(b, key, hlo_attrinfo[key].kind, b->t.buf, b->t.len);
}

/* an A_OTHER attribute name=b->t */
static int
abother(Ab *b, const char *name)
{
	HloAttr a;

	if (hlo_abtext(b, A_OTHER, K_RAW, b->t.buf, b->t.len) < 0)
		return -1;
	a = b->v[b->n - 1];
	a.name = hlo_strz(b->m, name);
	b->v[b->n - 1] = a;
	return 0;
}

static int
alwaysdims(int op)
{
	switch (op) {
	case HOP_BROADCAST: case HOP_TRANSPOSE: case HOP_REVERSE:
	case HOP_CONCAT: case HOP_REDUCE: case HOP_SORT: case HOP_MAP:
	case HOP_GETDIMSIZE: case HOP_SETDIMSIZE: case HOP_SCAN:
	case HOP_ALLGATHER: case HOP_ALLGATHERSTART: case HOP_REDUCESCATTER:
		return 1;
	default:
		return 0;
	}
}

static int
hasgroups(int op)
{
	switch (op) {
	case HOP_ALLREDUCE: case HOP_ALLREDUCESTART: case HOP_ALLGATHER:
	case HOP_ALLGATHERSTART: case HOP_ALLTOALL: case HOP_RAGGEDALLTOALL:
	case HOP_REDUCESCATTER: case HOP_COLLBCAST: case HOP_COLLREDUCE:
		return 1;
	default:
		return 0;
	}
}

int
hlo_hasprecision(int op)
{
	return op == HOP_DOT || op == HOP_CONV || op == HOP_RAGGEDDOT ||
		op == HOP_CUSTOMCALL || op == HOP_SCALEDDOT;
}

/* Comparison::DefaultComparisonType of element type t */
const char *
hlo_defcmptype(int t)
{
	if (t < 0)
		return NULL;
	switch (hlo_typeinfo[t].cls) {
	case C_FLOAT: case C_CPLX: return "FLOAT";
	case C_SINT: return "SIGNED";
	case C_PRED: case C_UINT: return "UNSIGNED";
	default: return NULL;
	}
}

static int
rdwindow(Ab *b, const Xla__Window *w)
{
	int64_t *v;
	size_t i;
	int r;

	if (w->n_dimensions > UINT32_MAX / 128) {
		snprintf(b->why, sizeof b->why, "window too large");
		return -1;
	}
	v = xreallocarray(NULL, 7 * w->n_dimensions + 1, sizeof *v);
	for (i = 0; i < w->n_dimensions; i++) {
		const Xla__WindowDimension *d = w->dimensions[i];

		v[7 * i] = d->size;
		v[7 * i + 1] = d->stride;
		v[7 * i + 2] = d->padding_low;
		v[7 * i + 3] = d->padding_high;
		v[7 * i + 4] = d->window_dilation;
		v[7 * i + 5] = d->base_dilation;
		v[7 * i + 6] = d->window_reversal;
	}
	r = hlo_abints(b, A_WINDOW, v, 7 * w->n_dimensions);
	free(v);
	return r;
}

static int
rddot(Ab *b, const Xla__DotDimensionNumbers *d)
{
	if (!d)
		return 0;
	if (d->n_lhs_batch_dimensions && hlo_abints(b, A_LHS_BATCH,
	    d->lhs_batch_dimensions, d->n_lhs_batch_dimensions) < 0)
		return -1;
	if (hlo_abints(b, A_LHS_CONTRACT, d->lhs_contracting_dimensions,
	    d->n_lhs_contracting_dimensions) < 0)
		return -1;
	if (d->n_rhs_batch_dimensions && hlo_abints(b, A_RHS_BATCH,
	    d->rhs_batch_dimensions, d->n_rhs_batch_dimensions) < 0)
		return -1;
	return hlo_abints(b, A_RHS_CONTRACT, d->rhs_contracting_dimensions,
		d->n_rhs_contracting_dimensions);
}

static int
rdprec(Ab *b, const Xla__PrecisionConfig *pc, int op)
{
	size_t i;
	int any = 0;

	if (!pc)
		return 0;
	for (i = 0; i < pc->n_operand_precision; i++)
		any |= pc->operand_precision[i] != 0;
	if (any) {
		b->t.len = 0;
		hlo_buf_put(&b->t, "{", 1);
		for (i = 0; i < pc->n_operand_precision; i++) {
			const char *nm = hlo_ename(hlo_precname, NELEM(hlo_precname),
				pc->operand_precision[i]);

			if (!nm) {
				snprintf(b->why, sizeof b->why, "bad precision "
					"%d", pc->operand_precision[i]);
				return -1;
			}
			if (i)
				hlo_buf_put(&b->t, ",", 1);
			hlo_buf_puts(&b->t, nm);
		}
		hlo_buf_put(&b->t, "}", 1);
		if (abbuf(b, A_OPERAND_PRECISION) < 0)
			return -1;
	}
	if (pc->algorithm) {
		const char *nm = hlo_ename(hlo_algname, NELEM(hlo_algname), pc->algorithm);

		if (!nm) {
			snprintf(b->why, sizeof b->why, "bad dot algorithm %d",
				pc->algorithm);
			return -1;
		}
		return abword(b, A_ALGORITHM, nm);
	}
	(void)op;
	return 0;
}

static int
rdgather(Ab *b, const Xla__HloInstructionProto *ip)
{
	const Xla__GatherDimensionNumbers *d = ip->gather_dimension_numbers;

	if (d) {
		if (hlo_abints(b, A_OFFSET_DIMS, d->offset_dims,
		    d->n_offset_dims) < 0 ||
		    hlo_abints(b, A_COLLAPSED_SLICE_DIMS, d->collapsed_slice_dims,
		    d->n_collapsed_slice_dims) < 0 ||
		    hlo_abints(b, A_START_INDEX_MAP, d->start_index_map,
		    d->n_start_index_map) < 0)
			return -1;
		if (d->n_operand_batching_dims && hlo_abints(b,
		    A_OPERAND_BATCHING_DIMS, d->operand_batching_dims,
		    d->n_operand_batching_dims) < 0)
			return -1;
		if (d->n_start_indices_batching_dims && hlo_abints(b,
		    A_START_INDICES_BATCHING_DIMS,
		    d->start_indices_batching_dims,
		    d->n_start_indices_batching_dims) < 0)
			return -1;
		abint(b, A_INDEX_VECTOR_DIM, d->index_vector_dim);
	}
	if (hlo_abints(b, A_SLICE_SIZES, ip->gather_slice_sizes,
	    ip->n_gather_slice_sizes) < 0)
		return -1;
	if (ip->indices_are_sorted)
		abint(b, A_INDICES_ARE_SORTED, 1);
	return 0;
}

static int
rdscatter(Ab *b, const Xla__HloInstructionProto *ip)
{
	const Xla__ScatterDimensionNumbers *d = ip->scatter_dimension_numbers;

	if (d) {
		if (hlo_abints(b, A_UPDATE_WINDOW_DIMS, d->update_window_dims,
		    d->n_update_window_dims) < 0 ||
		    hlo_abints(b, A_INSERTED_WINDOW_DIMS, d->inserted_window_dims,
		    d->n_inserted_window_dims) < 0 ||
		    hlo_abints(b, A_SCATTER_DIMS_TO_OPERAND_DIMS,
		    d->scatter_dims_to_operand_dims,
		    d->n_scatter_dims_to_operand_dims) < 0)
			return -1;
		if (d->n_input_batching_dims && hlo_abints(b,
		    A_INPUT_BATCHING_DIMS, d->input_batching_dims,
		    d->n_input_batching_dims) < 0)
			return -1;
		if (d->n_scatter_indices_batching_dims && hlo_abints(b,
		    A_SCATTER_INDICES_BATCHING_DIMS,
		    d->scatter_indices_batching_dims,
		    d->n_scatter_indices_batching_dims) < 0)
			return -1;
		abint(b, A_INDEX_VECTOR_DIM, d->index_vector_dim);
	}
	if (ip->indices_are_sorted)
		abint(b, A_INDICES_ARE_SORTED, 1);
	if (ip->unique_indices)
		abint(b, A_UNIQUE_INDICES, 1);
	return 0;
}

static int
rdcustom(Ab *b, const Xla__HloInstructionProto *ip)
{
	const char *nm;
	size_t i;

	if (hlo_abtext(b, A_CUSTOM_CALL_TARGET, K_STR, ip->custom_call_target,
	    strlen(ip->custom_call_target)) < 0)
		return -1;
	if (ip->constrain_layout) {
		b->t.len = 0;
		hlo_buf_put(&b->t, "{", 1);
		for (i = 0; i < ip->n_operand_shapes_with_layout; i++) {
			uint32_t s;

			if (hlo_rdshape(b->m, ip->operand_shapes_with_layout[i], &s,
			    0, b->why, sizeof b->why) < 0)
				return -1;
			if (i)
				hlo_buf_put(&b->t, ", ", 2);
			hlo_prshape(b->m, s, &b->t);
		}
		hlo_buf_put(&b->t, "}", 1);
		if (abbuf(b, A_OPERAND_LAYOUT_CONSTRAINTS) < 0)
			return -1;
	}
	if (ip->custom_call_has_side_effect)
		abint(b, A_CUSTOM_CALL_SIDE_EFFECT, 1);
	if (ip->custom_call_schedule) {
		if (!(nm = hlo_ename(hlo_schedname, NELEM(hlo_schedname),
		    ip->custom_call_schedule)))
			goto bad;
		abword(b, A_CUSTOM_CALL_SCHEDULE, nm);
	}
	if (ip->custom_call_api_version > 1) {
		if (!(nm = hlo_ename(hlo_apiname, NELEM(hlo_apiname),
		    ip->custom_call_api_version)))
			goto bad;
		abword(b, A_API_VERSION, nm);
	}
	if (ip->padding_type) {
		if (!(nm = hlo_ename(hlo_padtypename, NELEM(hlo_padtypename),
		    ip->padding_type)))
			goto bad;
		b->t.len = 0;
		hlo_buf_puts(&b->t, nm);
		if (abother(b, "padding_type") < 0)
			return -1;
	}
	return 0;
bad:
	snprintf(b->why, sizeof b->why, "bad custom-call enum value");
	return -1;
}

static int
rdcollective(Ab *b, const Xla__HloInstructionProto *ip, int op)
{
	if (hasgroups(op)) {
		b->t.len = 0;
		switch (ip->replica_group_list_case) {
		case RG_IOTA:
			hlo_priota(&b->t, ip->iota_collective_device_list);
			break;
		case RG_LIST:
			if (!ip->n_replica_groups) {
				const Xla__CollectiveDeviceListProto *dl =
					ip->collective_device_list;

				hlo_prgroups(&b->t, dl->replica_groups,
					dl->n_replica_groups);
				break;
			}
			/* fall through */
		case RG_NONE:
			hlo_prgroups(&b->t, ip->replica_groups,
				ip->n_replica_groups);
			break;
		default:
			b->t.len = 0;	/* mesh-axes groups: dropped */
			break;
		}
		if (b->t.len && abbuf(b, A_REPLICA_GROUPS) < 0)
			return -1;
	}
	if (ip->use_global_device_ids)
		abint(b, A_USE_GLOBAL_DEVICE_IDS, 1);
	if (ip->constrain_layout && op != HOP_CUSTOMCALL)
		abint(b, A_CONSTRAIN_LAYOUT, 1);
	if (op == HOP_COLLPERMUTE || op == HOP_COLLPERMUTESTART) {
		b->t.len = 0;
		hlo_prpairs(&b->t, ip->source_target_pairs,
			ip->n_source_target_pairs);
		if (abbuf(b, A_SOURCE_TARGET_PAIRS) < 0)
			return -1;
	}
	if (ip->channel_id > 0)
		abint(b, A_CHANNEL_ID, ip->channel_id);
	if (ip->is_host_transfer)
		abint(b, A_IS_HOST_TRANSFER, 1);
	return 0;
}

static int
rdmisc(Ab *b, const Xla__HloInstructionProto *ip, int op)
{
	const char *nm;

	switch (op) {
	case HOP_REDUCEPRECISION:
		abint(b, A_EXPONENT_BITS, ip->exponent_bits);
		abint(b, A_MANTISSA_BITS, ip->mantissa_bits);
		break;
	case HOP_BNGRAD: case HOP_BNINFER: case HOP_BNTRAIN:
		b->t.len = 0;
		hlo_prfloat(&b->t, ip->epsilon);
		if (abbuf(b, A_EPSILON) < 0)
			return -1;
		abint(b, A_FEATURE_INDEX, ip->feature_index);
		break;
	case HOP_RNG:
		if (!(nm = hlo_ename(hlo_distname, NELEM(hlo_distname), ip->distribution)))
			goto bad;
		abword(b, A_DISTRIBUTION, nm);
		break;
	case HOP_FFT:
		if (!(nm = hlo_ename(hlo_fftname, NELEM(hlo_fftname), ip->fft_type)))
			goto bad;
		abword(b, A_FFT_TYPE, nm);
		if (hlo_abints(b, A_FFT_LENGTH, ip->fft_length,
		    ip->n_fft_length) < 0)
			return -1;
		break;
	case HOP_TOPK:
		abint(b, A_K, ip->k);
		abint(b, A_LARGEST, ip->largest != 0);
		break;
	case HOP_INFEED:
		if (ip->infeed_config.len && hlo_abtext(b, A_INFEED_CONFIG, K_STR,
		    ip->infeed_config.data, ip->infeed_config.len) < 0)
			return -1;
		break;
	case HOP_OUTFEED:
		if (ip->outfeed_shape) {
			uint32_t s;

			if (hlo_rdshape(b->m, ip->outfeed_shape, &s, 0, b->why,
			    sizeof b->why) < 0)
				return -1;
			b->t.len = 0;
			hlo_prshape(b->m, s, &b->t);
			if (abbuf(b, A_OUTFEED_SHAPE) < 0)
				return -1;
		}
		if (ip->outfeed_config.len && hlo_abtext(b, A_OUTFEED_CONFIG,
		    K_STR, ip->outfeed_config.data,
		    ip->outfeed_config.len) < 0)
			return -1;
		break;
	case HOP_TRISOLVE:
		if (!ip->triangular_solve_options)
			break;
		if (ip->triangular_solve_options->left_side)
			abint(b, A_LEFT_SIDE, 1);
		if (ip->triangular_solve_options->lower)
			abint(b, A_LOWER, 1);
		if (ip->triangular_solve_options->unit_diagonal)
			abint(b, A_UNIT_DIAGONAL, 1);
		if (ip->triangular_solve_options->transpose_a) {
			if (!(nm = hlo_ename(hlo_transname, NELEM(hlo_transname),
			    ip->triangular_solve_options->transpose_a)))
				goto bad;
			abword(b, A_TRANSPOSE_A, nm);
		}
		break;
	case HOP_CHOLESKY:
		if (ip->cholesky_options && ip->cholesky_options->lower)
			abint(b, A_LOWER, 1);
		break;
	case HOP_PARAMETER:
		if (ip->parameter_replication &&
		    ip->parameter_replication->n_replicated_at_leaf_buffers) {
			const Xla__ParameterReplication *pr =
				ip->parameter_replication;
			size_t i;

			b->t.len = 0;
			hlo_buf_put(&b->t, "{", 1);
			for (i = 0; i < pr->n_replicated_at_leaf_buffers; i++)
				hlo_buf_puts(&b->t, pr->replicated_at_leaf_buffers[i]
					? (i ? ",true" : "true") :
					(i ? ",false" : "false"));
			hlo_buf_put(&b->t, "}", 1);
			if (abbuf(b, A_PARAMETER_REPLICATION) < 0)
				return -1;
		}
		break;
	case HOP_RNGGETSTATE:
		abint(b, A_DELTA, ip->delta);
		break;
	case HOP_RNGBITGEN:
		if (!(nm = hlo_ename(hlo_rngalgname, NELEM(hlo_rngalgname),
		    ip->rng_algorithm)))
			goto bad;
		abword(b, A_ALGORITHM, nm);
		break;
	case HOP_COPYSTART:
		if (ip->optional_cross_program_prefetch_index_case == XPF_SET) {
			b->t.len = 0;
			hlo_buf_printf(&b->t, "%d",
				ip->cross_program_prefetch_index);
			if (abother(b, "cross_program_prefetch_index") < 0)
				return -1;
		}
		break;
	case HOP_DOMAIN:
		b->t.len = 0;
		hlo_buf_puts(&b->t, "{kind=\"sharding\", entry=");
		if (!ip->domain_exit_sharding)
			hlo_buf_puts(&b->t, "{}");
		else if (hlo_prsharding(&b->t, ip->domain_exit_sharding, 0) < 0)
			break;
		hlo_buf_puts(&b->t, ", exit=");
		if (!ip->domain_entry_sharding)
			hlo_buf_puts(&b->t, "{}");
		else if (hlo_prsharding(&b->t, ip->domain_entry_sharding, 0) < 0)
			break;
		hlo_buf_put(&b->t, "}", 1);
		if (abother(b, "domain") < 0)
			return -1;
		break;
	case HOP_SCAN:
		b->t.len = 0;
		hlo_buf_printf(&b->t, "%" PRId64, ip->num_carries);
		if (abother(b, "num_carries") < 0)
			return -1;
		if (ip->is_reverse) {
			b->t.len = 0;
			hlo_buf_puts(&b->t, "true");
			if (abother(b, "is_reverse") < 0)
				return -1;
		}
		if (ip->is_associative) {
			b->t.len = 0;
			hlo_buf_puts(&b->t, ip->is_associative ==
				XLA__TRI_STATE__TRI_STATE_TRUE ? "true" : "false");
			if (abother(b, "is_associative") < 0)
				return -1;
		}
		break;
	default:
		break;
	}
	return 0;
bad:
	snprintf(b->why, sizeof b->why, "bad enum value in %s",
		hlo_opinfo[op].name);
	return -1;
}

/* the attributes of instruction ip (opcode op, shape s, operand 0 of
 * element type t0 or -1) into b->v; -1 with b->why on bad contents */
int
hlo_rdattrs(Ab *b, const Xla__HloInstructionProto *ip, int op, uint32_t s,
	int t0)
{
	const char *dt;
	size_t i;

	b->n = 0;
	if (op == HOP_CONSTANT) {
		if (ip->literal) {
			b->t.len = 0;
			if (hlo_rdlit(b->m, ip->literal, s, &b->t, 0, b->why,
			    sizeof b->why) < 0 || hlo_abtext(b, A_LITERAL,
			    K_LITERAL, b->t.buf, b->t.len) < 0)
				return -1;
		} else {
			HloAttr a = hlo_mk_int(A_LITERAL, 0);

			a.kind = K_LITERAL;
			a.v = HLO_ELIDED;
			hlo_abpush(b, a);
		}
	}
	if (op == HOP_FUSION && *ip->fusion_kind)
		abword(b, A_FUSION_KIND, ip->fusion_kind);
	if (op == HOP_SLICE && ip->n_slice_dimensions) {
		int64_t *v = xreallocarray(NULL, 3 * ip->n_slice_dimensions + 1,
			sizeof *v);
		int r;

		for (i = 0; i < ip->n_slice_dimensions; i++) {
			v[3 * i] = ip->slice_dimensions[i]->start;
			v[3 * i + 1] = ip->slice_dimensions[i]->limit;
			v[3 * i + 2] = ip->slice_dimensions[i]->stride;
		}
		r = hlo_abints(b, A_SLICE, v, 3 * ip->n_slice_dimensions);
		free(v);
		if (r < 0)
			return -1;
	} else if (op == HOP_SLICE && hlo_abints(b, A_SLICE, NULL, 0) < 0) {
		return -1;
	}
	if (op == HOP_IOTA) {
		if (ip->n_dimensions)
			abint(b, A_IOTA_DIM, ip->dimensions[0]);
	} else if (op == HOP_RESHAPE) {
		if (ip->n_dimensions) {
			b->t.len = 0;
			hlo_buf_printf(&b->t, "%" PRId64, ip->dimensions[0]);
			if (abother(b, "inferred_dimension") < 0)
				return -1;
		}
	} else if ((alwaysdims(op) || ip->n_dimensions) &&
	    hlo_abints(b, A_DIMENSIONS, ip->dimensions, ip->n_dimensions) < 0) {
		return -1;
	}
	if (op == HOP_GTE)
		abint(b, A_INDEX, ip->tuple_index);
	if (op == HOP_COMPARE) {
		abword(b, A_DIRECTION, ip->comparison_direction);
		dt = hlo_defcmptype(t0);
		if (*ip->comparison_type && (!dt ||
		    strcmp(dt, ip->comparison_type)))
			abword(b, A_CMP_TYPE, ip->comparison_type);
	}
	if (op == HOP_DYNSLICE && hlo_abints(b, A_DYN_SLICE_SIZES,
	    ip->dynamic_slice_sizes, ip->n_dynamic_slice_sizes) < 0)
		return -1;
	if (op == HOP_PAD && ip->padding_config) {
		const Xla__PaddingConfig *pc = ip->padding_config;
		int64_t *v = xreallocarray(NULL, 3 * pc->n_dimensions + 1,
			sizeof *v);
		int r;

		for (i = 0; i < pc->n_dimensions; i++) {
			v[3 * i] = pc->dimensions[i]->edge_padding_low;
			v[3 * i + 1] = pc->dimensions[i]->edge_padding_high;
			v[3 * i + 2] = pc->dimensions[i]->interior_padding;
		}
		r = hlo_abints(b, A_PADDING, v, 3 * pc->n_dimensions);
		free(v);
		if (r < 0)
			return -1;
	}
	if (ip->window && (op == HOP_CUSTOMCALL ||
	    ((op == HOP_CONV || op == HOP_REDUCEWINDOW ||
	    op == HOP_SELECTANDSCATTER) && ip->window->n_dimensions)) &&
	    rdwindow(b, ip->window) < 0)
		return -1;
	if ((op == HOP_CONV || op == HOP_CUSTOMCALL) &&
	    ip->convolution_dimension_numbers) {
		b->t.len = 0;
		if (hlo_prlabels(&b->t, ip->convolution_dimension_numbers) < 0) {
			snprintf(b->why, sizeof b->why, "bad convolution "
				"dimension numbers");
			return -1;
		}
		if (abbuf(b, A_DIM_LABELS) < 0)
			return -1;
	}
	if (op == HOP_CONV || op == HOP_CUSTOMCALL) {
		if (ip->feature_group_count > 1 || ip->feature_group_count < 0)
			abint(b, A_FEATURE_GROUP_COUNT, ip->feature_group_count);
		if (ip->batch_group_count > 1 || ip->batch_group_count < 0)
			abint(b, A_BATCH_GROUP_COUNT, ip->batch_group_count);
	}
	if ((op == HOP_DOT || op == HOP_SCALEDDOT) &&
	    rddot(b, ip->dot_dimension_numbers) < 0)
		return -1;
	if (op == HOP_RAGGEDDOT && ip->ragged_dot_dimension_numbers) {
		const Xla__RaggedDotDimensionNumbers *r =
			ip->ragged_dot_dimension_numbers;

		if (rddot(b, r->dot_dimension_numbers) < 0)
			return -1;
		if (r->n_lhs_ragged_dimensions && hlo_abints(b, A_LHS_RAGGED,
		    r->lhs_ragged_dimensions, r->n_lhs_ragged_dimensions) < 0)
			return -1;
		if (r->n_rhs_group_dimensions && hlo_abints(b, A_RHS_GROUP,
		    r->rhs_group_dimensions, r->n_rhs_group_dimensions) < 0)
			return -1;
	}
	if (hlo_hasprecision(op) && rdprec(b, ip->precision_config, op) < 0)
		return -1;
	if (op == HOP_GATHER && rdgather(b, ip) < 0)
		return -1;
	if (op == HOP_SCATTER && rdscatter(b, ip) < 0)
		return -1;
	if (op == HOP_CUSTOMCALL && rdcustom(b, ip) < 0)
		return -1;
	if ((op == HOP_FUSION || op == HOP_CUSTOMCALL) &&
	    ip->n_output_operand_aliasing) {
		b->t.len = 0;
		hlo_pralias(&b->t, ip->output_operand_aliasing,
			ip->n_output_operand_aliasing);
		if (abbuf(b, A_OUTPUT_OPERAND_ALIASING) < 0)
			return -1;
	}
	if (rdcollective(b, ip, op) < 0 || rdmisc(b, ip, op) < 0)
		return -1;
	if (*ip->async_execution_thread && abword(b, A_ASYNC_THREAD,
	    ip->async_execution_thread) < 0)
		return -1;
	if (ip->is_stable)
		abint(b, A_IS_STABLE, 1);
	if (ip->is_composite)
		abint(b, A_IS_COMPOSITE, 1);
	if (ip->sharding) {
		/* named (mesh-axis) shardings have no text form here and
		 * are dropped */
		b->t.len = 0;
		if (hlo_prsharding(&b->t, ip->sharding, 0) == 0 &&
		    abbuf(b, A_SHARDING) < 0)
			return -1;
	}
	if (ip->frontend_attributes && ip->frontend_attributes->n_map) {
		b->t.len = 0;
		hlo_prfattrs(&b->t, ip->frontend_attributes);
		if (abbuf(b, A_FRONTEND_ATTRIBUTES) < 0)
			return -1;
	}
	if (ip->metadata) {
		b->t.len = 0;
		hlo_buf_put(&b->t, "{", 1);
		hlo_prmeta(&b->t, ip->metadata);
		hlo_buf_put(&b->t, "}", 1);
		if (b->t.len > 2 && abbuf(b, A_METADATA) < 0)
			return -1;
	}
	if (ip->backend_config.len && hlo_abtext(b, A_BACKEND_CONFIG, K_STR,
	    ip->backend_config.data, ip->backend_config.len) < 0)
		return -1;
	return 0;
}
