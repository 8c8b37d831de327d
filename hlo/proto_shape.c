/* proto_shape.c: shapes, layouts and literals between the IR and
 * xla.ShapeProto / LayoutProto / LiteralProto, and the shape text form
 * of ShapeUtil::HumanStringWithLayout. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* element types */

static int
typeofproto(int num)
{
	int t;

	for (t = 0; t < TY_COUNT; t++)
		if (hlo_typeinfo[t].proto == num)
			return t;
	return -1;
}

static int
isintegral(int t)
{
	return hlo_typeinfo[t].cls == C_SINT || hlo_typeinfo[t].cls == C_UINT;
}

/* a shape in text form, interned in m */
int
hlo_psshape(Lx *l, HloModule *m, uint32_t *out, int depth)
{
	const char *w, *t0;
	size_t n;
	int ty, dyn;
	int64_t d;
	Vec dims = {0}, m2m = {0};
	uint64_t dynmask = 0;
	uint32_t tail = 0, *el = NULL, nel = 0, cap = 0, s;
	int ok = 0, layout = 0, lvl;
	int64_t zero = 0;

	if (depth > MAXDEPTH)
		return 0;
	if (hlo_lxkw(l, "b")) {
		if (!hlo_lxc(l, '(') || !hlo_psshape(l, m, &s, depth + 1) ||
		    !hlo_lxc(l, ')') || hlo_sh(m, s)->type == TY_TUPLE ||
		    hlo_sh(m, s)->type == TY_BUFFER)
			return 0;
		*out = hlo_shape_buffer(m, s);
		return 1;
	}
	if (hlo_lxc(l, '(')) {
		if (!hlo_lxc(l, ')')) {
			do {
				if (!hlo_psshape(l, m, &s, depth + 1))
					goto out;
				if (nel == cap) {
					cap = cap ? cap * 2 : 8;
					el = xreallocarray(el, cap, sizeof *el);
				}
				el[nel++] = s;
			} while (hlo_lxc(l, ','));
			if (!hlo_lxc(l, ')'))
				goto out;
		}
		*out = hlo_shape_tuple(m, nel, el);
		ok = 1;
		goto out;
	}
	if (!hlo_lxword(l, &w, &n) || (ty = hlo_type_by_name(w, n)) < 0 ||
	    ty == TY_TUPLE || !hlo_lxc(l, '['))
		goto out;
	if (!hlo_lxc(l, ']')) {
		do {
			dyn = 0;
			if (hlo_lxc(l, '<')) {
				if (!hlo_lxc(l, '='))
					goto out;
				dyn = 1;
			}
			if (!dyn && hlo_lxc(l, '?'))
				d = INT64_MIN, dyn = 1;	/* unbounded */
			else if (!hlo_lxint(l, &d))
				goto out;
			if (dyn) {
				if (dims.n >= 64)
					goto out;
				dynmask |= (uint64_t)1 << dims.n;
			}
			hlo_vpush(&dims, d);
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, ']') || dims.n > MAXRANK)
			goto out;
	}
	if (hlo_lxpeek(l, '{')) {
		l->p++;
		layout = 1;
		if (!hlo_lxpeek(l, ':') && !hlo_lxpeek(l, '}')) {
			do {
				if (!hlo_lxint(l, &d))
					goto out;
				hlo_vpush(&m2m, d);
			} while (hlo_lxc(l, ','));
		}
		if (hlo_lxc(l, ':')) {
			t0 = l->p;
			for (lvl = 0; l->p < l->e; l->p++) {
				if (*l->p == '(' || *l->p == '{')
					lvl++;
				else if (*l->p == ')' || (*l->p == '}' && lvl))
					lvl--;
				else if (*l->p == '}')
					break;
			}
			if (l->p == t0)
				goto out;
			tail = hlo_str(m, t0, l->p - t0);
		}
		if (!hlo_lxc(l, '}') || (m2m.n != dims.n))
			goto out;
	}
	*out = hlo_shape(m, ty, (int)dims.n, dims.v,
		layout ? (m2m.v ? m2m.v : &zero) : NULL, dynmask, tail);
	ok = 1;
out:
	free(dims.v);
	free(m2m.v);
	free(el);
	return ok;
}

/* the layout tail after ':' ("T(8,128)(2,1)S(1)") from a LayoutProto, in
 * the order of XLA's Layout::Print */


static const char dltabbrev[] = "DCSH";

/* the private extension of a LayoutProto: 1 = verbatim tail text, 2 =
 * explicit layout on a scalar, 3 = the IR shape has no layout (the proto
 * gets the default one, as XLA's parser would give it) */
