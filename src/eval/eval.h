/* eval.h: the reference evaluator (src/eval/eval*.c): runs an HLO module on
 * concrete inputs, generates deterministic inputs, compares two modules.
 *
 * Values are reference-counted and immutable once built. An array value
 * holds its elements packed as in literals (hlo_type_bytes(type) bytes
 * each, little-endian, logical row-major order: layouts are ignored); a
 * tuple holds its element values. Shape ids refer to the module being
 * evaluated. All state lives in an HloEval context: no globals.
 */
#ifndef EVAL_H
#define EVAL_H

#include "hlo.h"

typedef struct HloVal HloVal;
struct HloVal {
	int32_t refs;
	uint8_t type;		/* TY_*: array, TY_TUPLE or TY_TOKEN */
	uint32_t shape;		/* shape id in the evaluated module */
	int64_t n;		/* arrays: element count; tuples: arity */
	int64_t nbytes;		/* bytes owned, counted in the limit */
	uint64_t cap;		/* bytes of its memory block, 0: not
				 * from the block cache */
	unsigned char *data;	/* arrays: n * hlo_type_bytes(type) bytes */
	HloVal **elems;		/* tuples */
	HloVal *base;		/* data borrowed from (held), or NULL */
	uint8_t splat;		/* every element is data's first: a scalar
				 * broadcast only elementwise ops read */
};

/* why an evaluation stopped */
enum { EV_OK, EV_BAD, EV_NOEVAL };

typedef struct EvPlan EvPlan;

#define EV_CACHE 64
typedef struct EvProg EvProg;
typedef struct EvFx EvFx;

typedef struct {
	const HloModule *m;
	uint64_t limit;		/* bytes of live values allowed */
	uint64_t live, peak;	/* bytes of live values now and at most */
	uint64_t steps, maxsteps;	/* instructions evaluated, allowed */
	uint64_t elems, maxelems;	/* result elements produced, allowed */
	int depth;		/* nested computation calls */
	int status;		/* EV_BAD or EV_NOEVAL after a failure */
	uint64_t consume;	/* bit k: operand k of the instruction being
				 * evaluated is dead after it and unshared,
				 * so its buffer may become the result */
	HloError *err;
	EvPlan *plans;		/* per computation, built on first call */
	EvProg **progs;		/* per computation: compiled scalar
				 * program, built on first use;
				 * (EvProg *)1: cannot be compiled */
	struct {
		void *p;
		uint64_t size, tick;
	} cache[EV_CACHE];	/* freed big blocks kept for reuse */
	int ncache;
	uint64_t cached;	/* their total bytes */
	uint64_t tick;		/* blocks put so far (age) */
	int threads;		/* worker threads for big operations */
	double *prof;		/* optional: seconds per opcode (self) */
	uint64_t *profn;	/* and instructions run */
	double profin;		/* seconds spent in nested instructions */
	uint64_t flops;		/* dot and convolution flops done */
	uint64_t maxflops;	/* and allowed */
	double gemm_secs;	/* seconds spent in dot and convolution */
	void (*hook)(void *ctx, uint32_t ins, HloVal *v);
	int untiled;		/* 1: fusions evaluate their computation
				 * like a call (every intermediate
				 * materialized), not tile by tile */
	EvFx **fx;		/* per computation: its tiled plan as a
				 * fused loop, built on first use;
				 * (EvFx *)1: not tileable */
	void *hookctx;		/* optional: called with every value the
				 * entry computation computes */
	int acc64;		/* 1: f32 add-reductions accumulate in
				 * double, rounded once (verify's second
				 * opinion on the rounding of sums) */
} HloEval;

#define EV_DEFAULT_LIMIT ((uint64_t)4 << 30)
#define EV_MAX_DEPTH 200
#define EV_MAX_STEPS ((uint64_t)100000000)
#define EV_MAX_FLOPS 2e12
#define EV_MAX_ELEMS ((uint64_t)50000000000)

