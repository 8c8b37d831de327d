/* check_proto.c: binary HloModuleProto reading and writing: exact round
 * trips of hand-built modules, every corpus .pb, text -> proto -> text
 * over data/ and the corpus, truncated and random input, wrappers,
 * format sniffing, and protoc --decode against our .proto files */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hlo.h"

/* structural equality of two modules, dead instructions skipped */

static int
shapeeq(const HloModule *a, uint32_t x, const HloModule *b, uint32_t y)
{
	const HloShape *s = hlo_sh(a, x), *t = hlo_sh(b, y);
	uint32_t i;

	if (s->type != t->type || s->flags != t->flags || s->rank != t->rank ||
	    s->ntuple != t->ntuple || s->dynmask != t->dynmask)
		return 0;
	if (strcmp(s->tail ? hlo_cstr(a, s->tail) : "",
	    t->tail ? hlo_cstr(b, t->tail) : ""))
		return 0;
	for (i = 0; i < s->ntuple; i++)
		if (!shapeeq(a, a->ids[s->tuple + i], b, b->ids[t->tuple + i]))
			return 0;
	for (i = 0; i < (s->flags & SH_LAYOUT ? 2u : 1u) * s->rank; i++)
		if (a->ints[s->dims + i] != b->ints[t->dims + i])
			return 0;
	return 1;
}

static int
attreq(const HloModule *a, const HloAttr *x, const HloModule *b,
	const HloAttr *y)
{
	if (x->key != y->key || x->kind != y->kind || x->n != y->n)
		return 0;
	if (x->key == A_OTHER && strcmp(hlo_cstr(a, x->name),
	    hlo_cstr(b, y->name)))
		return 0;
	switch (x->kind) {
	case K_INT:
	case K_BOOL:
		return x->v == y->v;
	case K_INTS:
	case K_SLICE:
	case K_PAD:
	case K_WINDOW:
		return !x->n || !memcmp(a->ints + x->v, b->ints + y->v,
			x->n * 8u);
	default:
		if (x->v == HLO_ELIDED || y->v == HLO_ELIDED)
			return x->v == y->v;
		return !x->n || !memcmp(a->bytes + x->v, b->bytes + y->v, x->n);
	}
}

/* live index of each instruction */
static uint32_t *
liveidx(const HloComp *cp, uint32_t *n)
{
	uint32_t *v = malloc((cp->nins + 1) * sizeof *v), i, k = 0;

	for (i = 0; i < cp->nins; i++)
		v[i] = cp->ins[i].flags & HI_DEAD ? UINT32_MAX : k++;
	*n = k;
	return v;
}

static int
refseq(const HloModule *a, const uint32_t *x, const uint32_t *la,
	const HloModule *b, const uint32_t *y, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (la[a->ids[x[0] + k]] != b->ids[y[0] + k])
			return 0;
	return 1;
}

static int
compeq(const HloModule *a, uint32_t ca, const HloModule *b, uint32_t cb,
	char *why)
{
	const HloComp *p = &a->comps[ca], *q = &b->comps[cb];
	uint32_t n, i, j = 0, k, *la = liveidx(p, &n);
	const HloInstr *x, *y;
	int ok = 0;

	if (strcmp(hlo_cstr(a, p->name), hlo_cstr(b, q->name)) ||
	    p->flags != q->flags || n != q->nins || la[p->root] != q->root ||
	    strcmp(hlo_cstr(a, p->thread), hlo_cstr(b, q->thread))) {
		sprintf(why, "computation %s differs", hlo_cstr(a, p->name));
		goto out;
	}
	for (i = 0; i < p->nins; i++) {
		x = &p->ins[i];
		if (x->flags & HI_DEAD)
			continue;
		y = &q->ins[j++];
		sprintf(why, "%s: %s", hlo_cstr(a, p->name),
			hlo_cstr(a, x->name));
		if (x->op != y->op || (x->flags & ~HI_DEAD) != y->flags ||
		    strcmp(hlo_cstr(a, x->name), hlo_cstr(b, y->name)) ||
		    !shapeeq(a, x->shape, b, y->shape) || x->nops != y->nops ||
		    x->ncalled != y->ncalled || x->nctrl != y->nctrl ||
		    x->nattrs != y->nattrs ||
		    (x->op == HOP_PARAMETER && x->num != y->num))
			goto out;
		if (!refseq(a, &x->ops, la, b, &y->ops, x->nops) ||
		    !refseq(a, &x->ctrl, la, b, &y->ctrl, x->nctrl))
			goto out;
		for (k = 0; k < x->ncalled; k++)
			if (a->ids[x->called + k] != b->ids[y->called + k])
				goto out;
		for (k = 0; k < x->nattrs; k++)
			if (!attreq(a, &a->attrv[x->attrs + k], b,
			    &b->attrv[y->attrs + k])) {
				sprintf(why, "%s: %s: attribute %u (%s)",
					hlo_cstr(a, p->name), hlo_cstr(a, x->name),
					k, hlo_attrinfo[a->attrv[x->attrs + k].key].key);
				goto out;
			}
	}
	ok = 1;
out:
	free(la);
	return ok;
}

static int
moduleeq(const HloModule *a, const HloModule *b, char *why)
{
	uint32_t c, k;

	strcpy(why, "module header");
	if (strcmp(hlo_cstr(a, a->name), hlo_cstr(b, b->name)) ||
	    a->entry != b->entry || a->ncomps != b->ncomps ||
	    a->nhattrs != b->nhattrs ||
	    strcmp(hlo_cstr(a, a->frames), hlo_cstr(b, b->frames)))
		return 0;
	for (k = 0; k < a->nhattrs; k++)
		if (!attreq(a, &a->attrv[a->hattrs + k], b,
		    &b->attrv[b->hattrs + k]))
			return 0;
	for (c = 0; c < a->ncomps; c++)
		if (!compeq(a, c, b, c, why))
			return 0;
	return 1;
}