static void
layoutext(const Xla__LayoutProto *L, const uint8_t **raw, size_t *nraw,
	int *explicit, int *implicit)
{
	const ProtobufCMessageUnknownField *u;
	const uint8_t *p, *e;
	uint64_t len;
	size_t k;
	unsigned i;
	WField f;

	*raw = NULL;
	*nraw = 0;
	*explicit = 0;
	*implicit = 0;
	for (i = 0; i < L->base.n_unknown_fields; i++) {
		u = &L->base.unknown_fields[i];
		if (u->tag != EXT || u->wire_type != LENPREF)
			continue;
		if (!(k = hlo_getvarint(u->data, u->data + u->len, &len)) ||
		    len != u->len - k)
			continue;
		p = u->data + k;
		e = p + len;
		while (hlo_nextfield(&p, e, &f) > 0) {
			if (f.num == 1 && f.wt == 2) {
				*raw = f.p;
				*nraw = f.n;
			} else if (f.num == 2 && f.wt == 0) {
				*explicit = f.v != 0;
			} else if (f.num == 3 && f.wt == 0) {
				*implicit = f.v != 0;
			}
		}
	}
}

static int
prtail(HloModule *m, const Xla__LayoutProto *L, HloBuf *b, int depth,
	char *why, size_t nwhy)
{
	size_t i, j;
	uint32_t ps;
	int t;

	if (L->n_dim_level_types) {
		hlo_buf_put(b, "D(", 2);
		for (i = 0; i < L->n_dim_level_types; i++) {
			if (i)
				hlo_buf_put(b, ",", 1);
			t = L->dim_level_types[i];
			hlo_buf_put(b, t >= 0 && t < 4 ? &dltabbrev[t] : "?", 1);
			if (i < L->n_dim_unique && !L->dim_unique[i])
				hlo_buf_put(b, "+", 1);
			if (i < L->n_dim_ordered && !L->dim_ordered[i])
				hlo_buf_put(b, "~", 1);
		}
		hlo_buf_put(b, ")", 1);
	}
	if (L->n_tiles)
		hlo_buf_put(b, "T", 1);
	for (i = 0; i < L->n_tiles; i++) {
		hlo_buf_put(b, "(", 1);
		for (j = 0; j < L->tiles[i]->n_dimensions; j++) {
			int64_t d = L->tiles[i]->dimensions[j];

			if (j)
				hlo_buf_put(b, ",", 1);
			if (d == INT64_MIN)
				hlo_buf_put(b, "*", 1);
			else
				hlo_buf_printf(b, "%" PRId64, d);
		}
		hlo_buf_put(b, ")", 1);
	}
	if (L->tail_padding_alignment_in_elements != 0 &&
	    L->tail_padding_alignment_in_elements != 1)
		hlo_buf_printf(b, "L(%" PRId64 ")",
			L->tail_padding_alignment_in_elements);
	if (L->index_primitive_type) {
		t = typeofproto(L->index_primitive_type);
		hlo_buf_printf(b, "#(%s)", t >= 0 && isintegral(t) ?
			hlo_typeinfo[t].name : "invalid");
	}
	if (L->pointer_primitive_type) {
		t = typeofproto(L->pointer_primitive_type);
		hlo_buf_printf(b, "*(%s)", t >= 0 && isintegral(t) ?
			hlo_typeinfo[t].name : "invalid");
	}
	if (L->element_size_in_bits)
		hlo_buf_printf(b, "E(%" PRId64 ")", L->element_size_in_bits);
	if (L->memory_space)
		hlo_buf_printf(b, "S(%" PRId64 ")", L->memory_space);
	if (L->n_split_configs)
		hlo_buf_put(b, "SC", 2);
	for (i = 0; i < L->n_split_configs; i++) {
		hlo_buf_printf(b, "(%" PRId64 ":",
			L->split_configs[i]->dimension);
		hlo_putints(b, L->split_configs[i]->split_indices,
			L->split_configs[i]->n_split_indices);
		hlo_buf_put(b, ")", 1);
	}
	if (L->physical_shape) {
		if (hlo_rdshape(m, L->physical_shape, &ps, depth + 1, why,
		    nwhy) < 0)
			return -1;
		hlo_buf_put(b, "P(", 2);
		hlo_print_shape(m, ps, b);
		hlo_buf_put(b, ")", 1);
	}
	if (L->dynamic_shape_metadata_prefix_bytes > 0)
		hlo_buf_printf(b, "M(%" PRId64 ")",
			L->dynamic_shape_metadata_prefix_bytes);
	return 0;
}