/* src/eval/eval.c */
void hlo_eval_init(HloEval *ev, const HloModule *m, uint64_t limit,
	HloError *e);
void hlo_eval_fini(HloEval *ev);
void hlo_eval_release(HloEval *ev);	/* frees what ev holds for its
				 * module, keeps its cache of big blocks */
void hlo_eval_rebind(HloEval *ev, const HloModule *m);
				/* released, then ready for m as after
				 * hlo_eval_init with ev's limit and
				 * error, the cache kept */
/* big blocks an evaluator freed, kept by its owner from one evaluator to
 * the next (a pass context between runs of constant folding): a block
 * reused costs no fresh pages to fault and zero. hlo_eval_adopt moves
 * *keep's blocks into ev's cache (after hlo_eval_init); hlo_eval_fini_keep
 * finishes ev like hlo_eval_fini but moves its newest cached blocks, at
 * most max bytes, into *keep (NULL when none) */
typedef struct HloEvalBlocks HloEvalBlocks;
void hlo_eval_adopt(HloEval *ev, HloEvalBlocks **keep);
void hlo_eval_fini_keep(HloEval *ev, HloEvalBlocks **keep, uint64_t max);
void hlo_eval_blocks_free(HloEvalBlocks *b);
int hlo_eval_entry(HloEval *ev, HloVal **args, uint32_t nargs,
	HloVal **out);		/* -1: ev->status says why, ev->err
				 * what */
int hlo_eval_comp(HloEval *ev, uint32_t c, HloVal **args, uint32_t nargs,
	HloVal **out);
HloVal *hlo_val_array(HloEval *ev, uint32_t shape);
				/* uninitialised; NULL over the limit */
HloVal *hlo_val_tuple(HloEval *ev, uint32_t shape);
				/* elements NULL, to be filled */
HloVal *hlo_val_ref(HloVal *v);
void hlo_val_unref(HloEval *ev, HloVal *v);

/* src/eval/eval_input.c: inputs and the report of `hlopt run`.
 *
 * Inputs are a function of the seed, of each entry-parameter leaf's
 * position, type and size, and of the leaf's distribution (HloInputHints).
 * The hints come from a data-flow analysis of one module; verification
 * computes them on the original and gives the same hints to both modules,
 * so both get byte-identical inputs. */
enum { EV_ANY, EV_POSITIVE, EV_NEGATIVE };	/* HloInputHints.positive */
typedef struct {
	uint32_t n;		/* entry parameters' leaves, in order */
	int64_t *bound;		/* integer leaves: in [0, bound) if >0 */
	uint8_t *positive;	/* float leaves: EV_POSITIVE: values in
				 * [0.5, 1.5), EV_NEGATIVE: [-1.5, -0.5),
				 * EV_ANY: [-1, 1) */
	double *scale;		/* float leaves: values times scale
				 * (weights of a dot or convolution:
				 * 1/sqrt(fan-in)) */
	uint8_t *bits;		/* integer leaves: every bit random (the
				 * metadata of a sparse dot) */
	int64_t *matrix;	/* float leaves: if >0, the matrix of a
				 * triangular-solve or cholesky, square of
				 * this size in its last two dims: made
				 * diagonally dominant (diagonal magnitudes
				 * in [1, 2), the rest over this size) */
} HloInputHints;

void hlo_eval_hints(const HloModule *m, HloInputHints *h);
void hlo_eval_hints_merge(HloInputHints *h, const HloInputHints *o);
void hlo_eval_hints_free(HloInputHints *h);
int hlo_eval_inputs(HloEval *ev, uint64_t seed, const HloInputHints *h,
	HloVal ***args, uint32_t *nargs);
				/* = ev_inputs(..., EV_DIST_HINTS, ...) */
/* the input distributions tried in turn while an output stays
 * non-finite: the hints; every float 10x smaller; every float leaf
 * positive; positive and 10x smaller (each with its own seed) */
enum { EV_DIST_HINTS, EV_DIST_SMALL, EV_DIST_POSITIVE, EV_DIST_TINY,
	EV_NDIST };
