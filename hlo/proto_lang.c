/* proto_lang.c: XLA's attribute text mini-languages and their proto
 * messages, both ways: enum spellings, metadata, shardings, frontend
 * attributes, replica groups, source-target pairs, precision, aliasing,
 * dim_labels, stack frame tables, input/output aliasing, buffer donors. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* enum spellings */

const char *const hlo_precname[3] = {"default", "high", "highest"};
const char *const hlo_algname[14] = {"unset", "dot_any_f8_any_f8_f32",
	"dot_any_f8_any_f8_f32_fast_accum", "dot_f16_f16_f16",
	"dot_f16_f16_f32", "dot_bf16_bf16_bf16", "dot_bf16_bf16_f32",
	"dot_bf16_bf16_f32_x3", "dot_bf16_bf16_f32_x6", "dot_tf32_tf32_f32",
	"dot_tf32_tf32_f32_x3", "dot_f32_f32_f32", "dot_f64_f64_f64",
	"dot_bf16_bf16_f32_x9"};
const char *const hlo_distname[3] = {"rng_invalid", "rng_uniform",
	"rng_normal"};
const char *const hlo_rngalgname[3] = {"rng_default", "rng_three_fry",
	"rng_philox"};
const char *const hlo_fftname[4] = {"FFT", "IFFT", "RFFT", "IRFFT"};
const char *const hlo_transname[4] = {"TRANSPOSE_INVALID",
	"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
const char *const hlo_schedname[3] = {"SCHEDULE_NONE", "SCHEDULE_LATEST",
	"SCHEDULE_EARLIEST"};
const char *const hlo_apiname[5] = {"API_VERSION_UNSPECIFIED",
	"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
	"API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
const char *const hlo_padtypename[3] = {"PADDING_INVALID",
	"PADDING_VALID", "PADDING_SAME"};
static const char *const subgroupname[] = {"replicated", "maximal", NULL,
	NULL, "manual", NULL, "unreduced"};


int
hlo_lookup(const char *const *tab, int n, const char *s, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (tab[i] && strlen(tab[i]) == len && !memcmp(tab[i], s, len))
			return i;
	return -1;
}

const char *
hlo_ename(const char *const *tab, int n, int v)
{
	return v >= 0 && v < n ? tab[v] : NULL;
}

/* floats as XLA's StrCat prints them (%g), exact when %g is not */
void
hlo_prfloat(HloBuf *b, float f)
{
	char t[64];
	int prec;

	snprintf(t, sizeof t, "%g", (double)f);
	if (strtof(t, NULL) != f && !isnan(f))
		for (prec = 7; prec <= 9; prec++) {
			snprintf(t, sizeof t, "%.*g", prec, (double)f);
			if (strtof(t, NULL) == f)
				break;
		}
	hlo_buf_puts(b, t);
}

/* a NUL-free copy of b into the arena, or NULL */
static char *
astrbuf(Arena *a, const HloBuf *b)
{
	if (b->len && memchr(b->buf, 0, b->len))
		return NULL;
	return hlo_astrndup(a, b->len ? b->buf : "", b->len);
}

/* OpMetadata as OpMetadataToString writes it, without braces */
void
hlo_prmeta(HloBuf *b, const Xla__OpMetadata *md)
{
	size_t start = b->len;

#define SEP() do { if (b->len > start) hlo_buf_put(b, " ", 1); } while (0)
#define STR(f) do { if (md->f && *md->f) { SEP(); \
	hlo_buf_puts(b, #f "="); hlo_print_quoted(b, md->f, strlen(md->f)); } } while (0)
#define INT(f) do { if (md->f) { SEP(); \
	hlo_buf_printf(b, #f "=%" PRId64, (int64_t)md->f); } } while (0)
	STR(op_type);
	STR(op_name);
	STR(source_file);
	INT(source_line);
	INT(source_end_line);
	INT(source_column);
	INT(source_end_column);
	if (md->n_profile_type) {
		size_t i;

		SEP();
		hlo_buf_puts(b, "profile_type={");
		for (i = 0; i < md->n_profile_type; i++)
			hlo_buf_printf(b, i ? ",%d" : "%d", md->profile_type[i]);
		hlo_buf_puts(b, "}");
	}
	STR(deduplicated_name);
	INT(stack_frame_id);
	STR(scheduling_name);
#undef SEP
#undef STR
#undef INT
}

/* the inside of {op_type="..." ...}, after the '{', through the '}' */
int
hlo_psmeta(Lx *l, Arena *a, Xla__OpMetadata *md)
{
	HloBuf t = {0};
	const char *k;
	size_t n;
	int64_t v;
	char **sp;
	int32_t *ip;
	Vec pv = {0};
	int ok = 0;

	while (!hlo_lxc(l, '}')) {
		if (!hlo_lxword(l, &k, &n) || !hlo_lxc(l, '='))
			goto out;
		sp = NULL;
		ip = NULL;
#define IS(s) (n == strlen(s) && !memcmp(k, s, n))
		if (IS("op_type"))
			sp = &md->op_type;
		else if (IS("op_name"))
			sp = &md->op_name;
		else if (IS("source_file"))
			sp = &md->source_file;
		else if (IS("deduplicated_name"))
			sp = &md->deduplicated_name;
		else if (IS("scheduling_name"))
			sp = &md->scheduling_name;
		else if (IS("source_line"))
			ip = &md->source_line;
		else if (IS("source_end_line"))
			ip = &md->source_end_line;
		else if (IS("source_column"))
			ip = &md->source_column;
		else if (IS("source_end_column"))
			ip = &md->source_end_column;
		else if (IS("stack_frame_id"))
			ip = &md->stack_frame_id;
		else if (IS("profile_type")) {
			size_t i;

			if (!hlo_lxlist(l, &pv, '{', '}'))
				goto out;
			md->n_profile_type = pv.n;
			md->profile_type = hlo_aallocn(a, pv.n + 1,
				sizeof *md->profile_type);
			for (i = 0; i < pv.n; i++)
				md->profile_type[i] = pv.v[i];
			continue;
		} else
			goto out;
#undef IS
		if (sp) {
			t.len = 0;
			if (!hlo_lxstr(l, &t) || !(*sp = astrbuf(a, &t)))
				goto out;
		} else {
			if (!hlo_lxint(l, &v) || v < INT32_MIN || v > INT32_MAX)
				goto out;
			*ip = (int32_t)v;
		}
	}
	ok = 1;
out:
	hlo_buf_free(&t);
	free(pv.v);
	return ok;
}

/* shardings: HloSharding::ToString <-> OpSharding */

static int
isidentity(const int32_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (int32_t)i)
			return 0;
	return 1;
}

/* <=[dims] and T(perm) unless perm is the identity */
static void
priotatail(HloBuf *b, const int64_t *dims, size_t ndims, const int32_t *perm,
	size_t nperm)
{
	size_t i;

	hlo_buf_puts(b, "<=[");
	hlo_putints(b, dims, ndims);
	hlo_buf_put(b, "]", 1);
	if (!isidentity(perm, nperm)) {
		hlo_buf_puts(b, "T(");
		for (i = 0; i < nperm; i++)
			hlo_buf_printf(b, i ? ",%d" : "%d", perm[i]);
		hlo_buf_put(b, ")", 1);
	}
}

int
hlo_prsharding(HloBuf *b, const Xla__OpSharding *s, int depth)
{
	size_t i;

	if (depth > MAXDEPTH || s->_named_sharding_case ==
	    XLA__OP_SHARDING___NAMED_SHARDING_NAMED_SHARDING)
		return -1;
	if (s->type == XLA__OP_SHARDING__TYPE__TUPLE) {
		hlo_buf_put(b, "{", 1);
		for (i = 0; i < s->n_tuple_shardings; i++) {
			if (i && i % 5 == 0)
				hlo_buf_printf(b, ", /*index=%zu*/", i);
			else if (i)
				hlo_buf_put(b, ", ", 2);
			if (hlo_prsharding(b, s->tuple_shardings[i], depth + 1) < 0)
				return -1;
		}
		hlo_buf_put(b, "}", 1);
		return 0;
	}
	switch (s->type) {
	case XLA__OP_SHARDING__TYPE__REPLICATED:
		hlo_buf_puts(b, "{replicated");
		break;
	case XLA__OP_SHARDING__TYPE__MANUAL:
		hlo_buf_puts(b, "{manual");
		break;
	case XLA__OP_SHARDING__TYPE__UNKNOWN:
		hlo_buf_puts(b, "{unknown");
		break;
	case XLA__OP_SHARDING__TYPE__UNREDUCED:
		hlo_buf_puts(b, "{unreduced");
		break;
	case XLA__OP_SHARDING__TYPE__MAXIMAL:
		if (s->n_tile_assignment_devices != 1)
			return -1;
		hlo_buf_printf(b, "{maximal device=%" PRId64,
			s->tile_assignment_devices[0]);
		break;
	case XLA__OP_SHARDING__TYPE__OTHER:
		hlo_buf_puts(b, "{devices=[");
		hlo_putints(b, s->tile_assignment_dimensions,
			s->n_tile_assignment_dimensions);
		hlo_buf_put(b, "]", 1);
		if (s->n_iota_reshape_dims) {
			priotatail(b, s->iota_reshape_dims,
				s->n_iota_reshape_dims, s->iota_transpose_perm,
				s->n_iota_transpose_perm);
		} else {
			hlo_putints(b, s->tile_assignment_devices,
				s->n_tile_assignment_devices);
		}
		if (s->replicate_on_last_tile_dim)
			hlo_buf_puts(b, " last_tile_dim_replicate");
		if (s->n_last_tile_dims) {
			hlo_buf_puts(b, " last_tile_dims={");
			for (i = 0; i < s->n_last_tile_dims; i++) {
				const char *nm = hlo_ename(subgroupname,
					NELEM(subgroupname), s->last_tile_dims[i]);

				if (i)
					hlo_buf_put(b, ", ", 2);
				hlo_buf_puts(b, nm ? nm : "error_type.");
			}
			hlo_buf_put(b, "}", 1);
		}
		break;
	default:
		return -1;
	}
	if (s->is_shard_group)
		hlo_buf_printf(b, " shard_%s %" PRId64, s->shard_group_type ==
			XLA__OP_SHARDING__SHARD_GROUP_TYPE__AS ? "as" : "like",
			s->shard_group_id);
	if (s->n_metadata == 1) {
		hlo_buf_puts(b, " metadata={");
		hlo_prmeta(b, s->metadata[0]);
		hlo_buf_put(b, "}", 1);
	} else if (s->n_metadata > 1) {
		hlo_buf_puts(b, " metadata={");
		for (i = 0; i < s->n_metadata; i++) {
			hlo_buf_puts(b, i ? ", {" : "{");
			hlo_prmeta(b, s->metadata[i]);
			hlo_buf_put(b, "}", 1);
		}
		hlo_buf_put(b, "}", 1);
	}
	hlo_buf_put(b, "}", 1);
	return 0;
}

static int32_t *
aint32s(Arena *a, const Vec *v)
{
	int32_t *p = hlo_aallocn(a, v->n + 1, sizeof *p);
	size_t i;

	for (i = 0; i < v->n; i++)
		p[i] = (int32_t)v->v[i];
	return p;
}

/* iota tile assignments, in shardings and replica groups */

/* =[dims] with an optional T(perm) after the '<' (the identity
 * permutation when absent); v is scratch space */
static int
psiota(Lx *l, Arena *a, Vec *v, int64_t **dims, size_t *ndims,
	int32_t **perm, size_t *nperm)
{
	size_t i;

	if (!hlo_lxc(l, '=') || !hlo_lxlist(l, v, '[', ']'))
		return 0;
	*ndims = v->n;
	*dims = hlo_adupvec(a, v->v, v->n);
	if (hlo_lxkw(l, "T")) {
		if (!hlo_lxlist(l, v, '(', ')'))
			return 0;
	} else {
		v->n = 0;
		for (i = 0; i < *ndims; i++)
			hlo_vpush(v, i);
	}
	*nperm = v->n;
	*perm = aint32s(a, v);
	return 1;
}

/* {{...}, {...}}: a tuple of shardings, after the '{' */
static int
pstuple(Lx *l, Arena *a, Xla__OpSharding *s, int depth)
{
	Xla__OpSharding **el = NULL;
	size_t n = 0, cap = 0;
	int ok = 0;

	s->type = XLA__OP_SHARDING__TYPE__TUPLE;
	if (!hlo_lxc(l, '}')) {
		do {
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				el = xreallocarray(el, cap, sizeof *el);
			}
			el[n] = hlo_aalloc(a, sizeof *el[n]);
			if (!hlo_pssharding(l, a, el[n], depth + 1))
				goto out;
			n++;
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}'))
			goto out;
	}
	s->n_tuple_shardings = n;
	s->tuple_shardings = hlo_adupn(a, el, n, sizeof *el);
	ok = 1;
out:
	free(el);
	return ok;
}

/* last_tile_dims={manual, replicated}, after the key */
static int
pssubgroups(Lx *l, Arena *a, Xla__OpSharding *s, Vec *v)
{
	const char *w;
	size_t wn, i;
	int t;

	if (!hlo_lxc(l, '=') || !hlo_lxc(l, '{'))
		return 0;
	v->n = 0;
	do {
		if (!hlo_lxword(l, &w, &wn) || (t = hlo_lookup(subgroupname,
		    NELEM(subgroupname), w, wn)) < 0)
			return 0;
		hlo_vpush(v, t);
	} while (hlo_lxc(l, ','));
	if (!hlo_lxc(l, '}'))
		return 0;
	s->n_last_tile_dims = v->n;
	s->last_tile_dims = hlo_aallocn(a, v->n, sizeof *s->last_tile_dims);
	for (i = 0; i < v->n; i++)
		s->last_tile_dims[i] = v->v[i];
	return 1;
}

/* devices=[2,2]0,1,2,3 or devices=[2,2]<=[4]T(1,0), after the key, with
 * last_tile_dim_replicate and last_tile_dims */
static int
psdevices(Lx *l, Arena *a, Xla__OpSharding *s, Vec *v)
{
	int64_t x;

	s->type = XLA__OP_SHARDING__TYPE__OTHER;
	if (!hlo_lxc(l, '=') || !hlo_lxlist(l, v, '[', ']'))
		return 0;
	s->n_tile_assignment_dimensions = v->n;
	s->tile_assignment_dimensions = hlo_adupvec(a, v->v, v->n);
	if (hlo_lxc(l, '<')) {
		if (!psiota(l, a, v, &s->iota_reshape_dims,
		    &s->n_iota_reshape_dims, &s->iota_transpose_perm,
		    &s->n_iota_transpose_perm))
			return 0;
	} else {
		v->n = 0;
		do {
			if (!hlo_lxint(l, &x))
				return 0;
			hlo_vpush(v, x);
		} while (hlo_lxc(l, ','));
		s->n_tile_assignment_devices = v->n;
		s->tile_assignment_devices = hlo_adupvec(a, v->v, v->n);
	}
	if (hlo_lxkw(l, "last_tile_dim_replicate"))
		s->replicate_on_last_tile_dim = 1;
	return !hlo_lxkw(l, "last_tile_dims") || pssubgroups(l, a, s, v);
}

/* metadata={...} or metadata={{...}, {...}}, after the key */
static int
psshardmeta(Lx *l, Arena *a, Xla__OpSharding *s)
{
	Xla__OpMetadata *md[256];
	size_t n = 0;

	if (!hlo_lxc(l, '=') || !hlo_lxc(l, '{'))
		return 0;
	if (hlo_lxpeek(l, '{')) {
		do {
			if (n == NELEM(md) || !hlo_lxc(l, '{'))
				return 0;
			md[n] = hlo_aalloc(a, sizeof *md[n]);
			xla__op_metadata__init(md[n]);
			if (!hlo_psmeta(l, a, md[n]))
				return 0;
			n++;
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}'))
			return 0;
	} else {
		md[0] = hlo_aalloc(a, sizeof *md[0]);
		xla__op_metadata__init(md[0]);
		if (!hlo_psmeta(l, a, md[0]))
			return 0;
		n = 1;
	}
	s->n_metadata = n;
	s->metadata = hlo_aallocn(a, n, sizeof *md);
	memcpy(s->metadata, md, n * sizeof *md);
	return 1;
}

/* HloSharding::ToString's form into s */
int
hlo_pssharding(Lx *l, Arena *a, Xla__OpSharding *s, int depth)
{
	Vec v = {0};
	int64_t x;
	int ok = 0;

	xla__op_sharding__init(s);
	if (depth > MAXDEPTH || !hlo_lxc(l, '{'))
		goto out;
	if (hlo_lxpeek(l, '{') || hlo_lxpeek(l, '}')) {
		ok = pstuple(l, a, s, depth);
		goto out;
	}
	if (hlo_lxkw(l, "replicated")) {
		s->type = XLA__OP_SHARDING__TYPE__REPLICATED;
	} else if (hlo_lxkw(l, "manual")) {
		s->type = XLA__OP_SHARDING__TYPE__MANUAL;
	} else if (hlo_lxkw(l, "unknown")) {
		s->type = XLA__OP_SHARDING__TYPE__UNKNOWN;
	} else if (hlo_lxkw(l, "unreduced")) {
		s->type = XLA__OP_SHARDING__TYPE__UNREDUCED;
	} else if (hlo_lxkw(l, "maximal")) {
		if (!hlo_lxkw(l, "device") || !hlo_lxc(l, '=') ||
		    !hlo_lxint(l, &x))
			goto out;
		s->type = XLA__OP_SHARDING__TYPE__MAXIMAL;
		s->n_tile_assignment_devices = 1;
		s->tile_assignment_devices = hlo_adupvec(a, &x, 1);
	} else if (!hlo_lxkw(l, "devices") || !psdevices(l, a, s, &v)) {
		goto out;
	}
	if (hlo_lxkw(l, "shard_as")) {
		s->shard_group_type = XLA__OP_SHARDING__SHARD_GROUP_TYPE__AS;
		s->is_shard_group = 1;
	} else if (hlo_lxkw(l, "shard_like")) {
		s->shard_group_type = XLA__OP_SHARDING__SHARD_GROUP_TYPE__LIKE;
		s->is_shard_group = 1;
	}
	if (s->is_shard_group) {
		if (!hlo_lxint(l, &x))
			goto out;
		s->shard_group_id = x;
	}
	if (hlo_lxkw(l, "metadata") && !psshardmeta(l, a, s))
		goto out;
	ok = hlo_lxc(l, '}');
out:
	free(v.v);
	return ok;
}

/* frontend attributes: {key="value",key={json}} */

static int
looksjson(const char *s, size_t n)
{
	return n >= 2 && s[0] == '{' && s[n - 1] == '}';
}

static int
cmpentry(const void *a, const void *b)
{
	const Xla__FrontendAttributes__MapEntry *x = *(void *const *)a;
	const Xla__FrontendAttributes__MapEntry *y = *(void *const *)b;

	return strcmp(x->key, y->key);
}

void
hlo_prfattrs(HloBuf *b, const Xla__FrontendAttributes *fa)
{
	Xla__FrontendAttributes__MapEntry **e;
	size_t i, n = fa->n_map;

	e = xreallocarray(NULL, n + 1, sizeof *e);
	memcpy(e, fa->map, n * sizeof *e);
	qsort(e, n, sizeof *e, cmpentry);
	hlo_buf_put(b, "{", 1);
	for (i = 0; i < n; i++) {
		if (i)
			hlo_buf_put(b, ",", 1);
		hlo_buf_puts(b, e[i]->key);
		hlo_buf_put(b, "=", 1);
		if (looksjson(e[i]->value, strlen(e[i]->value)))
			hlo_buf_puts(b, e[i]->value);
		else
			hlo_print_quoted(b, e[i]->value, strlen(e[i]->value));
	}
	hlo_buf_put(b, "}", 1);
	free(e);
}

int
hlo_psfattrs(Lx *l, Arena *a, Xla__FrontendAttributes *fa)
{
	Xla__FrontendAttributes__MapEntry *e[4096];
	HloBuf t = {0};
	const char *k, *v0;
	size_t n = 0, kn;
	int ok = 0;

	xla__frontend_attributes__init(fa);
	if (!hlo_lxc(l, '{'))
		return 0;
	if (!hlo_lxc(l, '}')) {
		do {
			if (n == NELEM(e) || !hlo_lxword(l, &k, &kn) ||
			    !hlo_lxc(l, '='))
				goto out;
			e[n] = hlo_aalloc(a, sizeof *e[n]);
			xla__frontend_attributes__map_entry__init(e[n]);
			e[n]->key = hlo_astrndup(a, k, kn);
			t.len = 0;
			if (hlo_lxpeek(l, '{')) {
				v0 = l->p;
				if (!hlo_lxskip(l))
					goto out;
				hlo_buf_put(&t, v0, l->p - v0);
			} else if (!hlo_lxstr(l, &t)) {
				goto out;
			}
			if (!(e[n]->value = astrbuf(a, &t)))
				goto out;
			n++;
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}'))
			goto out;
	}
	fa->n_map = n;
	fa->map = hlo_adupn(a, e, n, sizeof *e);
	ok = 1;
out:
	hlo_buf_free(&t);
	return ok;
}

/* collectives: replica groups and source-target pairs */

void
hlo_prgroups(HloBuf *b, Xla__ReplicaGroup **g, size_t n)
{
	size_t i;

	hlo_buf_put(b, "{", 1);
	for (i = 0; i < n; i++) {
		hlo_buf_puts(b, i ? ",{" : "{");
		hlo_putints(b, g[i]->replica_ids, g[i]->n_replica_ids);
		hlo_buf_put(b, "}", 1);
	}
	hlo_buf_put(b, "}", 1);
}

void
hlo_priota(HloBuf *b, const Xla__IotaReplicaGroupListProto *io)
{
	hlo_buf_printf(b, "[%" PRId64 ",%" PRId64 "]",
		io->num_replica_groups, io->num_devices_per_group);
	priotatail(b, io->iota_reshape_dims, io->n_iota_reshape_dims,
		io->iota_transpose_perm, io->n_iota_transpose_perm);
}

int
hlo_psgroups(Lx *l, Arena *a, Xla__HloInstructionProto *ip)
{
	Xla__IotaReplicaGroupListProto *io;
	Xla__ReplicaGroup **g = NULL;
	Vec v = {0};
	size_t n = 0, cap = 0;
	int ok = 0;

	if (hlo_lxpeek(l, '[')) {
		io = hlo_aalloc(a, sizeof *io);
		xla__iota_replica_group_list_proto__init(io);
		if (!hlo_lxlist(l, &v, '[', ']') || v.n != 2)
			goto out;
		io->num_replica_groups = v.v[0];
		io->num_devices_per_group = v.v[1];
		if (!hlo_lxc(l, '<') || !psiota(l, a, &v,
		    &io->iota_reshape_dims, &io->n_iota_reshape_dims,
		    &io->iota_transpose_perm, &io->n_iota_transpose_perm))
			goto out;
		ip->replica_group_list_case = RG_IOTA;
		ip->iota_collective_device_list = io;
		ok = 1;
		goto out;
	}
	if (!hlo_lxc(l, '{'))
		goto out;
	if (!hlo_lxc(l, '}')) {
		do {
			if (!hlo_lxlist(l, &v, '{', '}'))
				goto out;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				g = xreallocarray(g, cap, sizeof *g);
			}
			g[n] = hlo_aalloc(a, sizeof *g[n]);
			xla__replica_group__init(g[n]);
			g[n]->n_replica_ids = v.n;
			g[n]->replica_ids = hlo_adupvec(a, v.v, v.n);
			n++;
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}'))
			goto out;
	}
	ip->n_replica_groups = n;
	ip->replica_groups = hlo_adupn(a, g, n, sizeof *g);
	ok = 1;
out:
	free(v.v);
	free(g);
	return ok;
}

void
hlo_prpairs(HloBuf *b, Xla__SourceTarget **p, size_t n)
{
	size_t i;

	hlo_buf_put(b, "{", 1);
	for (i = 0; i < n; i++)
		hlo_buf_printf(b, "%s{%" PRId64 ",%" PRId64 "}", i ? "," : "",
			p[i]->source, p[i]->target);
	hlo_buf_put(b, "}", 1);
}

int
hlo_pspairs(Lx *l, Arena *a, Xla__HloInstructionProto *ip)
{
	Xla__SourceTarget **p = NULL;
	Vec v = {0};
	size_t n = 0, cap = 0;
	int ok = 0;

	if (!hlo_lxc(l, '{'))
		goto out;
	if (!hlo_lxc(l, '}')) {
		do {
			if (!hlo_lxlist(l, &v, '{', '}') || v.n != 2)
				goto out;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				p = xreallocarray(p, cap, sizeof *p);
			}
			p[n] = hlo_aalloc(a, sizeof *p[n]);
			xla__source_target__init(p[n]);
			p[n]->source = v.v[0];
			p[n]->target = v.v[1];
			n++;
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}'))
			goto out;
	}
	ip->n_source_target_pairs = n;
	ip->source_target_pairs = hlo_adupn(a, p, n, sizeof *p);
	ok = 1;
out:
	free(v.v);
	free(p);
	return ok;
}