/* ShapeProto -> shape id in m; why gets the reason of a failure */
int
hlo_rdshape(HloModule *m, const Xla__ShapeProto *sp, uint32_t *out, int depth,
	char *why, size_t nwhy)
{
	const Xla__LayoutProto *L;
	HloBuf tb = {0};
	uint32_t *el, tail = 0;
	const uint8_t *raw;
	size_t i, nraw;
	uint64_t dyn = 0;
	int64_t zero = 0;
	int ty, explicit, implicit, r = -1, layout = 0;

	if (!sp) {
		snprintf(why, nwhy, "missing shape");
		return -1;
	}
	if (depth > MAXDEPTH) {
		snprintf(why, nwhy, "shape nested too deep");
		return -1;
	}
	if ((ty = typeofproto(sp->element_type)) < 0 || ty == TY_INVALID) {
		snprintf(why, nwhy, "bad element type %d", sp->element_type);
		return -1;
	}
	if (ty == TY_BUFFER) {
		if (sp->n_tuple_shapes != 1) {
			snprintf(why, nwhy, "buffer shape without its array");
			return -1;
		}
		if (hlo_rdshape(m, sp->tuple_shapes[0], &tail, depth + 1, why,
		    nwhy) < 0)
			return -1;
		if (hlo_sh(m, tail)->type == TY_TUPLE ||
		    hlo_sh(m, tail)->type == TY_BUFFER) {
			snprintf(why, nwhy, "buffer of a non-array shape");
			return -1;
		}
		*out = hlo_shape_buffer(m, tail);
		return 0;
	}
	if (ty == TY_TUPLE) {
		if (sp->n_tuple_shapes > UINT32_MAX / 8) {
			snprintf(why, nwhy, "tuple too large");
			return -1;
		}
		el = xreallocarray(NULL, sp->n_tuple_shapes + 1, sizeof *el);
		for (i = 0; i < sp->n_tuple_shapes; i++)
			if (hlo_rdshape(m, sp->tuple_shapes[i], &el[i], depth + 1,
			    why, nwhy) < 0) {
				free(el);
				return -1;
			}
		*out = hlo_shape_tuple(m, sp->n_tuple_shapes, el);
		free(el);
		return 0;
	}
	if (sp->n_dimensions > MAXRANK) {
		snprintf(why, nwhy, "rank %zu too large", sp->n_dimensions);
		return -1;
	}
	for (i = 0; i < sp->n_is_dynamic_dimension && i < sp->n_dimensions;
	    i++) {
		if (!sp->is_dynamic_dimension[i])
			continue;
		if (i >= 64) {
			snprintf(why, nwhy, "dynamic dimension %zu beyond 63",
				i);
			return -1;
		}
		dyn |= (uint64_t)1 << i;
	}
	if ((L = sp->layout)) {
		if (L->n_minor_to_major && L->n_minor_to_major !=
		    sp->n_dimensions) {
			snprintf(why, nwhy, "layout of %zu dimensions for "
				"rank %zu", L->n_minor_to_major,
				sp->n_dimensions);
			return -1;
		}
		layout = L->n_minor_to_major == sp->n_dimensions;
		layoutext(L, &raw, &nraw, &explicit, &implicit);
		if (raw) {
			hlo_buf_put(&tb, (const char *)raw, nraw);
		} else if (prtail(m, L, &tb, depth, why, nwhy) < 0) {
			hlo_buf_free(&tb);
			return -1;
		}
		if (tb.len)
			tail = hlo_strid(m, tb.buf, tb.len);
		if ((!sp->n_dimensions && !tail && !explicit) || implicit)
			layout = 0;
	}
	*out = hlo_shape(m, ty, (int)sp->n_dimensions, sp->dimensions,
		layout ? (L->minor_to_major ? L->minor_to_major : &zero) :
		NULL, dyn, layout ? tail : 0);
	r = 0;
	hlo_buf_free(&tb);
	return r;
}




static int
pstype(Lx *l, int *proto)
{
	const char *s;
	size_t n;
	int t;

	if (!hlo_lxc(l, '(') || !hlo_lxword(l, &s, &n) ||
	    (t = hlo_type_by_name(s, n)) < 0 || !hlo_lxc(l, ')'))
		return 0;
	*proto = hlo_typeinfo[t].proto;
	return 1;
}

