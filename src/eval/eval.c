/* eval.c: the evaluator's core: the context, values and their memory
 * accounting, and the driver that walks a computation in topological
 * order, dispatching each instruction to its opcode family and freeing
 * every value after its last use. */
#define _GNU_SOURCE		/* mremap */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hlo.h"
#include "eval.h"

#define HDR ((sizeof(HloVal) + 63) & ~(size_t)63)

struct EvPlan {
	int state;		/* 0 not built, 1 built, -1 cycle */
	uint32_t norder;
	uint32_t *order;	/* what the root needs, operands first */
	uint32_t *uses;		/* operand slots reading each, +1 root */
	uint8_t *splat;		/* scalar broadcasts read only by
				 * elementwise ops: kept as one element */
};

static void *cache_get(HloEval *ev, uint64_t size, uint64_t *cap);
static void cache_put(HloEval *ev, void *p, uint64_t size);
static void cache_drop(HloEval *ev, int k);

int
ev_fail(HloEval *ev, int status, const char *fmt, ...)
{
	va_list ap;

	ev->status = status;
	if (ev->err) {
		va_start(ap, fmt);
		vsnprintf(ev->err->msg, sizeof ev->err->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int
ev_unsupported(HloEval *ev, uint32_t c, uint32_t i, const char *why)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);

	return ev_fail(ev, EV_NOEVAL, "cannot evaluate %s %s (in %s): %s",
		hlo_opinfo[in->op].name, hlo_cstr(m, in->name),
		hlo_cstr(m, m->comps[c].name), why);
}

void
hlo_eval_init(HloEval *ev, const HloModule *m, uint64_t limit, HloError *e)
{
	memset(ev, 0, sizeof *ev);
	ev->m = m;
	ev->limit = limit ? limit : EV_DEFAULT_LIMIT;
	ev->maxsteps = EV_MAX_STEPS;
	ev->maxflops = EV_MAX_FLOPS;
	ev->maxelems = EV_MAX_ELEMS;
	ev->err = e;
	ev->threads = ev_cpus();
	ev->plans = xcalloc(m->ncomps + 1, sizeof *ev->plans);
	ev->progs = xcalloc(m->ncomps + 1, sizeof *ev->progs);
	ev->fx = xcalloc(m->ncomps + 1, sizeof *ev->fx);
}

void
hlo_eval_fini(HloEval *ev)
{
	while (ev->ncache > 0)
		cache_drop(ev, 0);
	hlo_eval_release(ev);
}

/* what ev holds for its module, freed; its cache of big blocks kept */
void
hlo_eval_release(HloEval *ev)
{
	uint32_t c;

	if (!ev->m)
		return;
	for (c = 0; c < ev->m->ncomps; c++) {
		free(ev->plans[c].order);
		free(ev->plans[c].uses);
		free(ev->plans[c].splat);
		if (ev->progs[c] && ev->progs[c] != (EvProg *)1)
			ev_prog_free(ev->progs[c]);
		if (ev->fx[c] && ev->fx[c] != (EvFx *)1)
			ev_fx_free(ev->fx[c]);
	}
	free(ev->fx);
	ev->fx = NULL;
	free(ev->plans);
	free(ev->progs);
	free(ev->prof);
	free(ev->profn);
	ev->prof = NULL;
	ev->profn = NULL;
	ev->plans = NULL;
	ev->progs = NULL;
	ev->m = NULL;
}

/* ev, released, made ready for module m as hlo_eval_init would with
 * ev's limit and error, keeping its cache: a caller evaluating many
 * small computations of a module it edits in between (constant folding)
 * faults no fresh pages for the blocks it freed */
void
hlo_eval_rebind(HloEval *ev, const HloModule *m)
{
	HloEval keep = *ev;

	hlo_eval_release(ev);
	hlo_eval_init(ev, m, keep.limit, keep.err);
	memcpy(ev->cache, keep.cache, sizeof ev->cache);
	ev->ncache = keep.ncache;
	ev->cached = keep.cached;
	ev->tick = keep.tick;
}

/* memory and work */

int
ev_budget(HloEval *ev, double flops)
{
	if (flops + ev->flops > ev->maxflops)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: needs more than "
			"%.0f GFLOP of dot and convolution work, over the "
			"--max-gflop limit of %.0f",
			(flops + ev->flops) * 1e-9, ev->maxflops * 1e-9);
	return 0;
}