int ev_inputs(HloEval *ev, uint64_t seed, const HloInputHints *h, int dist,
	HloVal ***args, uint32_t *nargs);
void hlo_eval_free_args(HloEval *ev, HloVal **args, uint32_t nargs);
void hlo_eval_report(HloEval *ev, const HloVal *out, int json, HloBuf *b);

/* src/eval/eval_literal.c: values as HLO literal text */
void ev_print_literals(HloEval *ev, const HloVal *out, HloBuf *b);
				/* "output K: SHAPE VALUE" per output leaf */
void ev_print_literal(const HloModule *m, const HloVal *v, HloBuf *b);
int ev_inputs_text(HloEval *ev, const char *text, size_t n,
	const char *fname, HloVal ***args, uint32_t *nargs);
				/* one literal per entry parameter */
int ev_inputs_module(HloEval *ev, const HloModule *lm, const char *fname,
	HloVal ***args, uint32_t *nargs);
				/* the same from lm, whose entry holds one
				 * constant per parameter, then its root
				 * (hlo_read_snapshot_args) */

/* src/eval/eval_verify.c: the differential check of two modules behind
 * `hlopt verify`, `optimize --verify` and `search`.
 *
 * Verdicts, their names and the order in which they are reported: */
#define EV_VERDICTS(X) \
	X(EV_EQUAL, "equal") \
	X(EV_DIFFERENT, "different") \
	X(EV_PARTIAL, "partially verified") \
	X(EV_NOT_EVALUABLE, "not evaluable") \
	X(EV_FAILED, "failed")
enum {
#define X(id, name) id,
	EV_VERDICTS(X)
#undef X
	EV_NVERDICTS
};
/* EV_EQUAL: every output compared on finite values (in at least one
 * trial every element finite on both sides) and within tolerance;
 * EV_DIFFERENT: an element beyond tolerance, or finite on one side only,
 * or the signatures differ; EV_PARTIAL: no difference, but some output
 * had non-finite elements in every trial; EV_NOT_EVALUABLE: a module uses
 * something the evaluator cannot run or exceeds a limit; EV_FAILED: a
 * module is malformed (its evaluation failed) */

#define EV_VERIFY_TRIALS 3
#define EV_VERIFY_RTOL 1e-3	/* f32, f64, complex; floors per type */
#define EV_VERIFY_ATOL 1e-5	/* in ev_tolerance */
#define EV_VERIFY_RETRIES (EV_NDIST - 1)

typedef struct {
	int trials;		/* input sets (EV_VERIFY_TRIALS) */
	uint64_t seed;		/* 0 */
	double rtol, atol;	/* < 0: the per-type defaults of
				 * ev_tolerance; else used for every type */
	uint64_t limit;		/* bytes of live buffers per module, 0:
				 * EV_DEFAULT_LIMIT */
	uint64_t maxsteps;	/* instructions per run, 0: EV_MAX_STEPS */
	uint64_t maxelems;	/* result elements per run, 0: EV_MAX_ELEMS */
	double maxflops;	/* dot/convolution flops per run, 0:
				 * EV_MAX_FLOPS */
	int threads;		/* 0: one per processor */
	int exact;		/* floats must match bit for bit (NaN = NaN,
				 * and non-finite values count as compared) */
	int retries;		/* other input distributions tried per trial
				 * while the first module's outputs are not
				 * all finite (EV_VERIFY_RETRIES) */
	int locate;		/* on a difference, find the first
				 * instruction of the first module that
				 * diverges (two more evaluations) */
	const HloInputHints *hints;	/* input distributions; NULL: the
				 * analysis of the first module */
	const char *name_a, *name_b;	/* the modules in messages; NULL:
				 * "first module", "second module" */
	int excess;		/* 1 (the default, as xla's
				 * xla_allow_excess_precision): when the
				 * second module differs from the first,
				 * compare it again with the first's
				 * excess-precision reference
				 * (ev_excess_module); 0: strict only */
} EvVerifyOpts;