/* {default,high} */
int
hlo_psprec(Lx *l, Arena *a, Xla__PrecisionConfig *pc)
{
	const char *w;
	size_t n;
	Vec v = {0};
	int t, ok = 0;
	size_t i;

	if (!hlo_lxc(l, '{'))
		return 0;
	if (!hlo_lxc(l, '}')) {
		do {
			if (!hlo_lxword(l, &w, &n) || (t = hlo_lookup(hlo_precname,
			    NELEM(hlo_precname), w, n)) < 0)
				goto out;
			hlo_vpush(&v, t);
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}'))
			goto out;
	}
	pc->n_operand_precision = v.n;
	pc->operand_precision = hlo_aallocn(a, v.n + 1,
		sizeof *pc->operand_precision);
	for (i = 0; i < v.n; i++)
		pc->operand_precision[i] = v.v[i];
	ok = 1;
out:
	free(v.v);
	return ok;
}

/* output_to_operand_aliasing={{0}: (1, {})} */
void
hlo_pralias(HloBuf *b, Xla__OutputOperandAliasing **v, size_t n)
{
	size_t i;

	hlo_buf_put(b, "{", 1);
	for (i = 0; i < n; i++) {
		hlo_buf_puts(b, i ? ", {" : "{");
		hlo_putints(b, v[i]->output_shape_index,
			v[i]->n_output_shape_index);
		hlo_buf_printf(b, "}: (%" PRId64 ", {", v[i]->operand_index);
		hlo_putints(b, v[i]->operand_shape_index,
			v[i]->n_operand_shape_index);
		hlo_buf_puts(b, "})");
	}
	hlo_buf_put(b, "}", 1);
}