static int
psdlt(Lx *l, Xla__LayoutProto *L, Arena *a)
{
	int t[64], u[64], o[64], anyu = 0, anyo = 0;
	size_t n = 0, i;
	const char *p;

	if (!hlo_lxc(l, '('))
		return 0;
	do {
		hlo_lxws(l);
		if (l->p == l->e || n == 64 ||
		    !(p = memchr(dltabbrev, *l->p, 4)))
			return 0;
		t[n] = p - dltabbrev;
		u[n] = o[n] = 1;
		l->p++;
		if (l->p < l->e && *l->p == '+') {
			u[n] = 0;
			anyu = 1;
			l->p++;
		}
		if (l->p < l->e && *l->p == '~') {
			o[n] = 0;
			anyo = 1;
			l->p++;
		}
		n++;
	} while (hlo_lxc(l, ','));
	if (!hlo_lxc(l, ')'))
		return 0;
	L->n_dim_level_types = n;
	L->dim_level_types = hlo_aallocn(a, n, sizeof *L->dim_level_types);
	for (i = 0; i < n; i++)
		L->dim_level_types[i] = t[i];
	if (anyu) {
		L->n_dim_unique = n;
		L->dim_unique = hlo_abools(a, n);
		for (i = 0; i < n; i++)
			L->dim_unique[i] = u[i];
	}
	if (anyo) {
		L->n_dim_ordered = n;
		L->dim_ordered = hlo_abools(a, n);
		for (i = 0; i < n; i++)
			L->dim_ordered[i] = o[i];
	}
	return 1;
}

static int
pstiles(Lx *l, Xla__LayoutProto *L, Arena *a)
{
	Xla__TileProto *tp[64];
	Vec v = {0};
	size_t n = 0;
	int64_t d;

	while (hlo_lxpeek(l, '(')) {
		l->p++;
		v.n = 0;
		if (n == 64)
			goto bad;
		do {
			if (hlo_lxc(l, '*'))
				d = INT64_MIN;
			else if (!hlo_lxint(l, &d))
				goto bad;
			hlo_vpush(&v, d);
		} while (hlo_lxc(l, ','));
		if (!hlo_lxc(l, ')'))
			goto bad;
		tp[n] = hlo_aalloc(a, sizeof *tp[n]);
		xla__tile_proto__init(tp[n]);
		tp[n]->n_dimensions = v.n;
		tp[n]->dimensions = hlo_adupvec(a, v.v, v.n);
		n++;
	}
	free(v.v);
	if (!n)
		return 0;
	L->n_tiles = n;
	L->tiles = hlo_aallocn(a, n, sizeof *L->tiles);
	memcpy(L->tiles, tp, n * sizeof *tp);
	return 1;
bad:
	free(v.v);
	return 0;
}

static int
pssplit(Lx *l, Xla__LayoutProto *L, Arena *a)
{
	Xla__SplitConfigProto *sc[64];
	Vec v = {0};
	size_t n = 0;
	int64_t d;

	while (hlo_lxpeek(l, '(')) {
		l->p++;
		v.n = 0;
		if (n == 64 || !hlo_lxint(l, &d) || !hlo_lxc(l, ':'))
			goto bad;
		sc[n] = hlo_aalloc(a, sizeof *sc[n]);
		xla__split_config_proto__init(sc[n]);
		sc[n]->dimension = d;
		if (!hlo_lxpeek(l, ')')) {
			do {
				if (!hlo_lxint(l, &d))
					goto bad;
				hlo_vpush(&v, d);
			} while (hlo_lxc(l, ','));
		}
		if (!hlo_lxc(l, ')'))
			goto bad;
		sc[n]->n_split_indices = v.n;
		sc[n]->split_indices = hlo_adupvec(a, v.v, v.n);
		n++;
	}
	free(v.v);
	if (!n)
		return 0;
	L->n_split_configs = n;
	L->split_configs = hlo_aallocn(a, n, sizeof *L->split_configs);
	memcpy(L->split_configs, sc, n * sizeof *sc);
	return 1;
bad:
	free(v.v);
	return 0;
}