typedef struct {
	int64_t index;		/* flattened output leaf */
	char shape[128];
	int type;		/* TY_* */
	int64_t count;		/* elements */
	int64_t compared;	/* element comparisons on finite values
				 * (integers: all), summed over trials */
	int64_t mismatches;	/* beyond tolerance, summed over trials */
	int64_t rounding;	/* beyond tolerance but within the
				 * modules' own rounding of f32 sums:
				 * not mismatches (see verify()) */
	double max_abs, max_rel;	/* over the compared elements */
	int64_t nonfinite_a, nonfinite_b;	/* summed over trials */
	int finite_trials;	/* trials with every element finite on
				 * both sides */
	double rtol, atol;	/* the tolerances used */
	int verdict;		/* EV_EQUAL, EV_DIFFERENT or EV_PARTIAL */
	int first_trial;	/* of the first mismatch, -1 none */
	int64_t first_elem;
	char a[48], b[48];	/* the two values there */
} EvOutputCheck;

typedef struct {
	int found;		/* 1: name below; 0: none diverges among
				 * the instructions compared; -1: not
				 * looked for */
	char name[128];		/* instruction of the first module */
	char opcode[40];
	char shape[128];
	int64_t count, mismatches, elem;
	double max_abs, max_rel;
	char a[48], b[48];	/* first element beyond tolerance */
	int64_t matched;	/* instructions matched by name and shape */
	int64_t compared;	/* of them, compared before stopping */
	char note[160];		/* why it could not look further */
} EvDivergence;

typedef struct {
	int verdict;		/* EV_* */
	int trials;		/* trials run */
	int evaluations;	/* runs of the first module, retries
				 * included */
	uint64_t seed;
	int dist[8];		/* input distribution used per trial (first
				 * 8 trials) */
	uint32_t noutputs;
	EvOutputCheck *outputs;
	int64_t first_output;	/* the first output that differs, -1 */
	EvDivergence div;
	char msg[1024];		/* one line: why different / not
				 * evaluable / failed */
	int excess;		/* 1: the verdict is the excess-precision
				 * reference's (the strict one differed) */
	int64_t round_trips;	/* convert chains that reference
				 * collapses; -1: it was not tried */
	char strict[1024];	/* excess: why the strict one differed */
} EvVerifyReport;

void ev_verify_defaults(EvVerifyOpts *o);
void ev_verify_limits(HloEval *ev, const EvVerifyOpts *o);
				/* o's step, element and flop limits (those
				 * set) on ev */
int ev_verify(const HloModule *a, const HloModule *b, const EvVerifyOpts *o,
	EvVerifyReport *r);	/* returns r->verdict; r must be freed
				 * with ev_verify_free whatever happened */
void ev_verify_free(EvVerifyReport *r);
const char *ev_verdict_name(int verdict);
const char *ev_verify_verdict(const EvVerifyReport *r);
				/* the verdict's name, "equal (excess
				 * precision)" when that reference matched */
void ev_verify_text(const EvVerifyReport *r, HloBuf *b);
void ev_verify_json(const EvVerifyReport *r, HloBuf *b);	/* one object,
				 * no newline */
void ev_tolerance(int type, double rtol, double atol, double *r,
	double *a);		/* the tolerances used for type: rtol/atol
				 * when >= 0, else the defaults, looser for
				 * f16, bf16 and 8-bit floats */

/* src/eval/eval_excess.c: the excess-precision reference: a clone of a
 * in which every chain of two or more float converts that
 * SimplifyFPConversions may collapse is collapsed (x itself when the
 * chain ends in x's type, else one convert of x); NULL when a has none.
 * *chains: their count. */
HloModule *ev_excess_module(const HloModule *a, int64_t *chains);

/* the older interface, kept for the pass tests: verdict 0 equal (also
 * partially verified), 1 different, 3 not evaluable, 4 a module failed */