int
hlo_psalias(Lx *l, Arena *a, Xla__HloInstructionProto *ip)
{
	Xla__OutputOperandAliasing **p = NULL;
	Vec v = {0};
	size_t n = 0, cap = 0;
	int64_t x;
	int ok = 0;

	if (!hlo_lxc(l, '{'))
		goto out;
	if (!hlo_lxc(l, '}')) {
		do {
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				p = xreallocarray(p, cap, sizeof *p);
			}
			p[n] = hlo_aalloc(a, sizeof *p[n]);
			xla__output_operand_aliasing__init(p[n]);
			if (!hlo_lxlist(l, &v, '{', '}'))
				goto out;
			p[n]->n_output_shape_index = v.n;
			p[n]->output_shape_index = hlo_adupvec(a, v.v, v.n);
			if (!hlo_lxc(l, ':') || !hlo_lxc(l, '(') || !hlo_lxint(l, &x) ||
			    !hlo_lxc(l, ',') || !hlo_lxlist(l, &v, '{', '}') ||
			    !hlo_lxc(l, ')'))
				goto out;
			p[n]->operand_index = x;
			p[n]->n_operand_shape_index = v.n;
			p[n]->operand_shape_index = hlo_adupvec(a, v.v, v.n);
			n++;
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}'))
			goto out;
	}
	ip->n_output_operand_aliasing = n;
	ip->output_operand_aliasing = hlo_adupn(a, p, n, sizeof *p);
	ok = 1;