/* parses a layout tail into L's fields; 0 if it is not canonical text */
static int
pstail(Wr *w, const char *t, size_t n, Xla__LayoutProto *L, int depth)
{
	Lx l = {t, t + n};
	int64_t v;
	uint32_t ps;

	while (!hlo_lxend(&l)) {
		if (hlo_lxkw(&l, "D")) {
			if (!psdlt(&l, L, &w->a))
				return 0;
		} else if (hlo_lxkw(&l, "T")) {
			if (!pstiles(&l, L, &w->a))
				return 0;
		} else if (hlo_lxkw(&l, "L")) {
			if (!hlo_lxc(&l, '(') || !hlo_lxint(&l, &v) || !hlo_lxc(&l, ')'))
				return 0;
			L->tail_padding_alignment_in_elements = v;
		} else if (hlo_lxc(&l, '#')) {
			if (!pstype(&l, (int *)&L->index_primitive_type))
				return 0;
		} else if (hlo_lxc(&l, '*')) {
			if (!pstype(&l, (int *)&L->pointer_primitive_type))
				return 0;
		} else if (hlo_lxkw(&l, "E")) {
			if (!hlo_lxc(&l, '(') || !hlo_lxint(&l, &v) || !hlo_lxc(&l, ')'))
				return 0;
			L->element_size_in_bits = v;
		} else if (hlo_lxkw(&l, "SC")) {
			if (!pssplit(&l, L, &w->a))
				return 0;
		} else if (hlo_lxkw(&l, "S")) {
			if (!hlo_lxc(&l, '(') || !hlo_lxint(&l, &v) || !hlo_lxc(&l, ')'))
				return 0;
			L->memory_space = v;
		} else if (hlo_lxkw(&l, "P")) {
			if (depth > 8 || !hlo_lxc(&l, '(') ||
			    !hlo_psshape(&l, w->s, &ps, depth + 1) ||
			    !hlo_lxc(&l, ')'))
				return 0;
			L->physical_shape = hlo_wrshape(w, w->s, ps, 0);
		} else if (hlo_lxkw(&l, "M")) {
			if (!hlo_lxc(&l, '(') || !hlo_lxint(&l, &v) || !hlo_lxc(&l, ')'))
				return 0;
			L->dynamic_shape_metadata_prefix_bytes = v;
		} else {
			return 0;
		}
	}
	return 1;
}

static Xla__LayoutProto *
wrlayout(Wr *w, const HloModule *mm, const HloShape *sh, int deflayout)
{
	Xla__LayoutProto *L = hlo_aalloc(&w->a, sizeof *L);
	const char *tail = sh->tail ? hlo_cstr(mm, sh->tail) : NULL;
	HloBuf x = {0}, c = {0};
	char why[64];
	int ok;
	uint32_t i;

	xla__layout_proto__init(L);
	L->n_minor_to_major = sh->rank;
	L->minor_to_major = hlo_aallocn(&w->a, sh->rank + 1, sizeof(int64_t));
	for (i = 0; i < sh->rank; i++)
		L->minor_to_major[i] = (sh->flags & SH_LAYOUT) ?
			mm->ints[sh->dims + sh->rank + i] : sh->rank - 1 - i;
	L->tail_padding_alignment_in_elements = 1;
	if (tail) {
		ok = pstail(w, tail, strlen(tail), L, 0);
		if (ok) {
			ok = prtail(w->s, L, &c, 0, why, sizeof why) == 0 &&
				c.len == strlen(tail) &&
				!memcmp(c.buf, tail, c.len);
		}
		if (!ok)
			hlo_putlenfield(&x, 1, tail, strlen(tail));
	}
	if (!sh->rank && (sh->flags & SH_LAYOUT) && !tail) {
		hlo_puttag(&x, 2, 0);
		hlo_putvarint(&x, 1);
	}
	if (sh->rank && !(sh->flags & SH_LAYOUT) && !deflayout) {
		hlo_puttag(&x, 3, 0);
		hlo_putvarint(&x, 1);
	}
	if (x.len)
		hlo_addext(&w->a, &L->base, &x);
	hlo_buf_free(&x);
	hlo_buf_free(&c);
	return L;
}

/* shape s of module mm; deflayout gives arrays without a layout the
 * default one (literal shapes need a layout) */