/* write m, read it back, compare; write again: same bytes */
static HloModule *
roundtrip(const HloModule *m, HloBuf *p)
{
	HloModule *r;
	HloBuf q = {0};
	HloError e;
	char why[512];

	ck_assert_msg(hlo_write_proto(m, p, &e) == 0, "%s", e.msg);
	ck_assert_msg(hlo_read_proto(p->buf, p->len, "rt", &r, &e) == 0, "%s",
		e.msg);
	ck_assert_msg(moduleeq(m, r, why), "round trip differs: %s", why);
	ck_assert_int_eq(hlo_write_proto(r, &q, &e), 0);
	ck_assert_msg(q.len == p->len && !memcmp(q.buf, p->buf, q.len),
		"second write differs");
	hlo_buf_free(&q);
	return r;
}

/* building modules by hand */

static uint32_t
arr(HloModule *m, int ty, int rank, const int64_t *d, const int64_t *l)
{
	return hlo_shape(m, ty, rank, d, l, 0, 0);
}

static HloAttr
text(HloModule *m, int key, const char *s)
{
	return hlo_mk_bytes(m, key, hlo_attrinfo[key].kind, s, strlen(s));
}

static HloAttr
other(HloModule *m, const char *name, const char *s)
{
	HloAttr a = hlo_mk_bytes(m, A_OTHER, K_RAW, s, strlen(s));

	a.name = hlo_strz(m, name);
	return a;
}

static uint32_t
ins(HloModule *m, uint32_t c, int op, uint32_t shape, const char *name,
	uint32_t n, const uint32_t *ops, uint32_t na, const HloAttr *a)
{
	uint32_t i = hlo_instr_add(m, c, op, shape, hlo_strz(m, name), n, ops);

	if (na)
		hlo_set_attrs(m, c, i, na, a);
	return i;
}

static uint32_t
scalarcomp(HloModule *m, const char *name, int op)
{
	uint32_t c = hlo_comp_add(m, hlo_strz(m, name)), p[2];
	uint32_t f = hlo_shape_scalar(m, TY_F32);
	char b[64];

	snprintf(b, sizeof b, "%s.x", name);
	p[0] = ins(m, c, HOP_PARAMETER, f, b, 0, NULL, 0, NULL);
	snprintf(b, sizeof b, "%s.y", name);
	p[1] = ins(m, c, HOP_PARAMETER, f, b, 0, NULL, 0, NULL);
	hlo_ins(m, c, p[1])->num = 1;
	snprintf(b, sizeof b, "%s.r", name);
	m->comps[c].root = ins(m, c, op, f, b, 2, p, 0, NULL);
	return c;
}

static void
header(HloModule *m, const char *const *kv, uint32_t n)
{
	HloAttr a[16];
	uint32_t k;

	for (k = 0; k < n; k++)
		a[k] = other(m, kv[2 * k], kv[2 * k + 1]);
	m->attrv = realloc(m->attrv, (m->nattrv + n) * sizeof *m->attrv);
	m->capattrv = m->nattrv + n;
	memcpy(m->attrv + m->nattrv, a, n * sizeof *a);
	m->hattrs = m->nattrv;
	m->nhattrs = n;
	m->nattrv += n;
}

/* kitchen's constants: every literal form (float, bf16, s4, pred,
 * complex, tuple, elided) */
static void
kitchen_constants(HloModule *m, uint32_t e, uint32_t fs)
{
	int64_t d23[2] = {2, 3}, l01[2] = {0, 1}, d3 = 3, d5 = 5, d2 = 2;
	int64_t d100 = 100;
	float f6[6] = {1, 2, 3, 4, 5, 6.5f};
	unsigned char bf[6] = {0x80, 0x3f, 0, 0x40, 0x40, 0x40};
	signed char s4[5] = {-8, -1, 0, 1, 7};
	unsigned char pr[2] = {1, 0}, tl[12];
	float cx[2] = {1.5f, -2};
	uint32_t t[2];
	HloAttr a[1];

	a[0] = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, f6, 24);
	ins(m, e, HOP_CONSTANT, arr(m, TY_F32, 2, d23, l01), "c0", 0, NULL,
		1, a);
	a[0] = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, bf, 6);
	ins(m, e, HOP_CONSTANT, arr(m, TY_BF16, 1, &d3, NULL), "c1", 0, NULL,
		1, a);
	a[0] = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, s4, 5);
	ins(m, e, HOP_CONSTANT, arr(m, TY_S4, 1, &d5, &(int64_t){0}), "c2", 0,
		NULL, 1, a);
	a[0] = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, pr, 2);
	ins(m, e, HOP_CONSTANT, arr(m, TY_PRED, 1, &d2, NULL), "c3", 0, NULL,
		1, a);
	a[0] = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, cx, 8);
	ins(m, e, HOP_CONSTANT, hlo_shape_scalar(m, TY_C64), "c4", 0, NULL, 1,
		a);
	t[0] = fs;
	t[1] = arr(m, TY_S32, 1, &d2, NULL);
	memcpy(tl, f6, 4);
	memcpy(tl + 4, "\1\0\0\0\2\0\0\0", 8);
	a[0] = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, tl, 12);
	ins(m, e, HOP_CONSTANT, hlo_shape_tuple(m, 2, t), "c5", 0, NULL, 1, a);
	a[0] = hlo_mk_int(A_LITERAL, 0);
	a[0].kind = K_LITERAL;
	a[0].v = HLO_ELIDED;
	ins(m, e, HOP_CONSTANT, arr(m, TY_F32, 1, &d100, NULL), "c6", 0, NULL,
		1, a);
}

/* a computation whose array order is not topological */
static void
kitchen_late(HloModule *m, uint32_t f)
{
	uint32_t i, q, ops[2];

	i = hlo_comp_add(m, hlo_strz(m, "late"));
	ops[0] = 1;
	ops[1] = 2;
	m->comps[i].root = ins(m, i, HOP_ADD, f, "late.sum", 2, ops, 0, NULL);
	ins(m, i, HOP_PARAMETER, f, "late.x", 0, NULL, 0, NULL);
	q = ins(m, i, HOP_PARAMETER, f, "late.y", 0, NULL, 0, NULL);
	hlo_ins(m, i, q)->num = 1;
}

/* kitchen's while loop: a condition i < i and an identity body over
 * the state w = (f32[4,8], s32[]) */