out:
	free(v.v);
	free(p);
	return ok;
}

/* convolution dimension numbers as dim_labels=b01f_01io->b01f */

static int
prlabels1(HloBuf *b, int64_t x, char cx, int64_t y, char cy,
	const int64_t *sp, size_t nsp)
{
	char t[16];
	size_t n = nsp + 2, i;

	if (n > sizeof t || nsp > 10)
		return -1;
	memset(t, '?', n);
	if (x < 0 || (size_t)x >= n || y < 0 || (size_t)y >= n)
		return -1;
	t[x] = cx;
	t[y] = cy;
	for (i = 0; i < nsp; i++) {
		if (sp[i] < 0 || (size_t)sp[i] >= n)
			return -1;
		t[sp[i]] = '0' + i;
	}
	hlo_buf_put(b, t, n);
	return 0;
}

int
hlo_prlabels(HloBuf *b, const Xla__ConvolutionDimensionNumbers *d)
{
	if (prlabels1(b, d->input_batch_dimension, 'b',
	    d->input_feature_dimension, 'f', d->input_spatial_dimensions,
	    d->n_input_spatial_dimensions) < 0)
		return -1;
	hlo_buf_put(b, "_", 1);
	if (prlabels1(b, d->kernel_input_feature_dimension, 'i',
	    d->kernel_output_feature_dimension, 'o',
	    d->kernel_spatial_dimensions, d->n_kernel_spatial_dimensions) < 0)
		return -1;
	hlo_buf_put(b, "->", 2);
	return prlabels1(b, d->output_batch_dimension, 'b',
		d->output_feature_dimension, 'f', d->output_spatial_dimensions,
		d->n_output_spatial_dimensions);
}