int
ev_reserve(HloEval *ev, uint64_t bytes)
{
	if (bytes > ev->limit || ev->live > ev->limit - bytes)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: needs more than "
			"%llu bytes of live buffers (%llu live, %llu more "
			"requested), over the --max-memory limit of %llu",
			(unsigned long long)(ev->live + bytes),
			(unsigned long long)ev->live,
			(unsigned long long)bytes,
			(unsigned long long)ev->limit);
	ev->live += bytes;
	if (ev->live > ev->peak)
		ev->peak = ev->live;
	return 0;
}

void
ev_release(HloEval *ev, uint64_t bytes)
{
	ev->live -= bytes;
}

/* scratch blocks come from the cache too, their size in a header */
void *
ev_scratch(HloEval *ev, uint64_t bytes)
{
	unsigned char *p;
	uint64_t cap;

	if (bytes > SIZE_MAX / 2 || ev_reserve(ev, bytes) < 0)
		return NULL;
	p = cache_get(ev, bytes + 64, &cap);
	memcpy(p, &cap, sizeof cap);
	return p + 64;
}

void
ev_scratch_free(HloEval *ev, void *p, uint64_t bytes)
{
	uint64_t cap;

	if (!p)
		return;
	memcpy(&cap, (unsigned char *)p - 64, sizeof cap);
	cache_put(ev, (unsigned char *)p - 64, cap);
	ev_release(ev, bytes);
}

/* values */

int64_t
ev_esz(int type)
{
	return hlo_type_bytes(type);
}

const int64_t *
ev_dims(const HloEval *ev, uint32_t shape, int *rank)
{
	const HloShape *sh = hlo_sh(ev->m, shape);

	*rank = sh->type == TY_TUPLE ? 0 : sh->rank;
	return hlo_dims(ev->m, sh);
}

void
ev_strides(const int64_t *dims, int rank, int64_t esz, int64_t *strides)
{
	int d;
	int64_t s = esz;

	for (d = rank - 1; d >= 0; d--) {
		strides[d] = s;
		s *= dims[d];
	}
}

#define CACHE_MIN ((uint64_t)1 << 16)
#define HUGE_PAGE ((uint64_t)2 << 20)

/* Big blocks are kept after use and handed out again: a fresh page
 * costs a fault and the kernel's zeroing, which dominated whole-model
 * runs. A request takes the smallest cached block that fits without
 * wasting more than a quarter; blocks of 2 MiB and more are made of
 * huge pages where the kernel offers them. */
static uint64_t
cache_cap(const HloEval *ev)
{
	uint64_t c = ev->limit / 4;

	if (c < ((uint64_t)256 << 20))
		c = (uint64_t)256 << 20;
	return c > ((uint64_t)3 << 30) ? (uint64_t)3 << 30 : c;
}

/* blocks under 2 MiB come from malloc, bigger ones are mappings of
 * whole, aligned huge pages (so a block's size says how to free it) */
static int
mapped(uint64_t size)
{
	return size >= HUGE_PAGE && size <= SIZE_MAX - 2 * HUGE_PAGE;
}

static void *
block_new(uint64_t size, uint64_t *cap)
{
	unsigned char *p, *a;

	if (!mapped(size)) {
		*cap = size;
		return xmalloc(size);
	}
	size = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	p = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		xnomem();
	a = (unsigned char *)(((uintptr_t)p + HUGE_PAGE - 1) &
		~(uintptr_t)(HUGE_PAGE - 1));
	if (a > p)
		munmap(p, a - p);
	if (a + size < p + size + HUGE_PAGE)
		munmap(a + size, p + size + HUGE_PAGE - (a + size));
#ifdef MADV_HUGEPAGE
	madvise(a, size, MADV_HUGEPAGE);
#endif
	*cap = size;
	return a;
}

static void
block_free(void *p, uint64_t size)
{
	if (mapped(size))
		munmap(p, size);
	else
		free(p);
}

static void *
cache_get(HloEval *ev, uint64_t size, uint64_t *cap)
{
	int k, best = -1;
	void *p;

	if (size >= CACHE_MIN) {
		for (k = 0; k < ev->ncache; k++)
			if (ev->cache[k].size >= size &&
			    ev->cache[k].size - size <= size / 4 + HUGE_PAGE &&
			    (best < 0 ||
			    ev->cache[k].size < ev->cache[best].size))
				best = k;
		if (best >= 0) {
			p = ev->cache[best].p;
			*cap = ev->cache[best].size;
			ev->cached -= *cap;
			ev->cache[best] = ev->cache[--ev->ncache];
			return p;
		}
		/* none fits: grow the largest smaller mapping; it grows in
		 * place or moves by remapping, so its pages are neither
		 * copied nor faulted and zeroed again */
		for (k = 0; k < ev->ncache; k++)
			if (ev->cache[k].size >= HUGE_PAGE &&
			    ev->cache[k].size < size && (best < 0 ||
			    ev->cache[k].size > ev->cache[best].size))
				best = k;
#ifdef MREMAP_MAYMOVE
		if (best >= 0 && mapped(size)) {
			uint64_t want = (size + HUGE_PAGE - 1) &
				~(HUGE_PAGE - 1);

			p = mremap(ev->cache[best].p, ev->cache[best].size,
				want, MREMAP_MAYMOVE);
			if (p != MAP_FAILED) {
				ev->cached -= ev->cache[best].size;
				ev->cache[best] = ev->cache[--ev->ncache];
				*cap = want;
				return p;
			}
		}
#endif
	}
	return block_new(size, cap);
}