typedef struct {
	int trials;
	uint64_t seed;
	double rtol, atol;	/* floors per type apply (as before) */
	uint64_t limit;
	int exact;		/* floats must match exactly (NaN = NaN) */
	uint64_t maxsteps;	/* instructions per run, 0: EV_MAX_STEPS */
	int threads;		/* 0: one per processor */
} HloVerifyOpts;

typedef struct {
	int verdict;		/* 0 equal, 1 different, 3 not evaluable,
				 * 4 a module failed (bad input) */
	int trial;		/* of the first difference */
	int64_t output;		/* flattened output, -1: signature */
	int64_t elem;		/* element index within that output */
	int type;		/* that output's element type */
	char a[64], b[64];	/* the two values */
	char msg[1024];		/* one-line explanation */
} HloVerifyResult;

int hlo_eval_verify(const HloModule *a, const HloModule *b,
	const HloVerifyOpts *o, HloVerifyResult *r);
				/* returns r->verdict */
int hlo_eval_signature_eq(const HloModule *a, const HloModule *b,
	char *why, size_t n);
void hlo_eval_tolerance(int type, double rtol, double atol, double *r,
	double *a);		/* the floors: max(rtol, floor of type) */
int hlo_parse_u64(const char *s, int suffix, uint64_t *v);
				/* decimal; suffix: also K, M, G, T (x1024) */

/* ---- internal to src/eval/eval*.c ---- */

/* one element while computing: floats (every width) as double, signed
 * integers sign-extended, unsigned and pred zero-extended, complex as
 * two doubles */
typedef union {
	double f;
	int64_t s;
	uint64_t u;
	double c[2];
} Lane;

/* *l = x in a lane of class cls (C_*): iota's elements */
static inline void
ev_lane_int(int cls, int64_t x, Lane *l)
{
	if (cls == C_FLOAT)
		l->f = x;
	else if (cls == C_CPLX)
		l->c[0] = x, l->c[1] = 0;
	else
		l->s = x;
}

#define EV_CHUNK 256

/* an elementwise operation, bound to its types */
typedef struct {
	uint16_t op;		/* HOP_* */
	uint8_t type;		/* result element type */
	uint8_t t0, t1, t2;	/* operand element types */
	uint8_t dir;		/* compare: CMP_* */
	uint8_t total;		/* compare: TOTALORDER */
	int16_t ebits, mbits;	/* reduce-precision */
} EwOp;

enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