static int
pslabels1(const char *s, size_t n, char cx, int64_t *x, char cy, int64_t *y,
	Arena *a, int64_t **sp, size_t *nsp)
{
	int64_t pos[10];
	size_t i, k = 0;
	int seen = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == cx && !(seen & 1)) {
			*x = i;
			seen |= 1;
		} else if (s[i] == cy && !(seen & 2)) {
			*y = i;
			seen |= 2;
		} else if (s[i] >= '0' && s[i] <= '9' && (size_t)(s[i] - '0') <
		    n - 2) {
			pos[s[i] - '0'] = i;
			k++;
			if (seen & (4 << (s[i] - '0')))
				return 0;
			seen |= 4 << (s[i] - '0');
		} else {
			return 0;
		}
	}
	if (n < 2 || k != n - 2 || (seen & 3) != 3)
		return 0;
	*nsp = k;
	*sp = hlo_adupvec(a, pos, k);
	return 1;
}

int
hlo_pslabels(const char *s, size_t n, Arena *a, Xla__ConvolutionDimensionNumbers *d)
{
	const char *u = memchr(s, '_', n), *ar;

	if (!u || n - (u - s) < 3)
		return 0;
	for (ar = u; ar + 1 < s + n && !(ar[0] == '-' && ar[1] == '>'); ar++)
		;
	if (ar + 1 >= s + n)
		return 0;
	return pslabels1(s, u - s, 'b', &d->input_batch_dimension, 'f',
		&d->input_feature_dimension, a, &d->input_spatial_dimensions,
		&d->n_input_spatial_dimensions) &&
		pslabels1(u + 1, ar - u - 1, 'i',
		&d->kernel_input_feature_dimension, 'o',
		&d->kernel_output_feature_dimension, a,
		&d->kernel_spatial_dimensions, &d->n_kernel_spatial_dimensions) &&
		pslabels1(ar + 2, s + n - ar - 2, 'b', &d->output_batch_dimension,
		'f', &d->output_feature_dimension, a,
		&d->output_spatial_dimensions, &d->n_output_spatial_dimensions);
}