static void
kitchen_loop(HloModule *m, uint32_t w, uint32_t s32, uint32_t pred,
	uint32_t *condp, uint32_t *bodyp)
{
	uint32_t cond, body, q, i, ops[2];
	HloAttr a[1];

	cond = hlo_comp_add(m, hlo_strz(m, "cond"));
	q = ins(m, cond, HOP_PARAMETER, w, "cond.p", 0, NULL, 0, NULL);
	a[0] = hlo_mk_int(A_INDEX, 1);
	i = ins(m, cond, HOP_GTE, s32, "cond.i", 1, &q, 1, a);
	a[0] = text(m, A_DIRECTION, "LT");
	ops[0] = i;
	ops[1] = i;
	m->comps[cond].root = ins(m, cond, HOP_COMPARE, pred, "cond.lt", 2,
		ops, 1, a);
	body = hlo_comp_add(m, hlo_strz(m, "body"));
	q = ins(m, body, HOP_PARAMETER, w, "body.p", 0, NULL, 0, NULL);
	m->comps[body].root = q;
	*condp = cond;
	*bodyp = body;
}

static HloModule *
kitchen(void)
{
	HloModule *m = hlo_module_new();
	int64_t d48[2] = {4, 8}, l10[2] = {1, 0};
	int64_t d1481[4] = {1, 4, 8, 1}, l4[4] = {3, 2, 1, 0};
	int64_t d44[2] = {4, 4}, d4 = 4, dims01[2] = {0, 1}, one = 1;
	int64_t sl[6] = {0, 4, 2, 0, 8, 1}, pad[6] = {1, 1, 0, 0, 0, 0};
	int64_t win[14] = {3, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0};
	uint32_t add, cond, body, br0, br1, e, f, fs, s32, pred, sh48;
	uint32_t p0, p1, zero, ops[4], t[4], w, q, i, lay;

	HloAttr a[8];
	static const char *const hdr[] = {
		"is_scheduled", "true",
		"entry_computation_layout",
		"{(f32[4,8]{1,0}, s32[])->(f32[4,8]{1,0}, s32[])}",
		"replica_count", "2",
	};

	m->name = hlo_strz(m, "kitchen");
	add = scalarcomp(m, "add", HOP_ADD);
	br0 = scalarcomp(m, "br0", HOP_MUL);
	br1 = scalarcomp(m, "br1", HOP_SUBTRACT);
	f = hlo_shape_scalar(m, TY_F32);
	fs = f;
	s32 = hlo_shape_scalar(m, TY_S32);
	pred = hlo_shape_scalar(m, TY_PRED);
	sh48 = arr(m, TY_F32, 2, d48, l10);
	t[0] = sh48;
	t[1] = s32;
	w = hlo_shape_tuple(m, 2, t);
	kitchen_loop(m, w, s32, pred, &cond, &body);

	e = hlo_comp_add(m, hlo_strz(m, "main"));
	m->entry = e;
	a[0] = text(m, A_SHARDING, "{devices=[2,1]0,1}");
	a[1] = text(m, A_METADATA, "{op_type=\"x\" op_name=\"y\\n\" "
		"source_file=\"f.py\" source_line=3}");
	a[2] = text(m, A_FRONTEND_ATTRIBUTES, "{a=\"b\",c={\"d\": 1}}");
	p0 = ins(m, e, HOP_PARAMETER, sh48, "p0", 0, NULL, 3, a);
	a[0] = text(m, A_SHARDING, "{replicated}");
	p1 = ins(m, e, HOP_PARAMETER, s32, "p1", 0, NULL, 1, a);
	hlo_ins(m, e, p1)->num = 1;
	a[0] = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, "\0\0\0\0", 4);
	zero = ins(m, e, HOP_CONSTANT, f, "zero", 0, NULL, 1, a);
	kitchen_constants(m, e, fs);
	lay = hlo_shape(m, TY_F32, 2, d48, l10, 2, hlo_strz(m,
		"T(8,128)(2,1)E(16)S(1)"));
	a[0] = hlo_mk_ints(m, A_DIMENSIONS, dims01, 2);
	ins(m, e, HOP_BROADCAST, lay, "bc", 1, &p0, 1, a);
	ops[0] = p0;
	ops[1] = zero;
	a[0] = hlo_mk_ints(m, A_DIMENSIONS, &one, 1);
	i = ins(m, e, HOP_REDUCE, arr(m, TY_F32, 1, &d4, NULL), "red", 2, ops,
		1, a);
	hlo_set_called(m, e, i, 1, &add);
	ops[1] = p0;
	a[0] = hlo_mk_ints(m, A_LHS_CONTRACT, &one, 1);
	a[1] = hlo_mk_ints(m, A_RHS_CONTRACT, &one, 1);
	a[2] = text(m, A_OPERAND_PRECISION, "{high,default}");
	ins(m, e, HOP_DOT, arr(m, TY_F32, 2, d44, NULL), "dot", 2, ops, 3, a);
	a[0] = text(m, A_DIRECTION, "LT");
	a[1] = text(m, A_CMP_TYPE, "TOTALORDER");
	ins(m, e, HOP_COMPARE, arr(m, TY_PRED, 2, d48, NULL), "cmp", 2, ops, 2,
		a);
	a[0] = hlo_mk_ints(m, A_SLICE, sl, 6);
	a[0].kind = K_SLICE;
	ins(m, e, HOP_SLICE, arr(m, TY_F32, 2, (int64_t[]){2, 8}, NULL), "sl",
		1, &p0, 1, a);
	ops[1] = zero;
	a[0] = hlo_mk_ints(m, A_PADDING, pad, 6);
	a[0].kind = K_PAD;
	ins(m, e, HOP_PAD, arr(m, TY_F32, 2, (int64_t[]){6, 8}, NULL), "pd", 2,
		ops, 1, a);
	ops[1] = p0;
	a[0] = hlo_mk_ints(m, A_WINDOW, win, 14);
	a[0].kind = K_WINDOW;
	a[1] = text(m, A_DIM_LABELS, "b01f_01io->b01f");
	a[2] = hlo_mk_int(A_FEATURE_GROUP_COUNT, 2);
	ins(m, e, HOP_CONV, arr(m, TY_F32, 4, d1481, l4), "conv", 2, ops, 3, a);
	a[0] = hlo_mk_int(A_CHANNEL_ID, 3);
	a[1] = text(m, A_REPLICA_GROUPS, "{{0,1},{2,3}}");
	a[2] = hlo_mk_int(A_USE_GLOBAL_DEVICE_IDS, 1);
	i = ins(m, e, HOP_ALLREDUCE, sh48, "ar", 1, &p0, 3, a);
	hlo_set_called(m, e, i, 1, &add);
	a[0] = text(m, A_REPLICA_GROUPS, "[2,2]<=[2,2]T(1,0)");
	a[1] = hlo_mk_ints(m, A_DIMENSIONS, &(int64_t){0}, 1);
	ins(m, e, HOP_ALLGATHER, arr(m, TY_F32, 2, (int64_t[]){8, 8}, NULL),
		"ag", 1, &p0, 2, a);
	a[0] = text(m, A_CUSTOM_CALL_TARGET, "foo\"bar");
	a[1] = text(m, A_BACKEND_CONFIG, "cfg\001");
	a[2] = text(m, A_OPERAND_LAYOUT_CONSTRAINTS, "{f32[4,8]{1,0}}");
	a[3] = text(m, A_API_VERSION, "API_VERSION_TYPED_FFI");
	a[4] = other(m, "weird_attr", "{1, 2}");
	a[5] = text(m, A_SHARDING, "{{maximal device=1}, {devices=[4,2]<=[8] "
		"last_tile_dim_replicate}}");
	ins(m, e, HOP_CUSTOMCALL, w, "cc", 1, &p0, 6, a);
	a[0] = hlo_mk_int(A_IOTA_DIM, 1);
	ins(m, e, HOP_IOTA, arr(m, TY_S32, 2, d48, NULL), "iota", 0, NULL, 1,
		a);
	ops[0] = p0;
	ops[1] = p1;
	i = ins(m, e, HOP_TUPLE, w, "tup", 2, ops, 0, NULL);
	q = ins(m, e, HOP_WHILE, w, "wh", 1, &i, 0, NULL);
	t[0] = body;
	t[1] = cond;
	hlo_set_called(m, e, q, 2, t);
	ops[0] = p1;
	ops[1] = zero;
	ops[2] = zero;
	i = ins(m, e, HOP_CONDITIONAL, f, "cd", 3, ops, 0, NULL);
	t[0] = br0;
	t[1] = br1;
	hlo_set_called(m, e, i, 2, t);
	hlo_ins(m, e, i)->flags = HI_BRANCHES;
	hlo_set_ctrl(m, e, i, 1, &zero);
	m->comps[e].root = q;
	kitchen_late(m, f);
	header(m, hdr, 3);
	return m;
}

