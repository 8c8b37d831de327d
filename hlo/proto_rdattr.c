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

/* padding=low_high_interior x ... */
static int
rdpadding(Ab *b, const Xla__PaddingConfig *pc)
{
	int64_t *v = xreallocarray(NULL, 3 * pc->n_dimensions + 1, sizeof *v);
	size_t i;
	int r;

	for (i = 0; i < pc->n_dimensions; i++) {
		v[3 * i] = pc->dimensions[i]->edge_padding_low;
		v[3 * i + 1] = pc->dimensions[i]->edge_padding_high;
		v[3 * i + 2] = pc->dimensions[i]->interior_padding;
	}
	r = hlo_abints(b, A_PADDING, v, 3 * pc->n_dimensions);
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

/* the attributes that map one to one to a proto field (attrs.def's
 * field column): for which opcode (HOP_COUNT: any) the reader writes
 * them, and when; path overrides attrs.def's field */
enum { ALWAYS, SET, POS, ABOVE1, NOT01 };

static const struct {
	uint16_t op, key;
	uint8_t when;
	const char *path;
} rules[] = {
	{HOP_FUSION, A_FUSION_KIND, SET, NULL},
	{HOP_GTE, A_INDEX, ALWAYS, NULL},
	{HOP_COMPARE, A_DIRECTION, ALWAYS, NULL},
	{HOP_DYNSLICE, A_DYN_SLICE_SIZES, ALWAYS, NULL},
	{HOP_CONV, A_FEATURE_GROUP_COUNT, NOT01, NULL},
	{HOP_CONV, A_BATCH_GROUP_COUNT, NOT01, NULL},
	{HOP_CUSTOMCALL, A_FEATURE_GROUP_COUNT, NOT01, NULL},
	{HOP_CUSTOMCALL, A_BATCH_GROUP_COUNT, NOT01, NULL},
	{HOP_GATHER, A_OFFSET_DIMS, ALWAYS, NULL},
	{HOP_GATHER, A_COLLAPSED_SLICE_DIMS, ALWAYS, NULL},
	{HOP_GATHER, A_START_INDEX_MAP, ALWAYS, NULL},
	{HOP_GATHER, A_OPERAND_BATCHING_DIMS, SET, NULL},
	{HOP_GATHER, A_START_INDICES_BATCHING_DIMS, SET, NULL},
	{HOP_GATHER, A_INDEX_VECTOR_DIM, ALWAYS,
		"gather_dimension_numbers.index_vector_dim"},
	{HOP_GATHER, A_SLICE_SIZES, ALWAYS, NULL},
	{HOP_GATHER, A_INDICES_ARE_SORTED, SET, NULL},
	{HOP_SCATTER, A_UPDATE_WINDOW_DIMS, ALWAYS, NULL},
	{HOP_SCATTER, A_INSERTED_WINDOW_DIMS, ALWAYS, NULL},
	{HOP_SCATTER, A_SCATTER_DIMS_TO_OPERAND_DIMS, ALWAYS, NULL},
	{HOP_SCATTER, A_INPUT_BATCHING_DIMS, SET, NULL},
	{HOP_SCATTER, A_SCATTER_INDICES_BATCHING_DIMS, SET, NULL},
	{HOP_SCATTER, A_INDEX_VECTOR_DIM, ALWAYS,
		"scatter_dimension_numbers.index_vector_dim"},
	{HOP_SCATTER, A_INDICES_ARE_SORTED, SET, NULL},
	{HOP_SCATTER, A_UNIQUE_INDICES, SET, NULL},
	{HOP_CUSTOMCALL, A_CUSTOM_CALL_TARGET, ALWAYS, NULL},
	{HOP_CUSTOMCALL, A_CUSTOM_CALL_SIDE_EFFECT, SET, NULL},
	{HOP_CUSTOMCALL, A_CUSTOM_CALL_SCHEDULE, SET, NULL},
	{HOP_CUSTOMCALL, A_API_VERSION, ABOVE1, NULL},
	{HOP_COUNT, A_USE_GLOBAL_DEVICE_IDS, SET, NULL},
	{HOP_COUNT, A_CHANNEL_ID, POS, NULL},
	{HOP_COUNT, A_IS_HOST_TRANSFER, SET, NULL},
	{HOP_REDUCEPRECISION, A_EXPONENT_BITS, ALWAYS, NULL},
	{HOP_REDUCEPRECISION, A_MANTISSA_BITS, ALWAYS, NULL},
	{HOP_BNGRAD, A_FEATURE_INDEX, ALWAYS, NULL},
	{HOP_BNINFER, A_FEATURE_INDEX, ALWAYS, NULL},
	{HOP_BNTRAIN, A_FEATURE_INDEX, ALWAYS, NULL},
	{HOP_RNG, A_DISTRIBUTION, ALWAYS, NULL},
	{HOP_FFT, A_FFT_TYPE, ALWAYS, NULL},
	{HOP_FFT, A_FFT_LENGTH, ALWAYS, NULL},
	{HOP_TOPK, A_K, ALWAYS, NULL},
	{HOP_TOPK, A_LARGEST, ALWAYS, NULL},
	{HOP_INFEED, A_INFEED_CONFIG, SET, NULL},
	{HOP_OUTFEED, A_OUTFEED_CONFIG, SET, NULL},
	{HOP_TRISOLVE, A_LEFT_SIDE, SET, NULL},
	{HOP_TRISOLVE, A_LOWER, SET, "triangular_solve_options.lower"},
	{HOP_TRISOLVE, A_UNIT_DIAGONAL, SET, NULL},
	{HOP_TRISOLVE, A_TRANSPOSE_A, SET, NULL},
	{HOP_CHOLESKY, A_LOWER, SET, "cholesky_options.lower"},
	{HOP_RNGGETSTATE, A_DELTA, ALWAYS, NULL},
	{HOP_COUNT, A_ASYNC_THREAD, SET, NULL},
	{HOP_COUNT, A_IS_STABLE, SET, NULL},
	{HOP_COUNT, A_IS_COMPOSITE, SET, NULL},
	{HOP_COUNT, A_BACKEND_CONFIG, SET, NULL},
};

/* the one-to-one attributes of instruction ip (opcode op) */
static int
rdfields(Ab *b, const Xla__HloInstructionProto *ip, int op)
{
	const ProtobufCFieldDescriptor *fd, *sub;
	const ProtobufCMessage *msg;
	int64_t v;
	size_t i;
	int want;

	for (i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		if (rules[i].op != op && rules[i].op != HOP_COUNT)
			continue;
		fd = hlo_pbfield(ip->base.descriptor, rules[i].path ?
			rules[i].path : hlo_attr_path(rules[i].key), &sub);
		msg = sub ? *(const ProtobufCMessage *const *)((const char *)ip +
			sub->offset) : &ip->base;
		if (!fd || !msg)
			continue;
		v = hlo_field_num(msg, fd);
		switch (rules[i].when) {
		case SET: want = v != 0; break;
		case POS: want = v > 0; break;
		case ABOVE1: want = v > 1; break;
		case NOT01: want = v > 1 || v < 0; break;
		default: want = 1; break;
		}
		if (want && hlo_abfield(b, msg, fd, rules[i].key, op) < 0)
			return -1;
	}
	return 0;
}

/* operand_layout_constraints={f32[2]{0}, ...} of a custom-call */
static int
rdlayouts(Ab *b, const Xla__HloInstructionProto *ip)
{
	size_t i;
	uint32_t s;

	b->t.len = 0;
	hlo_buf_put(&b->t, "{", 1);
	for (i = 0; i < ip->n_operand_shapes_with_layout; i++) {
		if (hlo_rdshape(b->m, ip->operand_shapes_with_layout[i], &s, 0,
		    b->why, sizeof b->why) < 0)
			return -1;
		if (i)
			hlo_buf_put(&b->t, ", ", 2);
		hlo_print_shape(b->m, s, &b->t);
	}
	hlo_buf_put(&b->t, "}", 1);
	return abbuf(b, A_OPERAND_LAYOUT_CONSTRAINTS);
}

/* custom-call and fusion: layout constraints, padding type, aliasing */
static int
rdcustom(Ab *b, const Xla__HloInstructionProto *ip, int op)
{
	const char *nm;

	if (op == HOP_CUSTOMCALL && ip->constrain_layout &&
	    rdlayouts(b, ip) < 0)
		return -1;
	if (op == HOP_CUSTOMCALL && ip->padding_type) {
		if (!(nm = hlo_ename(hlo_padtypename, NELEM(hlo_padtypename),
		    ip->padding_type))) {
			snprintf(b->why, sizeof b->why, "bad custom-call enum "
				"value");
			return -1;
		}
		b->t.len = 0;
		hlo_buf_puts(&b->t, nm);
		if (abother(b, "padding_type") < 0)
			return -1;
	}
	if ((op == HOP_FUSION || op == HOP_CUSTOMCALL) &&
	    ip->n_output_operand_aliasing) {
		b->t.len = 0;
		hlo_pralias(&b->t, ip->output_operand_aliasing,
			ip->n_output_operand_aliasing);
		if (abbuf(b, A_OUTPUT_OPERAND_ALIASING) < 0)
			return -1;
	}
	return 0;
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
	if (ip->constrain_layout && op != HOP_CUSTOMCALL)
		abint(b, A_CONSTRAIN_LAYOUT, 1);
	if (op == HOP_COLLPERMUTE || op == HOP_COLLPERMUTESTART) {
		b->t.len = 0;
		hlo_prpairs(&b->t, ip->source_target_pairs,
			ip->n_source_target_pairs);
		if (abbuf(b, A_SOURCE_TARGET_PAIRS) < 0)
			return -1;
	}
	return 0;
}

/* parameter_replication={true,false} */
static int
rdreplication(Ab *b, const Xla__ParameterReplication *pr)
{
	size_t i;

	b->t.len = 0;
	hlo_buf_put(&b->t, "{", 1);
	for (i = 0; i < pr->n_replicated_at_leaf_buffers; i++)
		hlo_buf_puts(&b->t, pr->replicated_at_leaf_buffers[i] ?
			(i ? ",true" : "true") : (i ? ",false" : "false"));
	hlo_buf_put(&b->t, "}", 1);
	return abbuf(b, A_PARAMETER_REPLICATION);
}

/* domain={kind="sharding", entry={...}, exit={...}}; nothing when a
 * sharding has no text form */
static int
rddomain(Ab *b, const Xla__HloInstructionProto *ip)
{
	b->t.len = 0;
	hlo_buf_puts(&b->t, "{kind=\"sharding\", entry=");
	if (!ip->domain_exit_sharding)
		hlo_buf_puts(&b->t, "{}");
	else if (hlo_prsharding(&b->t, ip->domain_exit_sharding, 0) < 0)
		return 0;
	hlo_buf_puts(&b->t, ", exit=");
	if (!ip->domain_entry_sharding)
		hlo_buf_puts(&b->t, "{}");
	else if (hlo_prsharding(&b->t, ip->domain_entry_sharding, 0) < 0)
		return 0;
	hlo_buf_put(&b->t, "}", 1);
	return abother(b, "domain");
}

/* scan's num_carries, is_reverse, is_associative */
static int
rdscan(Ab *b, const Xla__HloInstructionProto *ip)
{
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
	return 0;
}

/* the attributes of single opcodes that are not one field each */
static int
rdmisc(Ab *b, const Xla__HloInstructionProto *ip, int op)
{
	const char *nm;
	uint32_t s;

	switch (op) {
	case HOP_BNGRAD: case HOP_BNINFER: case HOP_BNTRAIN:
		b->t.len = 0;
		hlo_prfloat(&b->t, ip->epsilon);
		return abbuf(b, A_EPSILON);
	case HOP_OUTFEED:
		if (!ip->outfeed_shape)
			return 0;
		if (hlo_rdshape(b->m, ip->outfeed_shape, &s, 0, b->why,
		    sizeof b->why) < 0)
			return -1;
		b->t.len = 0;
		hlo_print_shape(b->m, s, &b->t);
		return abbuf(b, A_OUTFEED_SHAPE);
	case HOP_PARAMETER:
		if (ip->parameter_replication &&
		    ip->parameter_replication->n_replicated_at_leaf_buffers)
			return rdreplication(b, ip->parameter_replication);
		return 0;
	case HOP_RNGBITGEN:
		if (!(nm = hlo_ename(hlo_rngalgname, NELEM(hlo_rngalgname),
		    ip->rng_algorithm))) {
			snprintf(b->why, sizeof b->why, "bad enum value in %s",
				hlo_opinfo[op].name);
			return -1;
		}
		return abword(b, A_ALGORITHM, nm);
	case HOP_COPYSTART:
		if (ip->optional_cross_program_prefetch_index_case != XPF_SET)
			return 0;
		b->t.len = 0;
		hlo_buf_printf(&b->t, "%d", ip->cross_program_prefetch_index);
		return abother(b, "cross_program_prefetch_index");
	case HOP_DOMAIN:
		return rddomain(b, ip);
	case HOP_SCAN:
		return rdscan(b, ip);
	default:
		return 0;
	}
}

/* literal, slice, dimensions, comparison type, padding */
static int
rdarray(Ab *b, const Xla__HloInstructionProto *ip, int op, uint32_t s,
	int t0)
{
	const char *dt;
	int64_t *v;
	size_t i, n;
	int r;

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
	if (op == HOP_SLICE) {
		n = ip->n_slice_dimensions;
		v = xreallocarray(NULL, 3 * n + 1, sizeof *v);
		for (i = 0; i < n; i++) {
			v[3 * i] = ip->slice_dimensions[i]->start;
			v[3 * i + 1] = ip->slice_dimensions[i]->limit;
			v[3 * i + 2] = ip->slice_dimensions[i]->stride;
		}
		r = hlo_abints(b, A_SLICE, v, 3 * n);
		free(v);
		if (r < 0)
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
	} else if ((alwaysdims(op) || ip->n_dimensions) && hlo_abints(b,
	    A_DIMENSIONS, ip->dimensions, ip->n_dimensions) < 0) {
		return -1;
	}
	if (op == HOP_COMPARE) {
		dt = hlo_defcmptype(t0);
		if (*ip->comparison_type && (!dt ||
		    strcmp(dt, ip->comparison_type)))
			abword(b, A_CMP_TYPE, ip->comparison_type);
	}
	return op == HOP_PAD && ip->padding_config ?
		rdpadding(b, ip->padding_config) : 0;
}

/* window, dim_labels, dot dimension numbers, precision */
/* dot_sparsity as the text form L.1@2:4_R.0@2:4 */
static int
rdsparsity(Ab *b, const Xla__HloInstructionProto *ip)
{
	const Xla__SparsityDescriptor *d;
	size_t k;

	b->t.len = 0;
	for (k = 0; k < ip->n_dot_sparsity; k++) {
		d = ip->dot_sparsity[k];
		if (d->type != XLA__SPARSITY_TYPE__SPARSITY_STRUCTURED_N_M ||
		    (d->index != 0 && d->index != 1) || d->dimension < 0 ||
		    d->n < 1 || d->m <= d->n) {
			snprintf(b->why, sizeof b->why, "bad dot sparsity "
				"descriptor");
			return -1;
		}
		hlo_buf_printf(&b->t, "%s%c.%d@%d:%d", k ? "_" : "",
			d->index ? 'R' : 'L', (int)d->dimension, (int)d->n,
			(int)d->m);
	}
	return abbuf(b, A_SPARSITY);
}

static int
rdconvdot(Ab *b, const Xla__HloInstructionProto *ip, int op)
{
	const Xla__RaggedDotDimensionNumbers *r;

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
	if ((op == HOP_DOT || op == HOP_SCALEDDOT) &&
	    rddot(b, ip->dot_dimension_numbers) < 0)
		return -1;
	if (op == HOP_DOT && ip->n_dot_sparsity && rdsparsity(b, ip) < 0)
		return -1;
	if (op == HOP_RAGGEDDOT && (r = ip->ragged_dot_dimension_numbers)) {
		if (rddot(b, r->dot_dimension_numbers) < 0)
			return -1;
		if (r->n_lhs_ragged_dimensions && hlo_abints(b, A_LHS_RAGGED,
		    r->lhs_ragged_dimensions, r->n_lhs_ragged_dimensions) < 0)
			return -1;
		if (r->n_rhs_group_dimensions && hlo_abints(b, A_RHS_GROUP,
		    r->rhs_group_dimensions, r->n_rhs_group_dimensions) < 0)
			return -1;
	}
	return hlo_hasprecision(op) ? rdprec(b, ip->precision_config, op) : 0;
}

/* sharding, frontend attributes, metadata */
static int
rdmeta(Ab *b, const Xla__HloInstructionProto *ip)
{
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
	return 0;
}

/* the attributes of instruction ip (opcode op, shape s, operand 0 of
 * element type t0 or -1) into b->v; -1 with b->why on bad contents */
int
hlo_rdattrs(Ab *b, const Xla__HloInstructionProto *ip, int op, uint32_t s,
	int t0)
{
	b->n = 0;
	if (rdarray(b, ip, op, s, t0) < 0 || rdconvdot(b, ip, op) < 0 ||
	    rdfields(b, ip, op) < 0 || rdcustom(b, ip, op) < 0 ||
	    rdcollective(b, ip, op) < 0 || rdmisc(b, ip, op) < 0 ||
	    rdmeta(b, ip) < 0)
		return -1;
	return 0;
}