/* stack frame tables of newer dumps (FileNames ... StackFrames) */

void
hlo_prframes(HloBuf *b, const Xla__StackFrameIndexProto *f)
{
	size_t i;

	hlo_buf_puts(b, "FileNames");
	for (i = 0; i < f->n_file_names; i++) {
		hlo_buf_printf(b, "\n%zu ", i + 1);
		hlo_print_quoted(b, f->file_names[i], strlen(f->file_names[i]));
	}
	hlo_buf_puts(b, "\nFunctionNames");
	for (i = 0; i < f->n_function_names; i++) {
		hlo_buf_printf(b, "\n%zu ", i + 1);
		hlo_print_quoted(b, f->function_names[i], strlen(f->function_names[i]));
	}
	hlo_buf_puts(b, "\nFileLocations");
	for (i = 0; i < f->n_file_locations; i++) {
		const Xla__StackFrameIndexProto__FileLocation *l =
			f->file_locations[i];

		hlo_buf_printf(b, "\n%zu {file_name_id=%d function_name_id=%d "
			"line=%d end_line=%d column=%d end_column=%d}", i + 1,
			l->file_name_id, l->function_name_id, l->line,
			l->end_line, l->column, l->end_column);
	}
	hlo_buf_puts(b, "\nStackFrames");
	for (i = 0; i < f->n_stack_frames; i++)
		hlo_buf_printf(b, "\n%zu {file_location_id=%d parent_frame_id=%"
			PRId64 "}", i + 1, f->stack_frames[i]->file_location_id,
			(int64_t)f->stack_frames[i]->parent_frame_id + 1);
}