/* files under a folder with a suffix */

typedef struct {
	char **v;
	size_t n, cap;
} List;

static void
walk(const char *dir, const char *suffix, List *l)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	char p[4096];
	size_t n, k = strlen(suffix);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (stat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(p, suffix, l);
			continue;
		}
		n = strlen(p);
		if (n < k || strcmp(p + n - k, suffix))
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 64;
			l->v = realloc(l->v, l->cap * sizeof *l->v);
		}
		l->v[l->n++] = strdup(p);
	}
	closedir(d);
}

static void
freelist(List *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static const char *
corpusdir(void)
{
	const char *c = getenv("HLOPT_CORPUS");

	return c && *c ? c : "../shared/corpus";
}

static void
printed(const HloModule *m, HloBuf *b)
{
	b->len = 0;
	hlo_print_module(m, b);
}

START_TEST(kitchen_roundtrip)
{
	HloModule *m = kitchen(), *r;
	HloBuf p = {0}, t1 = {0}, t2 = {0};
	const HloAttr *a;
	uint32_t c, i, k, found = 0;

	r = roundtrip(m, &p);
	printed(m, &t1);
	printed(r, &t2);
	ck_assert_str_eq(t1.buf, t2.buf);
	/* the unknown attribute and the header option came back */
	ck_assert(strstr(t2.buf, "weird_attr={1, 2}"));
	ck_assert(strstr(t2.buf, "replica_count=2"));
	for (c = 0; c < r->ncomps; c++)
		for (i = 0; i < r->comps[c].nins; i++)
			for (k = 0; k < r->comps[c].ins[i].nattrs; k++) {
				a = &r->attrv[r->comps[c].ins[i].attrs + k];
				found += a->key == A_LITERAL && a->v == HLO_ELIDED;
			}
	ck_assert_uint_eq(found, 1);
	hlo_module_free(m);
	hlo_module_free(r);
	hlo_buf_free(&p);
	hlo_buf_free(&t1);
	hlo_buf_free(&t2);
}
END_TEST

/* every .pb loads; proto -> IR -> proto is exact; proto -> text ->
 * proto -> text is stable */
static void
checkpb(const char *path)
{
	HloModule *m, *r, *t;
	HloBuf p = {0}, a = {0}, b = {0};
	HloError e;

	ck_assert_msg(hlo_load(path, &m, &e) == 0, "%s", e.msg);
	r = roundtrip(m, &p);
	printed(m, &a);
	ck_assert_msg(hlo_parse_text(a.buf, a.len, path, &t, &e) == 0, "%s",
		e.msg);
	p.len = 0;
	hlo_module_free(r);
	r = roundtrip(t, &p);
	printed(r, &b);
	ck_assert_msg(a.len == b.len && !memcmp(a.buf, b.buf, a.len),
		"%s: proto -> text -> proto -> text differs", path);
	hlo_module_free(m);
	hlo_module_free(r);
	hlo_module_free(t);
	hlo_buf_free(&p);
	hlo_buf_free(&a);
	hlo_buf_free(&b);
}

START_TEST(corpus_protos)
{
	List l = {0};
	size_t i;

	walk("data", ".pb", &l);
	walk(corpusdir(), ".pb", &l);
	for (i = 0; i < l.n; i++)
		checkpb(l.v[i]);
	freelist(&l);
}
END_TEST

/* text -> proto -> text over data/ and the corpus */
static int
checktext(const char *path, size_t *bytes)
{
	HloModule *m, *r;
	HloBuf a = {0}, b = {0}, p = {0};
	char *src;
	size_t n;
	HloError e;

	if (hlo_read_file(path, &src, &n, &e) < 0)
		return 0;
	if (hlo_parse_text(src, n, path, &m, &e) < 0) {
		free(src);
		return 0;
	}
	*bytes += n;
	printed(m, &a);
	r = roundtrip(m, &p);
	printed(r, &b);
	ck_assert_msg(a.len == b.len && !memcmp(a.buf, b.buf, a.len),
		"%s: text -> proto -> text differs", path);
	hlo_module_free(m);
	hlo_module_free(r);
	hlo_buf_free(&a);
	hlo_buf_free(&b);
	hlo_buf_free(&p);
	free(src);
	return 1;
}

START_TEST(text_roundtrip)
{
	List l = {0};
	size_t i, ok = 0, bytes = 0;

	walk("data", ".hlo", &l);
	walk(corpusdir(), ".hlo", &l);
	for (i = 0; i < l.n; i++)
		ok += checktext(l.v[i], &bytes);
	if (l.n)
		fprintf(stderr, "check_proto: %zu of %zu text modules (%.1f MB) "
			"round trip through proto (the rest do not parse)\n",
			ok, l.n, bytes / 1e6);
	freelist(&l);
}
END_TEST

/* offsets where a top-level field ends: the only cuts that may load */
static int
isboundary(const unsigned char *p, size_t n, size_t cut)
{
	size_t i = 0, k;
	uint64_t tag, v;
	int sh;

	while (i < n) {
		if (i == cut)
			return 1;
		for (tag = 0, sh = 0; i < n && (p[i] & 0x80); i++, sh += 7)
			tag |= (uint64_t)(p[i] & 0x7f) << sh;
		tag |= (uint64_t)p[i++] << sh;
		switch (tag & 7) {
		case 0:
			while (p[i] & 0x80)
				i++;
			i++;
			break;
		case 1:
			i += 8;
			break;
		case 5:
			i += 4;
			break;
		case 2:
			for (v = 0, sh = 0, k = i; p[k] & 0x80; k++, sh += 7)
				v |= (uint64_t)(p[k] & 0x7f) << sh;
			v |= (uint64_t)p[k] << sh;
			i = k + 1 + v;
			break;
		}
	}
	return i == cut;
}

START_TEST(truncation)
{
	HloModule *m = kitchen(), *r;
	HloBuf p = {0};
	HloError e;
	size_t cut, errors = 0, loads = 0;
	char *copy;

	ck_assert_int_eq(hlo_write_proto(m, &p, &e), 0);
	for (cut = 0; cut < p.len; cut++) {
		/* an exact-size copy, so reading past the end is caught */
		copy = malloc(cut + 1);
		memcpy(copy, p.buf, cut);
		if (hlo_read_proto(copy, cut, "cut", &r, &e) < 0) {
			ck_assert(strstr(e.msg, "error"));
			errors++;
		} else {
			ck_assert_msg(isboundary((unsigned char *)p.buf, p.len,
				cut), "truncated at %zu loaded", cut);
			hlo_module_free(r);
			loads++;
		}
		free(copy);
	}
	ck_assert_uint_gt(errors, p.len * 9 / 10);
	/* a cut inside a field reports an offset */
	ck_assert_int_eq(hlo_read_proto(p.buf, p.len - 1, "cut", &r, &e), -1);
	ck_assert_msg(strstr(e.msg, "at byte"), "%s", e.msg);
	hlo_module_free(m);
	hlo_buf_free(&p);
}
END_TEST

static uint32_t
lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

START_TEST(garbage)
{
	HloModule *m = kitchen(), *r;
	HloBuf p = {0};
	HloError e;
	uint32_t seed = 12345, k, len, j;
	unsigned char *b;

	for (k = 0; k < 3000; k++) {
		len = lcg(&seed) % 600;
		b = malloc(len + 1);
		for (j = 0; j < len; j++)
			b[j] = lcg(&seed);
		if (hlo_read_proto(b, len, "rand", &r, &e) == 0)
			hlo_module_free(r);
		free(b);
	}
	ck_assert_int_eq(hlo_write_proto(m, &p, &e), 0);
	for (k = 0; k < 3000; k++) {
		b = malloc(p.len);
		memcpy(b, p.buf, p.len);
		for (j = 0; j < 1 + k % 4; j++)
			b[lcg(&seed) % p.len] = lcg(&seed);
		if (hlo_read_proto(b, p.len, "mutant", &r, &e) == 0)
			hlo_module_free(r);
		free(b);
	}
	hlo_module_free(m);
	hlo_buf_free(&p);
}
END_TEST

/* the tag and length of a length-delimited field */
static void
lenhdr(HloBuf *b, int field, size_t n)
{
	unsigned char t[16];
	int k = 0;

	t[k++] = field << 3 | 2;
	do {
		t[k] = n & 0x7f;
		n >>= 7;
		if (n)
			t[k] |= 0x80;
		k++;
	} while (n);
	hlo_buf_put(b, (char *)t, k);
}

START_TEST(wrappers)
{
	HloModule *m = kitchen(), *r;
	HloBuf p = {0}, hp = {0}, snap = {0};
	HloError e;
	char why[512];

	ck_assert_int_eq(hlo_write_proto(m, &p, &e), 0);
	/* HloProto{hlo_module = 1} */
	lenhdr(&hp, 1, p.len);
	hlo_buf_put(&hp, p.buf, p.len);
	ck_assert_msg(hlo_read_proto(hp.buf, hp.len, "hp", &r, &e) == 0, "%s",
		e.msg);
	ck_assert_msg(moduleeq(m, r, why), "%s", why);
	hlo_module_free(r);
	/* HloSnapshot{hlo = 1, execution_platform = 4} */
	lenhdr(&snap, 1, hp.len);
	hlo_buf_put(&snap, hp.buf, hp.len);
	lenhdr(&snap, 4, 4);
	hlo_buf_put(&snap, "Host", 4);
	ck_assert_msg(hlo_read_proto(snap.buf, snap.len, "snap", &r, &e) == 0,
		"%s", e.msg);
	ck_assert_msg(moduleeq(m, r, why), "%s", why);
	hlo_module_free(r);
	hlo_module_free(m);
	hlo_buf_free(&p);
	hlo_buf_free(&hp);
	hlo_buf_free(&snap);
}
END_TEST

static void
putfile(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	fclose(f);
}

START_TEST(sniff_and_load)
{
	static const char *const texts[] = {
		"HloModule m\n", "  // comment\nHloModule m", "\n\nENTRY e {",
		"%add (x: f32[]) -> f32[] {", "/* c */ HloModule x",
		"add {\n  x = f32[] parameter(0)\n}", "\t\r\nHloModule m",
	};
	HloModule *m = kitchen(), *r;
	HloBuf p = {0}, t = {0};
	HloError e;
	char dir[] = "/tmp/check_proto.XXXXXX", path[256], why[512];
	size_t i;

	for (i = 0; i < sizeof texts / sizeof *texts; i++)
		ck_assert_msg(!hlo_looks_like_proto(texts[i], strlen(texts[i])),
			"%s", texts[i]);
	ck_assert_int_eq(hlo_write_proto(m, &p, &e), 0);
	ck_assert(hlo_looks_like_proto(p.buf, p.len));
	ck_assert(hlo_looks_like_proto("\x0a\x03" "abc", 5));
	ck_assert(hlo_looks_like_proto("HloModule\x00\x01", 11));
	ck_assert(mkdtemp(dir));
	/* the format comes from the content, not the name */
	snprintf(path, sizeof path, "%s/module.hlo", dir);
	putfile(path, p.buf, p.len);
	ck_assert_msg(hlo_load(path, &r, &e) == 0, "%s", e.msg);
	ck_assert_msg(moduleeq(m, r, why), "%s", why);
	printed(r, &t);
	hlo_module_free(r);
	unlink(path);
	snprintf(path, sizeof path, "%s/module.pb", dir);
	putfile(path, t.buf, t.len);
	ck_assert_msg(hlo_load(path, &r, &e) == 0, "%s", e.msg);
	hlo_module_free(r);
	unlink(path);
	snprintf(path, sizeof path, "%s/missing.pb", dir);
	ck_assert_int_eq(hlo_load(path, &r, &e), -1);
	ck_assert_ptr_null(r);
	rmdir(dir);
	hlo_module_free(m);
	hlo_buf_free(&p);
	hlo_buf_free(&t);
}
END_TEST

/* what XLA's HloModule::CreateFromProto relies on: ids unique, operands
 * before users, callees before callers, entry and roots set, a program
 * shape on every computation */

#include "proto.h"

typedef struct {
	int64_t id;
	size_t pos;
} Idp;

static int
cmpidp(const void *a, const void *b)
{
	const Idp *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int64_t
findpos(const Idp *v, size_t n, int64_t id)
{
	Idp k = {id, 0}, *f = bsearch(&k, v, n, sizeof *v, cmpidp);

	return f ? (int64_t)f->pos : -1;
}

static void
checkids(const HloBuf *p)
{
	Xla__HloModuleProto *mp = xla__hlo_module_proto__unpack(NULL, p->len,
		(const uint8_t *)p->buf);
	Idp *all, *cids, *loc;
	size_t nall = 0, k, j, i, n;

	ck_assert(mp);
	ck_assert(mp->host_program_shape);
	cids = malloc((mp->n_computations + 1) * sizeof *cids);
	for (k = 0; k < mp->n_computations; k++) {
		cids[k].id = mp->computations[k]->id;
		cids[k].pos = k;
		nall += mp->computations[k]->n_instructions;
	}
	qsort(cids, mp->n_computations, sizeof *cids, cmpidp);
	for (k = 1; k < mp->n_computations; k++)
		ck_assert(cids[k].id != cids[k - 1].id);
	ck_assert(findpos(cids, mp->n_computations,
		mp->entry_computation_id) >= 0);
	all = malloc((nall + 1) * sizeof *all);
	nall = 0;
	for (k = 0; k < mp->n_computations; k++) {
		Xla__HloComputationProto *pc = mp->computations[k];

		ck_assert(pc->program_shape && pc->program_shape->result);
		n = pc->n_instructions;
		loc = malloc((n + 1) * sizeof *loc);
		for (j = 0; j < n; j++) {
			loc[j].id = pc->instructions[j]->id;
			loc[j].pos = j;
			all[nall++] = loc[j];
		}
		qsort(loc, n, sizeof *loc, cmpidp);
		ck_assert(findpos(loc, n, pc->root_id) >= 0);
		for (j = 0; j < n; j++) {
			Xla__HloInstructionProto *ip = pc->instructions[j];

			for (i = 0; i < ip->n_operand_ids; i++)
				ck_assert((size_t)findpos(loc, n,
					ip->operand_ids[i]) < j);
			for (i = 0; i < ip->n_control_predecessor_ids; i++)
				ck_assert((size_t)findpos(loc, n,
					ip->control_predecessor_ids[i]) < j);
			for (i = 0; i < ip->n_called_computation_ids; i++)
				ck_assert((size_t)findpos(cids,
					mp->n_computations,
					ip->called_computation_ids[i]) < k);
		}
		free(loc);
	}
	qsort(all, nall, sizeof *all, cmpidp);
	for (k = 1; k < nall; k++)
		ck_assert(all[k].id != all[k - 1].id && all[k].id > 0);
	free(all);
	free(cids);
	xla__hlo_module_proto__free_unpacked(mp, NULL);
}

START_TEST(ids_consistent)
{
	HloModule *m = kitchen(), *r;
	HloBuf p = {0};
	HloError e;
	List l = {0};
	size_t i;

	ck_assert_int_eq(hlo_write_proto(m, &p, &e), 0);
	checkids(&p);
	hlo_module_free(m);
	walk("data", ".pb", &l);
	for (i = 0; i < l.n; i++) {
		ck_assert_msg(hlo_load(l.v[i], &r, &e) == 0, "%s", e.msg);
		p.len = 0;
		ck_assert_int_eq(hlo_write_proto(r, &p, &e), 0);
		checkids(&p);
		hlo_module_free(r);
	}
	freelist(&l);
	hlo_buf_free(&p);
}
END_TEST

START_TEST(protoc_decode)
{
	HloModule *m = kitchen();
	HloBuf p = {0};
	HloError e;
	char dir[] = "/tmp/check_proto.XXXXXX", in[256], out[256], cmd[1024];
	char *res;
	size_t n;

	if (system("command -v protoc >/dev/null 2>&1") != 0 ||
	    access("hlo/hlo.proto", R_OK) != 0) {
		fprintf(stderr, "check_proto: protoc or hlo/hlo.proto missing, "
			"protoc_decode skipped\n");
		hlo_module_free(m);
		return;
	}
	ck_assert(mkdtemp(dir));
	snprintf(in, sizeof in, "%s/m.pb", dir);
	snprintf(out, sizeof out, "%s/m.txt", dir);
	ck_assert_int_eq(hlo_write_proto(m, &p, &e), 0);
	putfile(in, p.buf, p.len);
	snprintf(cmd, sizeof cmd, "protoc --proto_path=hlo "
		"--decode=xla.HloModuleProto hlo/hlo.proto <%s >%s 2>&1", in,
		out);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(hlo_read_file(out, &res, &n, &e), 0);
	ck_assert(strstr(res, "entry_computation_id: "));
	ck_assert(strstr(res, "opcode: \"all-reduce\""));
	ck_assert(strstr(res, "iota_collective_device_list"));
	ck_assert(strstr(res, "tiles {"));
	free(res);
	unlink(in);
	unlink(out);
	rmdir(dir);
	hlo_module_free(m);
	hlo_buf_free(&p);
}
END_TEST

/* malformed modules built with protobuf-c */

static Xla__ShapeProto *
scalarshape(int ty)
{
	Xla__ShapeProto *s = calloc(1, sizeof *s);

	xla__shape_proto__init(s);
	s->element_type = ty;
	return s;
}

static int
readbad(Xla__HloModuleProto *mp, const char *want)
{
	HloModule *r;
	HloError e;
	size_t n = xla__hlo_module_proto__get_packed_size(mp);
	uint8_t *b = malloc(n + 1);
	int ok;

	xla__hlo_module_proto__pack(mp, b);
	ok = hlo_read_proto(b, n, "bad.pb", &r, &e) < 0 &&
		strstr(e.msg, want) != NULL;
	if (!ok)
		fprintf(stderr, "want '%s', got '%s'\n", want, e.msg);
	free(b);
	return ok;
}

START_TEST(malformed)
{
	Xla__HloModuleProto mp;
	Xla__HloComputationProto pc, *pcs[1] = {&pc};
	Xla__HloInstructionProto ip, *ips[1] = {&ip};
	Xla__ShapeProto *deep, *s, *f32 = scalarshape(11);
	Xla__LiteralProto lit;
	int64_t bad = 99;
	float two[2] = {1, 2};
	int k;

	xla__hlo_module_proto__init(&mp);
	ck_assert(readbad(&mp, "no computations"));
	xla__hlo_computation_proto__init(&pc);
	xla__hlo_instruction_proto__init(&ip);
	mp.n_computations = 1;
	mp.computations = pcs;
	pc.name = "c";
	pc.n_instructions = 1;
	pc.instructions = ips;
	pc.id = 1;
	pc.root_id = 1;
	ip.name = "x";
	ip.id = 1;
	ip.opcode = "frobnicate";
	ip.shape = f32;
	ck_assert(readbad(&mp, "unknown opcode"));
	ip.opcode = "negate";
	ip.n_operand_ids = 1;
	ip.operand_ids = &bad;
	ck_assert(readbad(&mp, "operand"));
	ip.n_operand_ids = 0;
	pc.root_id = 5;
	ck_assert(readbad(&mp, "root"));
	pc.root_id = 1;
	ip.opcode = "constant";
	xla__literal_proto__init(&lit);
	lit.n_f32s = 2;
	lit.f32s = two;
	ip.literal = &lit;
	ck_assert(readbad(&mp, "literal"));
	ip.literal = NULL;
	ip.opcode = "parameter";
	deep = s = scalarshape(13);
	for (k = 0; k < 150; k++) {
		s->n_tuple_shapes = 1;
		s->tuple_shapes = malloc(sizeof *s->tuple_shapes);
		s->tuple_shapes[0] = scalarshape(13);
		s = s->tuple_shapes[0];
	}
	ip.shape = deep;
	ck_assert(readbad(&mp, "nested"));
	for (s = deep; s;) {
		Xla__ShapeProto *next = s->n_tuple_shapes ?
			s->tuple_shapes[0] : NULL;

		free(s->tuple_shapes);
		free(s);
		s = next;
	}
	ip.shape = scalarshape(77);
	ck_assert(readbad(&mp, "element type"));
	free(ip.shape);
	free(f32);
}
END_TEST

/* attrs.def's proto field column: every field exists in
 * xla.HloInstructionProto with a type that suits the attribute's kind,
 * and the writer fills those fields itself (no private extension) */

static const char fieldsrc[] =
	"HloModule m\n\nENTRY e {\n"
	"  p0 = f32[4]{0} parameter(0)\n"
	"  a = f32[] parameter(1)\n"
	"  b = f32[] parameter(2)\n"
	"  m4 = f32[4,4]{1,0} parameter(3)\n"
	"  i = s32[2,1]{1,0} parameter(4)\n"
	"  t = (f32[2]{0}, s32[2]{0}) topk(p0), k=2, largest=true\n"
	"  r = f32[4]{0} rng(a, b), distribution=rng_normal\n"
	"  x = f32[4,4]{1,0} triangular-solve(m4, m4), left_side=true, "
	"lower=true, transpose_a=TRANSPOSE\n"
	"  c = f32[4,4]{1,0} cholesky(m4), lower=true\n"
	"  g = f32[2,4]{1,0} gather(m4, i), offset_dims={1}, "
	"collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
	"slice_sizes={1,4}, indices_are_sorted=true\n"
	"  cc = f32[4]{0} custom-call(p0), custom_call_target=\"foo\", "
	"custom_call_has_side_effect=true, schedule=SCHEDULE_LATEST, "
	"api_version=API_VERSION_TYPED_FFI, backend_config=\"cfg\"\n"
	"  ROOT o = ((f32[2]{0}, s32[2]{0})) tuple(t)\n}\n";

static int
kindfits(int kind, const ProtobufCFieldDescriptor *fd)
{
	int rep = fd->label == PROTOBUF_C_LABEL_REPEATED;

	switch (kind) {
	case K_INT:
		return !rep && (fd->type == PROTOBUF_C_TYPE_INT64 ||
			fd->type == PROTOBUF_C_TYPE_INT32);
	case K_BOOL:
		return !rep && fd->type == PROTOBUF_C_TYPE_BOOL;
	case K_INTS:
		return rep && fd->type == PROTOBUF_C_TYPE_INT64;
	case K_WORD:
	case K_STR:
		return !rep && (fd->type == PROTOBUF_C_TYPE_STRING ||
			fd->type == PROTOBUF_C_TYPE_BYTES ||
			fd->type == PROTOBUF_C_TYPE_ENUM);
	default:
		return 0;
	}
}

static const Xla__HloInstructionProto *
findip(const Xla__HloComputationProto *pc, const char *name)
{
	size_t i;

	for (i = 0; i < pc->n_instructions; i++)
		if (!strcmp(pc->instructions[i]->name, name))
			return pc->instructions[i];
	ck_abort_msg("no instruction %s", name);
	return NULL;
}

START_TEST(field_column)
{
	const ProtobufCFieldDescriptor *fd, *sub;
	const Xla__HloInstructionProto *ip;
	const Xla__HloComputationProto *pc;
	static const char *const plain[] = {"t", "r", "x", "c", "g", "cc"};
	Xla__HloModuleProto *mp;
	HloModule *m, *r;
	HloBuf p = {0}, a = {0}, b = {0};
	HloError e;
	int k, nfields = 0;
	size_t i;

	for (k = 0; k < A_COUNT; k++) {
		if (!*hlo_attr_path(k))
			continue;
		fd = hlo_pbfield(&xla__hlo_instruction_proto__descriptor,
			hlo_attr_path(k), &sub);
		ck_assert_msg(fd, "%s: no field %s", hlo_attrinfo[k].key,
			hlo_attr_path(k));
		ck_assert_msg(kindfits(hlo_attrinfo[k].kind, fd), "%s: field %s "
			"does not fit its kind", hlo_attrinfo[k].key,
			hlo_attr_path(k));
		nfields++;
	}
	ck_assert_int_ge(nfields, 40);
	ck_assert_ptr_null(hlo_pbfield(&xla__hlo_instruction_proto__descriptor,
		"gather_dimension_numbers.no_such_field", &sub));

	ck_assert_int_eq(hlo_parse_text(fieldsrc, strlen(fieldsrc), "f.hlo",
		&m, &e), 0);
	ck_assert_int_eq(hlo_write_proto(m, &p, &e), 0);
	mp = xla__hlo_module_proto__unpack(NULL, p.len, (uint8_t *)p.buf);
	ck_assert_ptr_nonnull(mp);
	pc = mp->computations[0];
	ip = findip(pc, "t");
	ck_assert(ip->k == 2 && ip->largest);
	ck_assert_int_eq(findip(pc, "r")->distribution,
		XLA__RANDOM_DISTRIBUTION__RNG_NORMAL);
	ip = findip(pc, "x");
	ck_assert(ip->triangular_solve_options &&
		ip->triangular_solve_options->left_side &&
		ip->triangular_solve_options->lower &&
		!ip->triangular_solve_options->unit_diagonal);
	ck_assert_int_eq(ip->triangular_solve_options->transpose_a,
		XLA__TRIANGULAR_SOLVE_OPTIONS__TRANSPOSE__TRANSPOSE);
	ip = findip(pc, "c");
	ck_assert(ip->cholesky_options && ip->cholesky_options->lower);
	ip = findip(pc, "g");
	ck_assert(ip->gather_dimension_numbers &&
		ip->gather_dimension_numbers->index_vector_dim == 1 &&
		ip->gather_dimension_numbers->n_offset_dims == 1 &&
		ip->gather_dimension_numbers->offset_dims[0] == 1);
	ck_assert(ip->n_gather_slice_sizes == 2 &&
		ip->gather_slice_sizes[1] == 4 && ip->indices_are_sorted);
	ip = findip(pc, "cc");
	ck_assert_str_eq(ip->custom_call_target, "foo");
	ck_assert(ip->custom_call_has_side_effect);
	ck_assert_int_eq(ip->custom_call_schedule,
		XLA__CUSTOM_CALL_SCHEDULE__SCHEDULE_LATEST);
	ck_assert_int_eq(ip->custom_call_api_version,
		XLA__CUSTOM_CALL_API_VERSION__API_VERSION_TYPED_FFI);
	ck_assert(ip->backend_config.len == 3 &&
		!memcmp(ip->backend_config.data, "cfg", 3));
	/* the fields carry it all: no private extension on these */
	for (i = 0; i < sizeof plain / sizeof plain[0]; i++)
		ck_assert_msg(findip(pc, plain[i])->base.n_unknown_fields == 0,
			"%s has an extension", plain[i]);
	xla__hlo_module_proto__free_unpacked(mp, NULL);
	/* and they come back as they were */
	ck_assert_int_eq(hlo_read_proto(p.buf, p.len, "f.pb", &r, &e), 0);
	hlo_print_module(m, &a);
	hlo_print_module(r, &b);
	ck_assert_str_eq(a.buf, b.buf);
	hlo_module_free(m);
	hlo_module_free(r);
	hlo_buf_free(&p);
	hlo_buf_free(&a);
	hlo_buf_free(&b);
}
END_TEST

/* the proto files read shape text as hlo/print.c writes it, unbounded
 * dynamic dimensions (?) included */
START_TEST(shape_text)
{
	static const char *const shapes[] = {"f32[?,2]{1,0}", "s32[<=4]",
		"(f32[], b(u8[3]{0}))", "bf16[2,3]{0,1:T(2,128)}"};
	HloModule *m = hlo_module_new();
	HloBuf b = {0};
	uint32_t s;
	size_t i;
	Lx l;

	for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		l.p = shapes[i];
		l.e = l.p + strlen(l.p);
		ck_assert_msg(hlo_psshape(&l, m, &s, 0) && hlo_lxend(&l), "%s",
			shapes[i]);
		b.len = 0;
		hlo_print_shape(m, s, &b);
		ck_assert_str_eq(b.buf, shapes[i]);
	}
	hlo_buf_free(&b);
	hlo_module_free(m);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("core");
	TCase *tcc = tcase_create("corpus");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, kitchen_roundtrip);
	tcase_add_test(tc, truncation);
	tcase_add_test(tc, garbage);
	tcase_add_test(tc, wrappers);
	tcase_add_test(tc, sniff_and_load);
	tcase_add_test(tc, ids_consistent);
	tcase_add_test(tc, protoc_decode);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, field_column);
	tcase_add_test(tc, shape_text);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tcc, corpus_protos);
	tcase_add_test(tcc, text_roundtrip);
	tcase_set_timeout(tcc, 300);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