static void
cache_drop(HloEval *ev, int k)
{
	block_free(ev->cache[k].p, ev->cache[k].size);
	ev->cached -= ev->cache[k].size;
	ev->cache[k] = ev->cache[--ev->ncache];
}

static void
cache_put(HloEval *ev, void *p, uint64_t size)
{
	uint64_t cap = cache_cap(ev);
	int k, old;

	if (size < CACHE_MIN || size > cap) {
		block_free(p, size);
		return;
	}
	while (ev->ncache > 0 && (ev->ncache == EV_CACHE ||
	    ev->cached + size > cap)) {
		for (old = 0, k = 1; k < ev->ncache; k++)
			if (ev->cache[k].tick < ev->cache[old].tick)
				old = k;
		cache_drop(ev, old);
	}
	ev->cache[ev->ncache].p = p;
	ev->cache[ev->ncache].size = size;
	ev->cache[ev->ncache].tick = ev->tick++;
	ev->ncache++;
	ev->cached += size;
}

/* blocks kept from one evaluator to the next (eval.h) */
struct HloEvalBlocks {
	int n;
	struct {
		void *p;
		uint64_t size;
	} b[EV_CACHE];
};

void
hlo_eval_adopt(HloEval *ev, HloEvalBlocks **keep)
{
	HloEvalBlocks *k = *keep;
	int i;

	if (!k)
		return;
	for (i = 0; i < k->n; i++)
		cache_put(ev, k->b[i].p, k->b[i].size);
	free(k);
	*keep = NULL;
}

void
hlo_eval_fini_keep(HloEval *ev, HloEvalBlocks **keep, uint64_t max)
{
	HloEvalBlocks *k;
	uint64_t sum = 0;
	int i, newest;

	hlo_eval_blocks_free(*keep);
	*keep = NULL;
	if (!max || !ev->ncache) {
		hlo_eval_fini(ev);
		return;
	}
	k = xcalloc(1, sizeof *k);
	while (ev->ncache > 0) {
		for (newest = 0, i = 1; i < ev->ncache; i++)
			if (ev->cache[i].tick > ev->cache[newest].tick)
				newest = i;
		if (sum + ev->cache[newest].size > max)
			break;
		sum += ev->cache[newest].size;
		k->b[k->n].p = ev->cache[newest].p;
		k->b[k->n++].size = ev->cache[newest].size;
		ev->cached -= ev->cache[newest].size;
		ev->cache[newest] = ev->cache[--ev->ncache];
	}
	hlo_eval_fini(ev);
	if (k->n)
		*keep = k;
	else
		free(k);
}

void
hlo_eval_blocks_free(HloEvalBlocks *k)
{
	int i;

	if (!k)
		return;
	for (i = 0; i < k->n; i++)
		block_free(k->b[i].p, k->b[i].size);
	free(k);
}

HloVal *
hlo_val_array(HloEval *ev, uint32_t shape)
{
	const HloShape *sh = hlo_sh(ev->m, shape);
	int64_t n, esz;
	uint64_t bytes, cap;
	HloVal *v;

	if (sh->type == TY_TUPLE) {
		ev_fail(ev, EV_BAD, "internal: array value of a tuple shape");
		return NULL;
	}
	n = hlo_shape_elems(ev->m, shape);
	esz = ev_esz(sh->type);
	if (n < 0 || (esz && n > INT64_MAX / 64 / esz)) {
		ev_fail(ev, EV_NOEVAL, "not evaluable: a buffer of %s "
			"elements overflows 64 bits", "too many");
		return NULL;
	}
	bytes = (uint64_t)n * esz;
	if (ev_reserve(ev, bytes) < 0)
		return NULL;
	v = cache_get(ev, HDR + bytes + 64, &cap);
	memset(v, 0, sizeof *v);
	v->cap = cap;
	v->refs = 1;
	v->type = sh->type;
	v->shape = shape;
	v->n = sh->type == TY_TOKEN ? 0 : n;
	v->nbytes = bytes;
	v->data = (unsigned char *)v + HDR;
	return v;
}