static int
psframeint(Lx *l, const char *key, int32_t *v, int off)
{
	int64_t x;

	if (!hlo_lxkw(l, key) || !hlo_lxc(l, '=') || !hlo_lxint(l, &x))
		return 0;
	x -= off;
	if (x < INT32_MIN || x > INT32_MAX)
		return 0;
	*v = (int32_t)x;
	return 1;
}

int
hlo_psframes(const char *s, size_t n, Arena *a, Xla__StackFrameIndexProto *f)
{
	static const char *const sect[] = {"FileNames", "FunctionNames",
		"FileLocations", "StackFrames"};
	Lx l = {s, s + n};
	HloBuf t = {0};
	void **items = NULL;
	size_t ni, cap, k;
	int64_t num;
	int sc, ok = 0;

	xla__stack_frame_index_proto__init(f);
	for (sc = 0; sc < 4; sc++) {
		if (!hlo_lxkw(&l, sect[sc]))
			goto out;
		ni = cap = 0;
		while (hlo_lxint(&l, &num)) {
			if (num != (int64_t)ni + 1)
				goto out;
			if (ni == cap) {
				cap = cap ? 2 * cap : 16;
				items = xreallocarray(items, cap, sizeof *items);
			}
			if (sc < 2) {
				t.len = 0;
				if (!hlo_lxstr(&l, &t) ||
				    !(items[ni] = astrbuf(a, &t)))
					goto out;
			} else if (sc == 2) {
				Xla__StackFrameIndexProto__FileLocation *fl =
					hlo_aalloc(a, sizeof *fl);

				xla__stack_frame_index_proto__file_location__init(
					fl);
				if (!hlo_lxc(&l, '{') ||
				    !psframeint(&l, "file_name_id",
				    &fl->file_name_id, 0) ||
				    !psframeint(&l, "function_name_id",
				    &fl->function_name_id, 0) ||
				    !psframeint(&l, "line", &fl->line, 0) ||
				    !psframeint(&l, "end_line", &fl->end_line, 0) ||
				    !psframeint(&l, "column", &fl->column, 0) ||
				    !psframeint(&l, "end_column", &fl->end_column,
				    0) || !hlo_lxc(&l, '}'))
					goto out;
				items[ni] = fl;
			} else {
				Xla__StackFrameIndexProto__StackFrame *fr =
					hlo_aalloc(a, sizeof *fr);

				xla__stack_frame_index_proto__stack_frame__init(
					fr);
				if (!hlo_lxc(&l, '{') ||
				    !psframeint(&l, "file_location_id",
				    &fr->file_location_id, 0) ||
				    !psframeint(&l, "parent_frame_id",
				    &fr->parent_frame_id, 1) || !hlo_lxc(&l, '}'))
					goto out;
				items[ni] = fr;
			}
			ni++;
		}
		k = ni * sizeof *items;
		switch (sc) {
		case 0:
			f->n_file_names = ni;
			f->file_names = hlo_aalloc(a, k + 1);
			if (k)
				memcpy(f->file_names, items, k);
			break;
		case 1:
			f->n_function_names = ni;
			f->function_names = hlo_aalloc(a, k + 1);
			if (k)
				memcpy(f->function_names, items, k);
			break;
		case 2:
			f->n_file_locations = ni;
			f->file_locations = hlo_aalloc(a, k + 1);
			if (k)
				memcpy(f->file_locations, items, k);
			break;
		default:
			f->n_stack_frames = ni;
			f->stack_frames = hlo_aalloc(a, k + 1);
			if (k)
				memcpy(f->stack_frames, items, k);
			break;
		}
	}
	ok = hlo_lxend(&l);
out:
	free(items);
	hlo_buf_free(&t);
	return ok;
}