Xla__ShapeProto *
hlo_wrshape(Wr *w, const HloModule *mm, uint32_t s, int deflayout)
{
	const HloShape *sh = hlo_sh(mm, s);
	Xla__ShapeProto *sp;
	uint32_t i, n;

	if (mm == w->m && !deflayout && w->shcache[s])
		return w->shcache[s];
	sp = hlo_aalloc(&w->a, sizeof *sp);
	xla__shape_proto__init(sp);
	sp->element_type = hlo_typeinfo[sh->type].proto;
	if (sh->type == TY_TUPLE || sh->type == TY_BUFFER) {
		n = sh->ntuple;
		sp->n_tuple_shapes = n;
		sp->tuple_shapes = hlo_aallocn(&w->a, n + 1,
			sizeof *sp->tuple_shapes);
		for (i = 0; i < n; i++)
			sp->tuple_shapes[i] = hlo_wrshape(w, mm,
				mm->ids[sh->tuple + i], deflayout);
	} else {
		sp->n_dimensions = sh->rank;
		sp->dimensions = hlo_adupvec(&w->a, mm->ints + sh->dims, sh->rank);
		if (sh->type != TY_TOKEN && sh->type != TY_OPAQUE) {
			sp->n_is_dynamic_dimension = sh->rank;
			sp->is_dynamic_dimension = hlo_abools(&w->a, sh->rank);
			for (i = 0; i < sh->rank && i < 64; i++)
				sp->is_dynamic_dimension[i] =
					sh->dynmask >> i & 1;
		}
		if (sh->type != TY_TOKEN && sh->type != TY_OPAQUE)
			sp->layout = wrlayout(w, mm, sh, deflayout);
	}
	if (mm == w->m && !deflayout)
		w->shcache[s] = sp;
	return sp;
}

/* literals: the IR keeps elements in row-major (logical) order, protos
 * in the physical order of the literal shape's layout */

/* perm[logical index] = physical index, or NULL when they agree */
static int64_t *
physperm(int rank, const int64_t *dims, const int64_t *m2m, int64_t n)
{
	int64_t *stride, *idx, *perm = NULL, phys, i;
	int d, k;
	uint8_t *seen;

	if (!m2m || rank < 2 || n <= 1)
		return NULL;
	for (k = 0; k < rank && m2m[k] == rank - 1 - k; k++)
		;
	if (k == rank)
		return NULL;
	seen = xcalloc(rank, 1);
	stride = xreallocarray(NULL, rank, sizeof *stride);
	idx = xcalloc(rank, sizeof *idx);
	for (k = 0; k < rank; k++)
		if (m2m[k] < 0 || m2m[k] >= rank || seen[m2m[k]]++)
			goto out;
	for (k = 0; k < rank; k++)
		stride[m2m[k]] = k ? stride[m2m[k - 1]] * dims[m2m[k - 1]] : 1;
	perm = xreallocarray(NULL, n, sizeof *perm);
	for (i = 0; i < n; i++) {
		for (phys = 0, d = 0; d < rank; d++)
			phys += idx[d] * stride[d];
		perm[i] = phys;
		hlo_index_next(idx, dims, rank);
	}
out:
	free(seen);
	free(stride);
	free(idx);
	return perm;
}