HloVal *
hlo_val_tuple(HloEval *ev, uint32_t shape)
{
	const HloShape *sh = hlo_sh(ev->m, shape);
	HloVal *v = xcalloc(1, sizeof *v);

	v->refs = 1;
	v->type = TY_TUPLE;
	v->shape = shape;
	v->n = sh->type == TY_TUPLE ? sh->ntuple : 0;
	v->elems = xcalloc(v->n + 1, sizeof *v->elems);
	return v;
}

HloVal *
hlo_val_ref(HloVal *v)
{
	if (v)
		v->refs++;
	return v;
}

void
hlo_val_unref(HloEval *ev, HloVal *v)
{
	int64_t k;

	if (!v || --v->refs > 0)
		return;
	if (v->type == TY_TUPLE) {
		for (k = 0; k < v->n; k++)
			hlo_val_unref(ev, v->elems[k]);
		free(v->elems);
		free(v);
		return;
	}
	if (v->base) {
		hlo_val_unref(ev, v->base);
		free(v);
		return;
	}
	ev_release(ev, v->nbytes);
	if (v->cap)
		cache_put(ev, v, v->cap);
	else
		free(v);
}

int
ev_tuple_fill(HloEval *ev, uint32_t shape, EvElemFill *elem, void *ctx,
	HloVal **out)
{
	HloVal *v = hlo_val_tuple(ev, shape);
	uint32_t k;

	for (k = 0; k < v->n; k++) {
		if (elem(ev, hlo_tuple_elems(ev->m, hlo_sh(ev->m, shape))[k], k,
		    ctx, &v->elems[k]) < 0) {
			hlo_val_unref(ev, v);
			return -1;
		}
	}
	*out = v;
	return 0;
}

/* the same elements seen with another array shape of equal byte size */
HloVal *
ev_view(HloEval *ev, HloVal *v, uint32_t shape)
{
	HloVal *w = xcalloc(1, sizeof *w);

	(void)ev;
	w->refs = 1;
	w->type = hlo_sh(ev->m, shape)->type;
	w->shape = shape;
	w->n = v->n;
	w->data = v->data;
	w->base = hlo_val_ref(v->base ? v->base : v);
	return w;
}

/* a value of the shape with every byte zero (tuples recursively) */
HloVal *
ev_zero(HloEval *ev, uint32_t shape)
{
	const HloShape *sh = hlo_sh(ev->m, shape);
	HloVal *v;

	if (sh->type != TY_TUPLE) {
		v = hlo_val_array(ev, shape);
		if (v)
			memset(v->data, 0, v->nbytes);
		return v;
	}
	return ev_zero_from(ev, hlo_val_tuple(ev, shape), shape, 0);
}

HloVal *
ev_zero_from(HloEval *ev, HloVal *t, uint32_t shape, uint32_t from)
{
	uint32_t k;

	for (k = from; k < t->n; k++) {
		t->elems[k] = ev_zero(ev,
			hlo_tuple_elems(ev->m, hlo_sh(ev->m, shape))[k]);
		if (!t->elems[k]) {
			hlo_val_unref(ev, t);
			return NULL;
		}
	}
	return t;
}

/* plans */

static int
reads_splat(const HloModule *m, const HloInstr *u)
{
	if (!(hlo_opinfo[u->op].flags & OPF_ELEM))
		return 0;
	switch (u->op) {
	case HOP_MAP: case HOP_COPY: case HOP_BITCASTCVT:
		return 0;
	}
	return hlo_sh(m, u->shape)->type < TY_TUPLE;
}

/* marks broadcasts of one element whose every user is elementwise */
static uint8_t *
splats(const HloModule *m, uint32_t c, const uint8_t *need)
{
	const HloComp *cp = &m->comps[c];
	uint8_t *s = xcalloc(cp->nins + 1, 1);
	HloUsers u;
	uint32_t i, k, d;

	hlo_users(m, c, &u);
	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if (!need[i] || in->op != HOP_BROADCAST || in->nops != 1 ||
		    i == cp->root || u.start[i] == u.start[i + 1])
			continue;
		d = hlo_ops(m, in)[0];
		if (d >= cp->nins || hlo_sh(m, cp->ins[d].shape)->type >=
		    TY_TUPLE || hlo_shape_elems(m, cp->ins[d].shape) != 1 ||
		    hlo_shape_elems(m, in->shape) < 2)
			continue;
		s[i] = 1;
		for (k = u.start[i]; k < u.start[i + 1]; k++)
			if (!reads_splat(m, &cp->ins[u.list[k]]))
				s[i] = 0;
	}
	hlo_users_free(&u);
	return s;
}