/* module header forms */

static void
prindex(HloBuf *b, const int64_t *v, size_t n)
{
	hlo_buf_put(b, "{", 1);
	hlo_putints(b, v, n);
	hlo_buf_put(b, "}", 1);
}

/* input_output_alias={ {0}: (0, {}, may-alias) } */
void
hlo_prioalias(HloBuf *b, const Xla__HloInputOutputAliasProto *io)
{
	size_t i;

	hlo_buf_puts(b, "{ ");
	for (i = 0; i < io->n_entries; i++) {
		const Xla__HloInputOutputAliasProto__AliasEntryProto *e =
			io->entries[i];

		if (i)
			hlo_buf_puts(b, ", ");
		prindex(b, e->output_shape_index, e->n_output_shape_index);
		hlo_buf_printf(b, ": (%" PRId64 ", ", e->parameter_number);
		prindex(b, e->parameter_shape_index, e->n_parameter_shape_index);
		hlo_buf_puts(b, e->kind == XLA__KIND__MUST_ALIAS ?
			", must-alias)" : ", may-alias)");
	}
	hlo_buf_puts(b, " }");
}

int
hlo_psioalias(Lx *l, Arena *a, Xla__HloInputOutputAliasProto *io)
{
	Xla__HloInputOutputAliasProto__AliasEntryProto *e[4096];
	Vec v = {0};
	size_t n = 0;
	int64_t x;
	const char *w;
	size_t wn;
	int ok = 0;

	xla__hlo_input_output_alias_proto__init(io);
	if (!hlo_lxc(l, '{'))
		goto out;
	if (!hlo_lxc(l, '}')) {
		do {
			if (n == NELEM(e))
				goto out;
			e[n] = hlo_aalloc(a, sizeof *e[n]);
			xla__hlo_input_output_alias_proto__alias_entry_proto__init(
				e[n]);
			if (!hlo_lxlist(l, &v, '{', '}'))
				goto out;
			e[n]->n_output_shape_index = v.n;
			e[n]->output_shape_index = hlo_adupvec(a, v.v, v.n);
			if (!hlo_lxc(l, ':') || !hlo_lxc(l, '(') || !hlo_lxint(l, &x) ||
			    !hlo_lxc(l, ',') || !hlo_lxlist(l, &v, '{', '}'))
				goto out;
			e[n]->parameter_number = x;
			e[n]->n_parameter_shape_index = v.n;
			e[n]->parameter_shape_index = hlo_adupvec(a, v.v, v.n);
			e[n]->kind = XLA__KIND__MAY_ALIAS;
			if (hlo_lxc(l, ',')) {
				if (!hlo_lxword(l, &w, &wn))
					goto out;
				if (wn == 10 && !memcmp(w, "must-alias", 10))
					e[n]->kind = XLA__KIND__MUST_ALIAS;
				else if (wn != 9 || memcmp(w, "may-alias", 9))
					goto out;
			}
			if (!hlo_lxc(l, ')'))
				goto out;
			n++;
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}'))
			goto out;
	}
	io->n_entries = n;
	io->entries = hlo_adupn(a, e, n, sizeof *e);
	ok = hlo_lxend(l);
out:
	free(v.v);
	return ok;
}

/* buffer_donor={ (0, {}), (1, {}) } */
void
hlo_prdonor(HloBuf *b, const Xla__HloBufferDonorProto *d)
{
	size_t i;

	hlo_buf_puts(b, "{ ");
	for (i = 0; i < d->n_entries; i++) {
		hlo_buf_printf(b, "%s(%" PRId64 ", ", i ? ", " : "",
			d->entries[i]->parameter_number);
		prindex(b, d->entries[i]->parameter_shape_index,
			d->entries[i]->n_parameter_shape_index);
		hlo_buf_put(b, ")", 1);
	}
	hlo_buf_puts(b, " }");
}

int
hlo_psdonor(Lx *l, Arena *a, Xla__HloBufferDonorProto *d)
{
	Xla__HloBufferDonorProto__BufferDonorEntryProto *e[4096];
	Vec v = {0};
	size_t n = 0;
	int64_t x;
	int ok = 0;

	xla__hlo_buffer_donor_proto__init(d);
	if (!hlo_lxc(l, '{'))
		goto out;
	if (!hlo_lxc(l, '}')) {
		do {
			if (n == NELEM(e))
				goto out;
			e[n] = hlo_aalloc(a, sizeof *e[n]);
			xla__hlo_buffer_donor_proto__buffer_donor_entry_proto__init(
				e[n]);
			if (!hlo_lxc(l, '(') || !hlo_lxint(l, &x) || !hlo_lxc(l, ',') ||
			    !hlo_lxlist(l, &v, '{', '}') || !hlo_lxc(l, ')'))
				goto out;
			e[n]->parameter_number = x;
			e[n]->n_parameter_shape_index = v.n;
			e[n]->parameter_shape_index = hlo_adupvec(a, v.v, v.n);
			n++;
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, '}'))
			goto out;
	}
	d->n_entries = n;
	d->entries = hlo_adupn(a, e, n, sizeof *e);
	ok = hlo_lxend(l);
out:
	free(v.v);
	return ok;
}