/* eval.c */
int ev_fail(HloEval *ev, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ev_unsupported(HloEval *ev, uint32_t c, uint32_t i, const char *why);
int64_t ev_esz(int type);
const int64_t *ev_dims(const HloEval *ev, uint32_t shape, int *rank);
void ev_strides(const int64_t *dims, int rank, int64_t esz,
	int64_t *strides);
int ev_reserve(HloEval *ev, uint64_t bytes);
void ev_release(HloEval *ev, uint64_t bytes);
void *ev_scratch(HloEval *ev, uint64_t bytes);	/* counted; NULL over */
void ev_scratch_free(HloEval *ev, void *p, uint64_t bytes);
HloVal *ev_view(HloEval *ev, HloVal *v, uint32_t shape);
HloVal *ev_zero(HloEval *ev, uint32_t shape);
typedef int EvElemFill(HloEval *ev, uint32_t shape, uint32_t k, void *ctx,
	HloVal **out);
int ev_tuple_fill(HloEval *ev, uint32_t shape, EvElemFill *elem, void *ctx,
	HloVal **out);		/* a tuple of shape whose element k is
				 * elem(ev, its shape, k, ctx, &element),
				 * in order; -1 when one fails */
HloVal *ev_zero_from(HloEval *ev, HloVal *t, uint32_t shape, uint32_t from);
				/* elements from.. of tuple t (of shape)
				 * zeros; t, or NULL (t released) */
int ev_call(HloEval *ev, uint32_t comp, HloVal **args, uint32_t nargs,
	HloVal **out);
int ev_plan(HloEval *ev, uint32_t c, const uint32_t **order, uint32_t *n);
int ev_call_donate(HloEval *ev, uint32_t c, HloVal **args, uint32_t nargs,
	HloVal **out);
int ev_budget(HloEval *ev, double flops);
int ev_instr(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);		/* one instruction, by its handler */	/* -1 over EV_MAX_FLOPS */

/* eval_elem.c */
void ev_lane_load(int type, const void *src, int64_t n, Lane *dst);
void ev_lane_store(int type, const Lane *src, int64_t n, void *dst);
void ev_lane_round(int type, Lane *v, int64_t n);
int ev_ew_check(const EwOp *o);
void ev_ew_run(const EwOp *o, int64_t n, Lane *r, const Lane *a,
	const Lane *b, const Lane *c);
int ev_ew_bind(const HloModule *m, uint32_t c, uint32_t i, EwOp *o);
int ev_cmp_dir(const char *w, uint32_t n);	/* CMP_*, -1 if none */
int ev_elementwise(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);
void ev_ew_span(const EwOp *o, HloVal **ops, HloVal *v, int64_t n);
				/* elements [0, n) with ev_elementwise's
				 * kernels; operands of one element (or
				 * splat) are read as all */
int ev_ew_arity(int op);
int ev_bitcast_convert(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);
double ev_get_f(int type, const void *p);
int64_t ev_get_i(int type, const void *p);
void ev_to_double(int type, const void *src, int64_t n, double *dst);
void ev_to_float(int type, const void *src, int64_t n, float *dst);
void ev_from_double(int type, const double *src, int64_t n, void *dst);
void ev_from_float(int type, const float *src, int64_t n, void *dst);
double ev_nf_decode(int type, uint32_t bits);
uint32_t ev_nf_encode(int type, double x);

/* eval_data.c */
void ev_copy_nd(unsigned char *dst, const int64_t *dstr,
	const unsigned char *src, const int64_t *sstr, const int64_t *count,
	int rank, int64_t esz);
int ev_data(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);
int ev_gather(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);

/* eval_tile.c */
int ev_tiled(const HloModule *m, uint32_t shape);
				/* an array shape whose layout has tiles */
int ev_bitcast_tiled(HloEval *ev, uint32_t c, uint32_t i, HloVal *a,
	HloVal **out);		/* bitcast i of a through the memory order
				 * tiled layouts give */

/* eval_bnorm.c */
int ev_batchnorm(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);		/* batch-norm-training, -inference, -grad:
				 * XLA's BatchNormExpander expansion */
float ev_bn_epsilon(const HloModule *m, const HloInstr *in);
				/* a batch norm's epsilon as xla's float
				 * (0 when absent) */

/* eval_linalg.c */
enum { CK_F32, CK_F64, CK_C128, CK_I64 };	/* compute kinds */
#define EV_MAXR 64		/* the largest rank dot and fft handle */
typedef struct {		/* one side of a dot */
	int rank;
	const int64_t *dims;
	int64_t perm[EV_MAXR], tperm[EV_MAXR];	/* as [b][m][k], [b][k][m] */
	int64_t B, M, K;	/* batch, free and contracting sizes */
	int nfree;
	int64_t freed[EV_MAXR];	/* the free dims, in order */
} EvDotSide;
int ev_dotside(const int64_t *dims, int rank, const int64_t *bd,
	uint32_t nb, const int64_t *cd, uint32_t nc, EvDotSide *s);
int ev_dot_check(HloEval *ev, uint32_t c, uint32_t i, const int64_t *ldims,
	int lrank, const int64_t *rdims, int rrank, EvDotSide S[2]);
				/* dot i's sides over the given operand
				 * dims, checked against each other and the
				 * result; -1 (failed) if they disagree */
int ev_sparse_dot(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);		/* eval_sparse.c */
extern const int ev_ckbytes[];
int ev_linalg(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);
int ev_dotkind(int a, int b, int r);
void ev_tock(int kind, int type, const void *src, int64_t n, void *dst);
void ev_fromck(int kind, int type, const void *src, int64_t n, void *dst);
void *ev_pack(HloEval *ev, HloVal *v, const int64_t *perm,
	const uint8_t *rev, int kind, int *own, uint64_t *bytes);
int ev_unpack(HloEval *ev, const void *buf, int kind, HloVal *v,
	const int64_t *perm);
void ev_gemm(HloEval *ev, int kind, int64_t M, int64_t N, int64_t K,
	const void *A, int64_t lda, int ta, const void *B, int64_t ldb,
	int tb, void *C, int64_t ldc, int acc);

/* eval_conv.c */
int ev_conv(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);

/* eval_gemm.c */
void ev_sgemm(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *A,
	int64_t lda, const float *B, int64_t ldb, float *C, int64_t ldc,
	int acc, int threads);

/* eval_par.c */
#define EV_MAX_THREADS 64
typedef void EvWork(void *ctx, int part, int64_t lo, int64_t hi);
int ev_cpus(void);		/* online processors, at most
				 * EV_MAX_THREADS */
int ev_par_parts(const HloEval *ev, int64_t n, int64_t grain);
				/* how many parts ev_par will use */
void ev_par_threads(int threads, int64_t n, EvWork *fn, void *ctx);
				/* fn on min(threads, n) parts of [0, n) */
void ev_par(const HloEval *ev, int64_t n, int64_t grain, EvWork *fn,
	void *ctx);		/* fn on parts of [0, n) in parallel,
				 * parts of at least grain */

/* eval_ctrl.c */
int ev_apply2(HloEval *ev, uint32_t comp, const HloVal *x,
	const HloVal *y, HloVal *dst);	/* dst = comp(x, y) elementwise */
void ev_reduce_add(HloEval *ev, HloVal *x, const int64_t *dims, int rank,
	const uint8_t *red, HloVal *out);	/* out = x add-reduced over
				 * the dims red marks (rank >= 1), as reduce
				 * with an add of x's type computes it */
int ev_ctrl(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);
void ev_prog_free(EvProg *p);
int ev_topk_call(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);		/* custom-call "TopK" with a comparator */

/* eval_decomp.c: custom-calls Qr, ProductOfElementaryHouseholderReflectors,
 * Eigh */
int ev_decomp_target(const HloModule *m, const HloInstr *in);
				/* which one in is; -1 none */
int ev_decomp_call(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);
typedef struct {
	int lower, sort;
	int64_t max_iter;
	float tol;
} EvEighCfg;
int ev_eigh_cfg(const HloModule *m, const HloInstr *in, EvEighCfg *cfg);
				/* Eigh's backend_config "lower,sort,
				 * max_iter,tol" as xla's SimpleAtoi and
				 * SimpleAtof read it (eigh_expander.c too);
				 * 0 if it does not parse */

/* eval_fused.c */
int ev_fused(HloEval *ev, uint32_t c, uint32_t i, uint32_t comp,
	HloVal **ops, HloVal **out);
				/* fusion i of c tile by tile: 1 done, 0
				 * not tileable (evaluate it as a call),
				 * -1 failed (ev->status) */
void ev_fx_free(EvFx *f);

/* eval_prng.c */
void ev_philox4x32(uint32_t x[4], uint32_t k0, uint32_t k1);
void ev_threefry2x32(uint32_t x[2], uint32_t k0, uint32_t k1);
int ev_rngbits_exact(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);	/* 1 done, 0 not an exact case, -1 error */
int ev_rng_exact(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);	/* rng as rng-expander expands it: 1, 0, -1 */
void ev_rng_state_model(int64_t delta, uint64_t st[2]);
			/* eval_opaque.c: the u64[2] rng-get-and-update-state
			 * gives for delta */

/* eval_opaque.c */
int ev_opaque(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out);
uint64_t ev_mix64(uint64_t x);
void ev_fill_random(int type, unsigned char *p, int64_t n, uint64_t seed,
	int mode);		/* FILL_POSITIVE: [0.5, 1.5) */
enum { FILL_SMALL, FILL_BITS, FILL_POSITIVE };

#endif