/* a broadcast kept as its one element */
static int
splat(HloEval *ev, const HloInstr *in, HloVal *a, HloVal **out)
{
	const HloShape *sh = hlo_sh(ev->m, in->shape);
	int64_t esz = ev_esz(sh->type);
	HloVal *v;

	if (a->type != sh->type || a->n != 1)
		return ev_fail(ev, EV_BAD, "broadcast of a different type");
	if (ev_reserve(ev, esz) < 0)
		return -1;
	v = xcalloc(1, HDR + esz + 64);
	v->refs = 1;
	v->type = sh->type;
	v->shape = in->shape;
	v->n = hlo_shape_elems(ev->m, in->shape);
	v->nbytes = esz;
	v->data = (unsigned char *)v + HDR;
	v->splat = 1;
	memcpy(v->data, a->data, esz);
	*out = v;
	return 0;
}

static int
buildplan(HloEval *ev, uint32_t c)
{
	const HloModule *m = ev->m;
	const HloComp *cp = &m->comps[c];
	EvPlan *p = &ev->plans[c];
	uint32_t n = cp->nins, *topo, *stack, i, k, top, x, d, cnt = 0;
	uint8_t *need;
	int nt;

	if (p->state)
		return p->state;
	if (cp->root >= n || (cp->ins[cp->root].flags & HI_DEAD)) {
		p->state = -1;
		return -1;
	}
	topo = xreallocarray(NULL, n + 1, sizeof *topo);
	nt = hlo_topo(m, c, topo);
	if (nt < 0) {
		free(topo);
		p->state = -1;
		return -1;
	}
	need = xcalloc(n + 1, 1);
	stack = xreallocarray(NULL, n + 1, sizeof *stack);
	top = 0;
	stack[top++] = cp->root;
	need[cp->root] = 1;
	while (top) {
		x = stack[--top];
		for (k = 0; k < cp->ins[x].nops; k++) {
			d = m->ids[cp->ins[x].ops + k];
			if (d < n && !need[d]) {
				need[d] = 1;
				stack[top++] = d;
			}
		}
	}
	p->order = xreallocarray(NULL, n + 1, sizeof *p->order);
	p->uses = xcalloc(n + 1, sizeof *p->uses);
	for (i = 0; i < (uint32_t)nt; i++) {
		x = topo[i];
		if (!need[x])
			continue;
		p->order[cnt++] = x;
		for (k = 0; k < cp->ins[x].nops; k++) {
			d = m->ids[cp->ins[x].ops + k];
			if (d < n)
				p->uses[d]++;
		}
	}
	p->uses[cp->root]++;
	p->norder = cnt;
	p->splat = splats(m, c, need);
	p->state = 1;
	free(topo);
	free(need);
	free(stack);
	return 1;
}

/* the instructions the root of c needs, operands first */
int
ev_plan(HloEval *ev, uint32_t c, const uint32_t **order, uint32_t *n)
{
	if (c >= ev->m->ncomps || buildplan(ev, c) < 0)
		return -1;
	*order = ev->plans[c].order;
	*n = ev->plans[c].norder;
	return 0;
}

/* checks v has the type and element count (arrays) or arity (tuples,
 * recursively) of shape */
static int
fits(const HloModule *m, const HloVal *v, uint32_t shape)
{
	const HloShape *sh = hlo_sh(m, shape);
	int64_t k;

	if (!v)
		return 0;
	if (sh->type == TY_TUPLE) {
		if (v->type != TY_TUPLE || v->n != sh->ntuple)
			return 0;
		for (k = 0; k < v->n; k++)
			if (!fits(m, v->elems[k], hlo_tuple_elems(m, sh)[k]))
				return 0;
		return 1;
	}
	if (sh->type == TY_TOKEN)
		return v->type == TY_TOKEN;
	return v->type == sh->type && v->n == hlo_shape_elems(m, shape);
}

/* an array constant as a view of its literal's bytes in the module (no
 * copy): a holder that owns nothing but is counted in the live bytes as
 * a copy would be, so limits and peaks are those of a copy; views are
 * never written to (operands are consumed in place only without a
 * base). 0 done, 1 not borrowable (a token, no bytes, or a literal not
 * aligned to its elements: copy it), -1 failed as hlo_val_array or a
 * short literal would */
