/* inferi.h: the inside of shape inference, shared by hlo/infer.c (the
 * helpers, the family dispatch and the API) and hlo/infer_ops.c (one
 * function per opcode or group of opcodes). Nothing else includes it. */
#ifndef HLO_INFERI_H
#define HLO_INFERI_H

#include "infer.h"


#define MAXRANK 64
#define MAXDEPTH 256

enum { L_ARR, L_TUP, L_REF };

struct HloInferNode {
	uint8_t kind;		/* L_* */
	uint8_t type;		/* L_ARR: TY_* */
	uint16_t rank;		/* L_ARR */
	uint32_t ref;		/* L_REF: module shape id */
	uint32_t n;		/* L_TUP: element count */
	uint32_t off;		/* L_ARR: dims at ints[off]; L_TUP: elements
				 * at kids[off] */
	uint64_t dyn;		/* L_ARR: dynamic dimensions */
};

typedef HloInferNode LNode;

/* comparison flags */
enum { IGN_DYN = 1, IGN_FP = 2 };

typedef HloInfer V;

typedef struct {
	char b[320];
	size_t n;
} Str;

/* small helpers */

#define SH(v, s) (&(v)->m->shapes[s])
#define DIMS(v, sh) ((v)->m->ints + (sh)->dims)

/* hlo/infer.c and hlo/infer_ops.c */
int *inf_typebuf(V *v, uint32_t n);
int inf_tcls(int t);
int inf_isfloat(int t);
int inf_iscplx(int t);
int inf_isint(int t);
int inf_issigned(int t);
int inf_bitwidth(int t);
int inf_component(int t);
int inf_sametype(int a, int b, int flags);
int inf_isarr(const HloShape *sh);
int inf_isscalar(const HloShape *sh);
int inf_seq(const HloModule *m, uint32_t a, uint32_t b, int flags, int depth);
int inf_samedims(V *v, const HloShape *a, const HloShape *b);
const char *inf_shs(V *v, uint32_t s, Str *o);
uint32_t inf_larr(V *v, int type, int rank, const int64_t *dims, uint64_t dyn);
uint32_t inf_lref(V *v, uint32_t s);
uint32_t inf_ltup(V *v, uint32_t n);
void inf_lset(V *v, uint32_t t, uint32_t k, uint32_t el);
uint32_t inf_lscalar(V *v, int type);
uint32_t inf_lcopy(V *v, uint32_t s, int type);
uint32_t inf_opshid(V *v, const HloInstr *in, uint32_t k);
const HloShape *inf_opsh(V *v, const HloInstr *in, uint32_t k);
int inf_wantarr(V *v, const HloInstr *in, uint32_t k);
int inf_wantops(V *v, const HloInstr *in, uint32_t lo, uint32_t hi);
const HloAttr *inf_attr(V *v, const HloInstr *in, int key);
const int64_t *inf_aints(V *v, const HloInstr *in, int key, uint32_t *n);
int64_t inf_aint(V *v, const HloInstr *in, int key, int64_t dflt);
int inf_aword(V *v, const HloInstr *in, int key, const char *w);
int inf_aone(V *v, const HloInstr *in, int key, int64_t *x);
uint32_t inf_called(V *v, const HloInstr *in, uint32_t k);
int inf_wantcalled(V *v, const HloInstr *in, uint32_t n);
uint32_t inf_nparams(V *v, uint32_t c);
uint32_t inf_rootsh(V *v, uint32_t c);
const char *inf_cname(V *v, uint32_t c);
int inf_wantparams(V *v, uint32_t c, uint32_t n);
int inf_wantparam(V *v, uint32_t c, uint32_t k, uint32_t s, int flags);
int inf_wantscalarparam(V *v, uint32_t c, uint32_t k, int t, int flags);
int inf_wantpredroot(V *v, uint32_t c);
int64_t inf_nelems(const int64_t *d, int rank);
int inf_dimlist(V *v, const int64_t *p, uint32_t n, int rank, const char *what);
uint64_t inf_rmask(int rank);
int inf_sorted(const int64_t *p, uint32_t n);
int inf_badtype(V *v, const char *want, int t);
int inf_unary(V *v, const HloInstr *in, uint32_t *out);
int inf_binary(V *v, const HloInstr *in, uint32_t *out);
int inf_clamp(V *v, const HloInstr *in, uint32_t *out);
int inf_select(V *v, const HloInstr *in, uint32_t *out);
int inf_convert(V *v, const HloInstr *in, uint32_t *out);
int inf_bitcastcvt(V *v, const HloInstr *in, uint32_t *out);
int inf_stochcvt(V *v, const HloInstr *in, uint32_t *out);
int inf_broadcast(V *v, const HloInstr *in, uint32_t *out);
int inf_reshape(V *v, const HloInstr *in, uint32_t *out);
int inf_transpose(V *v, const HloInstr *in, uint32_t *out);
int inf_reverse(V *v, const HloInstr *in, uint32_t *out);
int inf_slice(V *v, const HloInstr *in, uint32_t *out);
int inf_dynslice(V *v, const HloInstr *in, uint32_t *out);
int inf_dus(V *v, const HloInstr *in, uint32_t *out);
int inf_concat(V *v, const HloInstr *in, uint32_t *out);
int inf_pad(V *v, const HloInstr *in, uint32_t *out);
int inf_iota(V *v, const HloInstr *in, uint32_t *out);
int inf_tuple(V *v, const HloInstr *in, uint32_t *out);
int inf_gte(V *v, const HloInstr *in, uint32_t *out);
int inf_dot(V *v, const HloInstr *in, uint32_t *out);
int inf_raggeddot(V *v, const HloInstr *in, uint32_t *out);
int inf_conv(V *v, const HloInstr *in, uint32_t *out);
int inf_reduce(V *v, const HloInstr *in, uint32_t *out);
int inf_reducewindow(V *v, const HloInstr *in, uint32_t *out);
int inf_selectandscatter(V *v, const HloInstr *in, uint32_t *out);
int inf_sort(V *v, const HloInstr *in, uint32_t *out);
int inf_map(V *v, const HloInstr *in, uint32_t *out);
int inf_topk(V *v, const HloInstr *in, uint32_t *out);
int inf_gather(V *v, const HloInstr *in, uint32_t *out);
int inf_scatter(V *v, const HloInstr *in, uint32_t *out);
int inf_while(V *v, const HloInstr *in, uint32_t *out);
int inf_conditional(V *v, const HloInstr *in, uint32_t *out);
int inf_call(V *v, const HloInstr *in, uint32_t *out);
int inf_asyncstart(V *v, const HloInstr *in, uint32_t *out);
int inf_tupleel(V *v, const HloInstr *in, uint32_t k, uint32_t *out);
int inf_allgather(V *v, const HloInstr *in, uint32_t *out, int scatter);
int inf_allreducer(V *v, const HloInstr *in);
int inf_passthrough(V *v, const HloInstr *in, uint32_t *out, int arrays);
int inf_alltoall(V *v, const HloInstr *in, uint32_t *out);
int inf_collpermute(V *v, const HloInstr *in, uint32_t *out);
int inf_done(V *v, const HloInstr *in, uint32_t k, uint32_t *out);
int inf_wanttoken(V *v, const HloInstr *in, uint32_t k);
int inf_io(V *v, const HloInstr *in, uint32_t *out);
int inf_batchnorm(V *v, const HloInstr *in, uint32_t *out);
int inf_fft(V *v, const HloInstr *in, uint32_t *out);
int inf_linalg(V *v, const HloInstr *in, uint32_t *out);
int inf_rng(V *v, const HloInstr *in, uint32_t *out);
int inf_rngbits(V *v, const HloInstr *in, uint32_t *out);
int inf_dimsize(V *v, const HloInstr *in, uint32_t *out);
int inf_constant(V *v, const HloInstr *in, uint32_t *out);

#endif