static void
putle(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

static uint64_t
getle(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* the bytes field of sub-word types in a LiteralProto */
static ProtobufCBinaryData *
litbytes(Xla__LiteralProto *lp, int ty)
{
	switch (ty) {
	case TY_S1: return &lp->s1s;
	case TY_S2: return &lp->s2s;
	case TY_S4: return &lp->s4s;
	case TY_S8: return &lp->s8s;
	case TY_U1: return &lp->u1s;
	case TY_U2: return &lp->u2s;
	case TY_U4: return &lp->u4s;
	case TY_U8: return &lp->u8s;
	case TY_S16: return &lp->s16s;
	case TY_U16: return &lp->u16s;
	case TY_F16: return &lp->f16s;
	case TY_BF16: return &lp->bf16s;
	case TY_F8E5M2: return &lp->f8e5m2s;
	case TY_F8E4M3: return &lp->f8e4m3s;
	case TY_F8E4M3FN: return &lp->f8e4m3fns;
	case TY_F8E4M3B11FNUZ: return &lp->f8e4m3b11fnuzs;
	case TY_F8E3M4: return &lp->f8e3m4s;
	case TY_F8E5M2FNUZ: return &lp->f8e5m2fnuzs;
	case TY_F8E4M3FNUZ: return &lp->f8e4m3fnuzs;
	case TY_F4E2M1FN: return &lp->f4e2m1fns;
	case TY_F8E8M0FNU: return &lp->f8e8m0fnus;
	case TY_F6E3M2FN: return &lp->f6e3m2fns;
	case TY_F6E2M3FN: return &lp->f6e2m3fns;
	default: return NULL;
	}
}

static void
cpy(void *d, const void *s, size_t n)
{
	if (n)
		memcpy(d, s, n);
}

/* the n elements of array literal lp (type ty) in its physical order
 * into phys; *have gets the count the literal holds. -1 when that count
 * is wrong, -2 when lp has no field for ty */
static int
rdelems(const Xla__LiteralProto *lp, int ty, int64_t n, uint8_t *phys,
	size_t *have)
{
	Xla__LiteralProto *l = (Xla__LiteralProto *)lp;
	ProtobufCBinaryData *bd;
	int esz = hlo_type_bytes(ty), bits = hlo_typeinfo[ty].bits;
	size_t need;
	int64_t i;
	uint64_t v;

	switch (ty) {
	case TY_PRED:
		if ((*have = lp->n_preds) != (size_t)n)
			return -1;
		for (i = 0; i < n; i++)
			phys[i] = lp->preds[i] != 0;
		return 0;
	case TY_S32: case TY_U32:
		*have = ty == TY_S32 ? lp->n_s32s : lp->n_u32s;
		if (*have != (size_t)n)
			return -1;
		for (i = 0; i < n; i++)
			putle(phys + 4 * i, ty == TY_S32 ?
				(uint32_t)lp->s32s[i] : lp->u32s[i], 4);
		return 0;
	case TY_S64: case TY_U64:
		*have = ty == TY_S64 ? lp->n_s64s : lp->n_u64s;
		if (*have != (size_t)n)
			return -1;
		for (i = 0; i < n; i++)
			putle(phys + 8 * i, ty == TY_S64 ?
				(uint64_t)lp->s64s[i] : lp->u64s[i], 8);
		return 0;
	case TY_F32:
		if ((*have = lp->n_f32s) != (size_t)n)
			return -1;
		cpy(phys, lp->f32s, n * 4);
		return 0;
	case TY_F64:
		if ((*have = lp->n_f64s) != (size_t)n)
			return -1;
		cpy(phys, lp->f64s, n * 8);
		return 0;
	case TY_C64:
		if ((*have = lp->n_c64s) != (size_t)n * 2)
			return -1;
		cpy(phys, lp->c64s, n * 8);
		return 0;
	case TY_C128:
		if ((*have = lp->n_c128s) != (size_t)n * 2)
			return -1;
		cpy(phys, lp->c128s, n * 16);
		return 0;
	default:
		break;
	}
	if (!(bd = litbytes(l, ty)))
		return -2;
	*have = bd->len;
	need = (size_t)n * esz;
	if (*have == need) {
		cpy(phys, bd->data, need);
	} else if (bits < 8 && n > 1 && *have == ((size_t)n * bits + 7) / 8) {
		/* packed sub-byte elements, low bits first */
		for (i = 0; i < n; i++) {
			v = bd->data[i * bits / 8] >> (i * bits % 8) &
				((1u << bits) - 1);
			if (hlo_typeinfo[ty].cls == C_SINT &&
			    (v >> (bits - 1) & 1))
				v |= ~(uint64_t)0 << bits;
			phys[i] = (uint8_t)v;
		}
	} else {
		return -1;
	}
	return 0;
}

/* appends the elements of literal lp (for shape s of m) to out */
int
hlo_rdlit(HloModule *m, const Xla__LiteralProto *lp, uint32_t s, HloBuf *out,
	int depth, char *why, size_t nwhy)
{
	const HloShape *sh = hlo_sh(m, s);
	const Xla__LayoutProto *L;
	int64_t n, i, *perm = NULL;
	int ty = sh->type, esz, rank = sh->rank, r;
	size_t have = 0, k;
	uint8_t *phys, *dst;
	uint32_t nt = sh->ntuple;

	if (depth > MAXDEPTH) {
		snprintf(why, nwhy, "literal nested too deep");
		return -1;
	}
	if (ty == TY_TUPLE) {
		if (lp->n_tuple_literals != nt) {
			snprintf(why, nwhy, "tuple literal has %zu elements, "
				"shape has %u", lp->n_tuple_literals, nt);
			return -1;
		}
		for (k = 0; k < nt; k++)
			if (hlo_rdlit(m, lp->tuple_literals[k],
			    m->ids[hlo_sh(m, s)->tuple + k], out, depth + 1,
			    why, nwhy) < 0)
				return -1;
		return 0;
	}
	if (ty == TY_TOKEN || ty == TY_OPAQUE || ty == TY_BUFFER)
		return 0;
	if ((n = hlo_shape_elems(m, s)) < 0 || n > INT64_C(1) << 34) {
		snprintf(why, nwhy, "literal too large");
		return -1;
	}
	esz = hlo_type_bytes(ty);
	phys = xmalloc(n * esz + 1);
	if ((r = rdelems(lp, ty, n, phys, &have)) < 0) {
		if (r == -2)
			snprintf(why, nwhy, "literal of type %s",
				hlo_typeinfo[ty].name);
		else
			snprintf(why, nwhy, "literal has %zu values for %"
				PRId64 " elements of %s", have, n,
				hlo_typeinfo[ty].name);
		free(phys);
		return -1;
	}
	L = lp->shape ? lp->shape->layout : NULL;
	if (L && L->n_minor_to_major == (size_t)rank)
		perm = physperm(rank, m->ints + sh->dims, L->minor_to_major,
			n);
	hlo_buf_put(out, (char *)phys, n * esz);
	if (perm) {
		dst = (uint8_t *)out->buf + out->len - n * esz;
		for (i = 0; i < n; i++)
			memcpy(dst + i * esz, phys + perm[i] * esz, esz);
	}
	free(perm);
	free(phys);
	return 0;
}

Xla__LiteralProto *
hlo_wrlit(Wr *w, uint32_t s, const uint8_t *b, size_t nb, size_t *pos,
	int depth)
{
	const HloModule *m = w->m;
	const HloShape *sh = hlo_sh(m, s);
	Xla__LiteralProto *lp = hlo_aalloc(&w->a, sizeof *lp);
	ProtobufCBinaryData *bd;
	int64_t n, i, *perm = NULL;
	int ty = sh->type, esz;
	uint8_t *phys;
	const uint8_t *src;
	uint32_t k;

	xla__literal_proto__init(lp);
	lp->shape = hlo_wrshape(w, m, s, 1);
	if (ty == TY_TUPLE) {
		lp->n_tuple_literals = sh->ntuple;
		lp->tuple_literals = hlo_aallocn(&w->a, sh->ntuple + 1,
			sizeof *lp->tuple_literals);
		for (k = 0; k < sh->ntuple; k++)
			if (!(lp->tuple_literals[k] = hlo_wrlit(w,
			    m->ids[hlo_sh(m, s)->tuple + k], b, nb, pos,
			    depth + 1)))
				return NULL;
		return lp;
	}
	if (ty == TY_TOKEN || ty == TY_OPAQUE || ty == TY_BUFFER)
		return lp;
	esz = hlo_type_bytes(ty);
	if ((n = hlo_shape_elems(m, s)) < 0 || (uint64_t)n * esz >
	    nb - *pos)
		return NULL;
	src = b + *pos;
	*pos += n * esz;
	phys = hlo_aallocn(&w->a, n * esz + 1, 1);
	if (sh->flags & SH_LAYOUT)
		perm = physperm(sh->rank, m->ints + sh->dims,
			m->ints + sh->dims + sh->rank, n);
	if (perm) {
		for (i = 0; i < n; i++)
			memcpy(phys + perm[i] * esz, src + i * esz, esz);
		free(perm);
	} else if (n) {
		memcpy(phys, src, n * esz);
	}
	switch (ty) {
	case TY_PRED:
		lp->n_preds = n;
		lp->preds = hlo_abools(&w->a, n);
		for (i = 0; i < n; i++)
			lp->preds[i] = phys[i] != 0;
		break;
	case TY_S32:
		lp->n_s32s = n;
		lp->s32s = hlo_aallocn(&w->a, n + 1, 4);
		for (i = 0; i < n; i++)
			lp->s32s[i] = (int32_t)getle(phys + 4 * i, 4);
		break;
	case TY_U32:
		lp->n_u32s = n;
		lp->u32s = hlo_aallocn(&w->a, n + 1, 4);
		for (i = 0; i < n; i++)
			lp->u32s[i] = (uint32_t)getle(phys + 4 * i, 4);
		break;
	case TY_S64:
		lp->n_s64s = n;
		lp->s64s = hlo_aallocn(&w->a, n + 1, 8);
		for (i = 0; i < n; i++)
			lp->s64s[i] = (int64_t)getle(phys + 8 * i, 8);
		break;
	case TY_U64:
		lp->n_u64s = n;
		lp->u64s = hlo_aallocn(&w->a, n + 1, 8);
		for (i = 0; i < n; i++)
			lp->u64s[i] = getle(phys + 8 * i, 8);
		break;
	case TY_F32:
		lp->n_f32s = n;
		lp->f32s = (float *)phys;
		break;
	case TY_F64:
		lp->n_f64s = n;
		lp->f64s = (double *)phys;
		break;
	case TY_C64:
		lp->n_c64s = 2 * n;
		lp->c64s = (float *)phys;
		break;
	case TY_C128:
		lp->n_c128s = 2 * n;
		lp->c128s = (double *)phys;
		break;
	default:
		if (!(bd = litbytes(lp, ty)))
			return NULL;
		bd->len = n * esz;
		bd->data = phys;
		break;
	}
	return lp;
}