static int
literal_borrow(HloEval *ev, uint32_t shape, const unsigned char *p,
	uint64_t avail, HloVal **out)
{
	const HloShape *sh = hlo_sh(ev->m, shape);
	int64_t n, esz = ev_esz(sh->type);
	uint64_t bytes;
	HloVal *h;

	n = hlo_shape_elems(ev->m, shape);
	if (sh->type == TY_TOKEN || n <= 0 || esz <= 0 ||
	    n > INT64_MAX / 64 / esz ||
	    (uintptr_t)p % (uintptr_t)(esz < 8 ? esz : 8))
		return 1;
	bytes = (uint64_t)n * esz;
	if (ev_reserve(ev, bytes) < 0)
		return -1;
	if (bytes > avail) {
		ev_release(ev, bytes);
		return ev_fail(ev, EV_BAD, "constant literal too short for "
			"its shape");
	}
	h = xcalloc(1, sizeof *h);
	h->refs = 1;
	h->type = sh->type;
	h->shape = shape;
	h->n = n;
	h->nbytes = bytes;
	h->data = (unsigned char *)p;
	*out = ev_view(ev, h, shape);
	hlo_val_unref(ev, h);
	return 0;
}

typedef struct {
	const unsigned char *lit;
	uint32_t nlit, *off;
} Lit;

static int literal_fill(HloEval *ev, uint32_t shape, const unsigned char *lit,
	uint32_t nlit, uint32_t *off, HloVal **out);

static int
literal_elem(HloEval *ev, uint32_t shape, uint32_t k, void *ctx, HloVal **out)
{
	const Lit *l = ctx;

	return literal_fill(ev, shape, l->lit, l->nlit, l->off, out);
}

static int
literal_fill(HloEval *ev, uint32_t shape, const unsigned char *lit,
	uint32_t nlit, uint32_t *off, HloVal **out)
{
	Lit l = {lit, nlit, off};
	HloVal *v;

	if (hlo_sh(ev->m, shape)->type == TY_TUPLE)
		return ev_tuple_fill(ev, shape, literal_elem, &l, out);
	switch (literal_borrow(ev, shape, lit + *off, nlit - *off, out)) {
	case 0:
		*off += (*out)->base->nbytes;
		return 0;
	case -1:
		return -1;
	}
	v = hlo_val_array(ev, shape);
	if (!v)
		return -1;
	if ((uint64_t)v->nbytes > nlit - *off) {
		hlo_val_unref(ev, v);
		return ev_fail(ev, EV_BAD, "constant literal too short for "
			"its shape");
	}
	memcpy(v->data, lit + *off, v->nbytes);
	*off += v->nbytes;
	*out = v;
	return 0;
}

/* elided constants ({...}) get values from a hash of their name without
 * its numeric suffix: a copy a pass makes (a fresh name from the same
 * base, hlo_fresh_name) holds the same values, in memory and after a
 * round trip through text. So elided constants of one base name and
 * shape are equal here; passes never assume so (hlo_attr_equal). */
static int elided_fill(HloEval *ev, uint32_t shape, uint64_t seed,
	HloVal **out);

/* element k of a tuple of seed *ctx: seed mix64(seed + k + 1) */
static int
elided_elem(HloEval *ev, uint32_t shape, uint32_t k, void *ctx, HloVal **out)
{
	return elided_fill(ev, shape, ev_mix64(*(const uint64_t *)ctx + k + 1),
		out);
}

static int
elided_fill(HloEval *ev, uint32_t shape, uint64_t seed, HloVal **out)
{
	HloVal *v;

	if (hlo_sh(ev->m, shape)->type == TY_TUPLE)
		return ev_tuple_fill(ev, shape, elided_elem, &seed, out);
	v = hlo_val_array(ev, shape);
	if (!v)
		return -1;
	ev_fill_random(v->type, v->data, v->n, seed, FILL_SMALL);
	*out = v;
	return 0;
}

static int
constant(HloEval *ev, const HloInstr *in, HloVal **out)
{
	const HloModule *m = ev->m;
	uint32_t nlit = 0, off = 0;
	const unsigned char *lit = hlo_literal(m, in, &nlit);
	const char *name = hlo_cstr(m, in->name);
	size_t k, n = hlo_name_base_len(name);
	uint64_t h = 1469598103934665603ull;

	if (lit)
		return literal_fill(ev, in->shape, lit, nlit, &off, out);
	for (k = 0; k < n; k++)
		h = (h ^ (unsigned char)name[k]) * 1099511628211ull;
	return elided_fill(ev, in->shape, h, out);
}

static int
gte(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int64_t k = hlo_attr_int(ev->m, in, A_INDEX, -1);

	if (ops[0]->type != TY_TUPLE || k < 0 || k >= ops[0]->n)
		return ev_unsupported(ev, c, i, "index out of range");
	*out = hlo_val_ref(ops[0]->elems[k]);
	return 0;
}

static int
tuple(HloEval *ev, const HloInstr *in, HloVal **ops, HloVal **out)
{
	HloVal *v = hlo_val_tuple(ev, in->shape);
	uint32_t k;

	if ((uint32_t)v->n != in->nops) {
		hlo_val_unref(ev, v);
		return ev_fail(ev, EV_BAD, "tuple arity differs from its "
			"shape");
	}
	for (k = 0; k < in->nops; k++)
		v->elems[k] = hlo_val_ref(ops[k]);
	*out = v;
	return 0;
}

/* the handler by opcode family (hlo/ops.def); an opcode with a handler
 * of its own is named here */
static int
instr(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);

	switch (in->op) {
	case HOP_CONSTANT:
		return constant(ev, in, out);
	case HOP_TUPLE:
		return tuple(ev, in, ops, out);
	case HOP_GTE:
		return gte(ev, c, i, ops, out);
	case HOP_BITCASTCVT:
		return ev_bitcast_convert(ev, c, i, ops, out);
	case HOP_GATHER:
		return ev_gather(ev, c, i, ops, out);
	case HOP_SCAN:	/* unsupported, after ev_data's operand check */
		return ev_data(ev, c, i, ops, out);
	}
	if (hlo_op_elementwise_family(in->op))
		return ev_elementwise(ev, c, i, ops, out);
	if (hlo_op_external_family(in->op))
		return ev_opaque(ev, c, i, ops, out);
	switch (hlo_op_family(in->op)) {
	case OPFAM_LINALG:
		return ev_linalg(ev, c, i, ops, out);
	case OPFAM_REDUCE:
	case OPFAM_CONTROL:
		return ev_ctrl(ev, c, i, ops, out);
	}
	return ev_data(ev, c, i, ops, out);
}

/* one instruction of c on its operands' values (eval_fused.c's
 * constants) */
int
ev_instr(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	return instr(ev, c, i, ops, out);
}

/* binds a parameter; with donate, takes the caller's reference (the
 * slot is cleared) so the value may be updated in place once dead */
static int
bindparam(HloEval *ev, const HloInstr *in, HloVal **args, uint32_t nargs,
	int donate, HloVal **out)
{
	HloVal *a;

	if (in->num < 0 || (uint64_t)in->num >= nargs || !args[in->num])
		return ev_fail(ev, EV_BAD, "parameter %lld of %s has no "
			"argument", (long long)in->num,
			hlo_cstr(ev->m, in->name));
	a = args[in->num];
	if (!fits(ev->m, a, in->shape))
		return ev_fail(ev, EV_BAD, "argument for parameter %s does "
			"not match its shape", hlo_cstr(ev->m, in->name));
	if (donate) {
		*out = a;
		args[in->num] = NULL;
	} else {
		*out = hlo_val_ref(a);
	}
	return 0;
}

static void
dropvals(HloEval *ev, HloVal **vals, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		hlo_val_unref(ev, vals[k]);
	free(vals);
}

static int
runinstr(HloEval *ev, uint32_t c, uint32_t i, HloVal **vals, HloVal **args,
	uint32_t nargs, int donate, const uint32_t *left)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	HloVal *small[8], **ops = small;
	uint32_t k, d, n = m->comps[c].nins;
	double t0 = 0, in0 = 0, dt;
	int r;

	if (in->op == HOP_PARAMETER)
		return bindparam(ev, in, args, nargs, donate, &vals[i]);
	if (++ev->steps > ev->maxsteps)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: more than %llu "
			"instructions executed (endless loop?), over the "
			"--max-steps limit",
			(unsigned long long)ev->maxsteps);
	if (hlo_sh(m, in->shape)->type != TY_TUPLE)
		ev->elems += hlo_shape_elems(m, in->shape);
	if (ev->elems > ev->maxelems)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: more than %llu "
			"result elements computed, over the --max-elements "
			"limit",
			(unsigned long long)ev->maxelems);
	if (in->nops > 8)
		ops = xreallocarray(NULL, in->nops, sizeof *ops);
	for (k = 0; k < in->nops; k++) {
		d = m->ids[in->ops + k];
		ops[k] = d < n ? vals[d] : NULL;
		if (!ops[k]) {
			if (ops != small)
				free(ops);
			return ev_fail(ev, EV_BAD, "operand %u of %s is "
				"undefined", k, hlo_cstr(m, in->name));
		}
	}
	ev->consume = 0;
	for (k = 0; k < in->nops && k < 64 && left; k++) {
		d = m->ids[in->ops + k];
		if (left[d] == 1 && ops[k]->refs == 1 && !ops[k]->base &&
		    !ops[k]->splat)
			ev->consume |= (uint64_t)1 << k;
	}
	if (ev->prof) {
		t0 = hlo_now();
		in0 = ev->profin;
		ev->profin = 0;
	}
	if (in->op == HOP_BROADCAST && ev->plans[c].splat[i])
		r = splat(ev, in, ops[0], &vals[i]);
	else
		r = instr(ev, c, i, ops, &vals[i]);
	if (ev->prof) {		/* self time: nested instructions' taken out */
		dt = hlo_now() - t0;
		ev->prof[in->op] += dt - ev->profin;
		ev->profn[in->op]++;
		ev->profin = in0 + dt;
	}
	ev->consume = 0;
	if (ops != small)
		free(ops);
	if (r < 0)
		return -1;
	in = hlo_ins(m, c, i);
	if (!fits(m, vals[i], in->shape))
		return ev_fail(ev, EV_BAD, "%s %s: result does not match its "
			"shape", hlo_opinfo[in->op].name,
			hlo_cstr(m, in->name));
	return 0;
}

static int
evalcomp(HloEval *ev, uint32_t c, HloVal **args, uint32_t nargs,
	int donate, HloVal **out)
{
	const HloModule *m = ev->m;
	EvPlan *p;
	HloVal **vals;
	uint32_t *left, k, j, i, d, n;
	const HloInstr *in;

	*out = NULL;
	if (c >= m->ncomps)
		return ev_fail(ev, EV_BAD, "call of a missing computation");
	if (ev->depth >= EV_MAX_DEPTH)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: computations "
			"nest deeper than %d", EV_MAX_DEPTH);
	if (buildplan(ev, c) < 0)
		return ev_fail(ev, EV_BAD, "computation %s has a cycle or no "
			"root", hlo_cstr(m, m->comps[c].name));
	p = &ev->plans[c];
	n = m->comps[c].nins;
	vals = xcalloc(n + 1, sizeof *vals);
	left = xreallocarray(NULL, n + 1, sizeof *left);
	memcpy(left, p->uses, n * sizeof *left);
	ev->depth++;
	for (k = 0; k < p->norder; k++) {
		i = p->order[k];
		if (runinstr(ev, c, i, vals, args, nargs, donate, left) < 0) {
			ev->depth--;
			dropvals(ev, vals, n);
			free(left);
			return -1;
		}
		if (ev->hook && ev->depth == 1 && c == m->entry)
			ev->hook(ev->hookctx, i, vals[i]);
		in = hlo_ins(m, c, i);
		for (j = 0; j < in->nops; j++) {
			d = m->ids[in->ops + j];
			if (d < n && --left[d] == 0) {
				hlo_val_unref(ev, vals[d]);
				vals[d] = NULL;
			}
		}
	}
	ev->depth--;
	*out = vals[m->comps[c].root];
	vals[m->comps[c].root] = NULL;
	dropvals(ev, vals, n);
	free(left);
	return 0;
}

static void
undonated(HloEval *ev, HloVal **args, uint32_t nargs, int donate)
{
	uint32_t k;

	for (k = 0; donate && k < nargs; k++) {
		hlo_val_unref(ev, args[k]);
		args[k] = NULL;
	}
}

int
hlo_eval_comp(HloEval *ev, uint32_t c, HloVal **args, uint32_t nargs,
	HloVal **out)
{
	return evalcomp(ev, c, args, nargs, 0, out);
}

/* like hlo_eval_comp, but takes the references in args (every slot is
 * NULL on return, whatever happened) */
int
ev_call_donate(HloEval *ev, uint32_t c, HloVal **args, uint32_t nargs,
	HloVal **out)
{
	int r = evalcomp(ev, c, args, nargs, 1, out);

	undonated(ev, args, nargs, 1);
	return r;
}

int
ev_call(HloEval *ev, uint32_t comp, HloVal **args, uint32_t nargs,
	HloVal **out)
{
	return hlo_eval_comp(ev, comp, args, nargs, out);
}

int
hlo_eval_entry(HloEval *ev, HloVal **args, uint32_t nargs, HloVal **out)
{
	if (ev->m->entry >= ev->m->ncomps)
		return ev_fail(ev, EV_BAD, "module has no entry computation");
	return hlo_eval_comp(ev, ev->m->entry, args, nargs, out);
}
