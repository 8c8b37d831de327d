/* hlo.h: the HLO IR of hlopt and everything that reads, writes and checks it.
 *
 * A module owns a few growable pools (ids, ints, bytes, attrs, shapes) and
 * an array of computations, each with its own array of instructions.
 * Everything inside refers to everything else by integer id or pool
 * offset, never by pointer, so cloning a module is one memcpy per pool and
 * per computation, and growing a pool never leaves a dangling reference.
 *
 * Pointers returned by the accessors below (hlo_ops, hlo_ints, ...) point
 * into pools: they are valid only until the next call that may grow that
 * pool (anything that adds instructions, attributes, shapes or strings).
 * Hold ids across such calls, not pointers.
 */
#ifndef HLO_H
#define HLO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* opcodes: HOP_ADD, HOP_DOT, ... (hlo/ops.def) */
enum {
#define OP(e, name, arity, flags, fam) HOP_##e,
#include "ops.def"
#undef OP
	HOP_COUNT
};

/* opcode property flags */
enum {
	OPF_ELEM = 1 << 0,
	OPF_COMM = 1 << 1,
	OPF_SIDE = 1 << 2,
	OPF_COLL = 1 << 3,
	OPF_TRANS = 1 << 4,
	OPF_CALLS = 1 << 5,
	OPF_ASYNC = 1 << 6,
};

/* opcode families (hlo/ops.def documents each); the elementwise ones
 * first, the ones whose results do not follow from operand values last */
enum {
	OPFAM_UNARY, OPFAM_BINARY, OPFAM_COMPARE, OPFAM_SELECT, OPFAM_CONVERT,
	OPFAM_LEAF, OPFAM_DATA, OPFAM_TUPLE, OPFAM_REDUCE, OPFAM_LINALG,
	OPFAM_CONTROL, OPFAM_COLLECTIVE, OPFAM_IO, OPFAM_RANDOM, OPFAM_OPAQUE,
	OPFAM_COUNT
};

typedef struct {
	const char *name;
	int arity;		/* -1: variadic */
	unsigned flags;		/* OPF_* */
	int family;		/* OPFAM_* */
} HloOpInfo;

extern const HloOpInfo hlo_opinfo[HOP_COUNT];

#define hlo_op_family(op) (hlo_opinfo[op].family)
#define hlo_op_elementwise_family(op) (hlo_opinfo[op].family <= \
	OPFAM_CONVERT)		/* unary, binary, compare, select, convert */
#define hlo_op_external_family(op) (hlo_opinfo[op].family >= \
	OPFAM_COLLECTIVE)	/* collective, io, random, opaque: results
				 * from other devices, the host or a library */

/* element types: TY_F32, TY_BF16, ... (hlo/types.def) */
enum {
#define TY(e, name, num, bits, cls) TY_##e,
#include "types.def"
#undef TY
	TY_COUNT
};

enum { C_PRED, C_SINT, C_UINT, C_FLOAT, C_CPLX, C_OTHER };

typedef struct {
	const char *name;
	int proto;		/* xla.PrimitiveType number */
	int bits;
	int cls;
} HloTypeInfo;

extern const HloTypeInfo hlo_typeinfo[TY_COUNT];

/* attribute keys: A_DIMENSIONS, A_SLICE, ... (hlo/attrs.def) */
enum {
#define ATTR(e, key, kind, flags, field) A_##e,
#include "attrs.def"
#undef ATTR
	A_COUNT
};

enum { K_INT, K_BOOL, K_INTS, K_SLICE, K_PAD, K_WINDOW, K_WORD, K_STR,
	K_RAW, K_LITERAL };
enum { AF_META = 1, AF_LOWER = 2 };

typedef struct {
	const char *key;
	int kind;
	unsigned flags;
} HloAttrInfo;

extern const HloAttrInfo hlo_attrinfo[A_COUNT];

#define HLO_NONE UINT32_MAX	/* "no id" */
#define HLO_ELIDED UINT32_MAX	/* HloAttr.v of a literal printed as {...} */

typedef struct {
	uint16_t key;		/* A_* */
	uint16_t kind;		/* K_*, as hlo_attrinfo[key].kind except A_OTHER */
	uint32_t name;		/* A_OTHER: string id of the key; else 0 */
	uint32_t n;		/* element count for pool-backed kinds */
	uint32_t pad;
	int64_t v;		/* the value (K_INT, K_BOOL) or a pool offset */
} HloAttr;

/* shapes are interned: equal shapes (layout included) have equal ids */
enum {
	SH_LAYOUT = 1 << 0,	/* has an explicit {minor_to_major} layout */
};

typedef struct {
	uint8_t type;		/* TY_* */
	uint8_t flags;		/* SH_* */
	uint16_t rank;		/* arrays: number of dims */
	uint32_t dims;		/* ints pool: rank dims, then, with SH_LAYOUT,
				 * rank minor_to_major entries */
	uint32_t ntuple;	/* TY_TUPLE: element count */
	uint32_t tuple;		/* ids pool: element shape ids */
	uint32_t tail;		/* string id of the layout text after ':',
				 * e.g. "T(8,128)S(1)"; 0 if none */
	uint32_t pad;
	uint64_t dynmask;	/* bit d set: dim d is dynamic, printed <=N */
} HloShape;

/* instruction flags */
enum {
	HI_DEAD = 1 << 0,	/* deleted; skipped everywhere, removed by
				 * hlo_comp_compact */
	HI_CCFLAG = 1 << 1,	/* custom-call printed its computations as
				 * to_apply= rather than called_computations= */
	HI_BRANCHES = 1 << 2,	/* conditional printed branch_computations=
				 * though it has two branches */
};

typedef struct {
	uint16_t op;		/* HOP_* */
	uint16_t flags;		/* HI_* */
	uint32_t name;		/* string id, unique in the module */
	uint32_t shape;		/* shape id */
	uint32_t nops, ops;	/* operands: ids pool, instruction ids in the
				 * same computation */
	uint32_t ncalled, called;	/* called computations: ids pool, in
				 * xla's called_computations order: while
				 * body then condition; conditional its
				 * branches (true, false); select-and-
				 * scatter select then scatter */
	uint32_t nctrl, ctrl;	/* control predecessors: ids pool */
	uint32_t nattrs, attrs;	/* attrs pool, sorted by key */
	uint32_t src;		/* where the text reader found it: line <<
				 * 10 | column (at most 1023); 0 unknown
				 * (protos, instructions passes made) */
	int64_t num;		/* parameter number (parameter only) */
} HloInstr;

enum {
	HC_FUSION = 1 << 0,	/* is a fusion computation */
};

typedef struct {
	uint32_t name;		/* string id */
	uint32_t flags;		/* HC_* */
	uint32_t root;		/* instruction id */
	uint32_t thread;	/* string id of execution_thread, 0 if main */
	HloInstr *ins;		/* instructions, in print order */
	uint32_t nins, cap;
} HloComp;

typedef struct {
	/* computations; entry is an index into comps */
	HloComp *comps;
	uint32_t ncomps, capcomps;
	uint32_t entry;
	uint32_t name;		/* string id of the module name */
	uint32_t nhattrs, hattrs;	/* header attributes (attrs pool, A_OTHER,
				 * K_RAW, in input order): is_scheduled,
				 * entry_computation_layout, ... */
	uint32_t frames;	/* string id: verbatim FileNames/StackFrames
				 * tables of newer dumps; 0 if none */
	uint32_t nexttmp;	/* suffix counter for hlo_fresh_name */

	/* pools */
	uint32_t *ids;
	uint32_t nids, capids;
	int64_t *ints;
	uint32_t nints, capints;
	char *bytes;		/* strings are NUL terminated */
	uint32_t nbytes, capbytes;
	HloAttr *attrv;
	uint32_t nattrv, capattrv;
	HloShape *shapes;
	uint32_t nshapes, capshapes;

	/* intern tables: open addressing, 0 = empty slot, else id + 1;
	 * strtab pairs each slot with its string's hash (ir.c) */
	uint32_t *strtab;
	uint32_t capstrtab, nstr;
	uint32_t *shapetab;
	uint32_t capshapetab;
	/* hlo_unique_name's hints: open addressing, pairs (id + 1 of a
	 * base, 0: empty; the next suffix to try for it) */
	uint32_t *sufhint;
	uint32_t capsufhint, nsufhint;
} HloModule;

/* errors: library code fills one of these and returns -1; only the
 * driver prints and exits. msg is complete ("f.hlo:3:7: error: ...") */
typedef struct {
	char msg[1024];
} HloError;

/* hlo/util.c */
double hlo_now(void);		/* monotonic clock, seconds */
void *xmalloc(size_t n);
void xnomem(void) __attribute__((noreturn));	/* out of memory: exit */
void xfatal(const char *what) __attribute__((noreturn));
				/* "hlopt: error: WHAT", exit 1: the one
				 * exit outside src/main.c (resources gone) */
void *xcalloc(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
void *hlo_grow(void *p, uint32_t n, uint32_t *cap, uint32_t first,
	size_t size);	/* room for element n: cap doubled (first if 0) */
char *xstrdup(const char *s);
int hlo_err(HloError *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int hlo_err_file(HloError *e, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
				/* "FILE: error: MSG"; returns -1 */
int hlo_err_at(HloError *e, const char *file, unsigned line, unsigned col,
	const char *fmt, ...) __attribute__((format(printf, 5, 6)));
				/* "FILE:LINE:COL: error: MSG" (a 0 line or
				 * col left out); returns -1 */
int hlo_err_in(HloError *e, const char *file, const char *what,
	const char *comp, const char *ins, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
				/* "[FILE: ]error: [WHAT: ]computation C[,
				 * instruction I]: MSG"; file, what, ins may
				 * be NULL; returns -1 */
int hlo_read_file(const char *path, char **data, size_t *len, HloError *e);
int hlo_write_file(const char *path, const void *data, size_t len,
	HloError *e);		/* "-" is stdout; else a temporary file in the
				 * same folder, renamed over path when complete */
typedef struct {
	const char *path;	/* "-": stdout */
	const void *data;
	size_t len;
} HloOutput;
int hlo_write_files(const HloOutput *o, size_t n, HloError *e);
				/* all or none: temporary files renamed
				 * over their targets once every output is
				 * written; a symbolic link's target is
				 * replaced; an existing file keeps its mode */
typedef struct {
	char *buf;
	size_t len, cap;
} HloBuf;
void hlo_buf_put(HloBuf *b, const char *s, size_t n);
void hlo_buf_puts(HloBuf *b, const char *s);
void hlo_buf_printf(HloBuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hlo_buf_json(HloBuf *b, const char *s);
				/* s as a JSON string: quoted, escaped,
				 * bytes not UTF-8 as U+FFFD */
void hlo_buf_free(HloBuf *b);

/* hlo/ir.c: module, pools, interning */
HloModule *hlo_module_new(void);
void hlo_module_free(HloModule *m);
HloModule *hlo_module_clone(const HloModule *m);
void hlo_module_copy(HloModule *dst, const HloModule *src);
				/* dst as a clone of src, in its memory */
uint32_t hlo_str(HloModule *m, const char *s, size_t n);
uint32_t hlo_str_suffixed(HloModule *m, const char *base, size_t n,
	unsigned k);	/* base "." k interned, HLO_NONE if it existed */
uint32_t hlo_strz(HloModule *m, const char *s);
uint32_t hlo_str_new(HloModule *m, const char *s, size_t n);
				/* s interned if no string has it yet: its
				 * id, else HLO_NONE */
uint32_t hlo_unique_name(HloModule *m, const char *base);
				/* base interned if it is not yet, else the
				 * first of base.1, base.2, ... (base cut at
				 * 250 bytes) that is not */
uint32_t hlo_find_str(const HloModule *m, const char *s, size_t n);
#define hlo_cstr(m, id) ((const char *)(m)->bytes + (id))
uint32_t hlo_push_ids(HloModule *m, const uint32_t *v, uint32_t n);
uint32_t hlo_push_ints(HloModule *m, const int64_t *v, uint32_t n);
uint32_t hlo_push_bytes(HloModule *m, const void *v, uint32_t n);
uint32_t hlo_push_attrs(HloModule *m, const HloAttr *v, uint32_t n);

/* shapes */
uint32_t hlo_shape(HloModule *m, int type, int rank, const int64_t *dims,
	const int64_t *m2m, uint64_t dynmask, uint32_t tail);
uint32_t hlo_shape_tuple(HloModule *m, uint32_t n, const uint32_t *elems);
uint32_t hlo_shape_buffer(HloModule *m, uint32_t array);
				/* b(f32[2]): TY_BUFFER, ntuple 1 */
uint32_t hlo_shape_scalar(HloModule *m, int type);
uint32_t hlo_shape_with_type(HloModule *m, uint32_t s, int type);
uint32_t hlo_shape_no_layout(HloModule *m, uint32_t s);
uint32_t hlo_shape_default_layout(HloModule *m, uint32_t s);
#define hlo_sh(m, id) (&(m)->shapes[id])
#define hlo_dims(m, sh) ((m)->ints + (sh)->dims)
#define hlo_m2m(m, sh) ((m)->ints + (sh)->dims + (sh)->rank)
#define hlo_tuple_elems(m, sh) ((m)->ids + (sh)->tuple)
int64_t hlo_shape_elems(const HloModule *m, uint32_t s);	/* -1 overflow */
int64_t hlo_shape_bytes(const HloModule *m, uint32_t s);	/* arrays: elems
				 * * bytes; tuples: 8 per element */
int hlo_shape_eq_nolayout(const HloModule *m, uint32_t a, uint32_t b);
int hlo_shape_compatible(const HloModule *m, uint32_t a, uint32_t b);
				/* same dims, ignoring element type and layout */
int hlo_shape_eq_across(const HloModule *a, uint32_t sa, const HloModule *b,
	uint32_t sb);		/* shapes of two modules: same element types
				 * and dims (layouts and dynamic marks left
				 * out) */
int hlo_type_bytes(int type);
int hlo_type_by_name(const char *s, size_t n);	/* -1 if unknown */
int hlo_op_by_name(const char *s, size_t n);	/* -1 if unknown */
int hlo_attr_by_key(const char *s, size_t n);	/* -1 if unknown */

/* idx the next index of dims[0 .. rank) in row-major order (the last
 * dim fastest); 0 after the last, idx back to all 0 */
static inline int
hlo_index_next(int64_t *idx, const int64_t *dims, int rank)
{
	int d;

	for (d = rank - 1; d >= 0; d--) {
		if (++idx[d] < dims[d])
			return 1;
		idx[d] = 0;
	}
	return 0;
}

/* computations and instructions */
uint32_t hlo_comp_add(HloModule *m, uint32_t name);
uint32_t hlo_instr_add(HloModule *m, uint32_t c, int op, uint32_t shape,
	uint32_t name, uint32_t nops, const uint32_t *ops);
#define hlo_ins(m, c, i) (&(m)->comps[c].ins[i])
#define hlo_ops(m, in) ((m)->ids + (in)->ops)
#define hlo_called(m, in) ((m)->ids + (in)->called)
#define hlo_ctrl(m, in) ((m)->ids + (in)->ctrl)
#define hlo_ints_at(m, off) ((m)->ints + (off))
void hlo_set_operands(HloModule *m, uint32_t c, uint32_t i, uint32_t n,
	const uint32_t *ops);
void hlo_set_called(HloModule *m, uint32_t c, uint32_t i, uint32_t n,
	const uint32_t *comps);
void hlo_set_ctrl(HloModule *m, uint32_t c, uint32_t i, uint32_t n,
	const uint32_t *preds);
uint32_t hlo_fresh_name(HloModule *m, const char *base);
size_t hlo_name_base_len(const char *name);
				/* name without its ".N" suffix, which
				 * hlo_fresh_name replaces */
uint32_t hlo_instr_clone(HloModule *m, uint32_t c, uint32_t i);
				/* same op, shape, operands, attrs; new name */
uint32_t hlo_comp_clone(HloModule *m, uint32_t c, const char *suffix);
int hlo_param_count(const HloModule *m, uint32_t c);
int64_t hlo_replica_group_size(const HloModule *m, const HloInstr *in);
				/* first replica group's size; {{}}: 0;
				 * -1 if unknown */
int64_t hlo_header_int(const HloModule *m, const char *key, int64_t dflt);
				/* the module header attribute key
				 * (replica_count=, num_partitions=) as a
				 * number; dflt if absent or not one */
uint32_t hlo_param(const HloModule *m, uint32_t c, int64_t num);
				/* the instruction id, HLO_NONE if absent */
int hlo_comp_has_op(const HloModule *m, uint32_t c, int op);
				/* 1: computation c has a live instruction
				 * of opcode op */

/* attributes */
const HloAttr *hlo_attr(const HloModule *m, const HloInstr *in, int key);
int64_t hlo_attr_int(const HloModule *m, const HloInstr *in, int key,
	int64_t dflt);
const int64_t *hlo_attr_ints(const HloModule *m, const HloInstr *in,
	int key, uint32_t *n);
const int64_t *hlo_attr_list(const HloModule *m, const HloInstr *in,
	int key, uint32_t *n);	/* hlo_attr_ints, but an empty list (not
				 * NULL) when absent */
int hlo_ints_has(const int64_t *v, uint32_t n, int64_t x);
void hlo_ints_sort(int64_t *v, uint32_t n);	/* ascending */
int hlo_ints_is_iota(const int64_t *v, uint32_t n);	/* v[k] == k */
int hlo_ints_ascending(const int64_t *v, uint32_t n);	/* non-decreasing */
/* a dot's structured N:M sparsity (sparsity=L.3@2:4_R.1@2:4): operand
 * (0 lhs, 1 rhs), its sparse contracting dimension, N < M */
typedef struct {
	int index;
	int64_t dim;
	int n, m;
} HloSparsity;
int hlo_sparsity_parse(const char *s, size_t len, HloSparsity *d, int max);
				/* the descriptors of text s; their count, -1
				 * if malformed or more than max */
int hlo_sparsity_format(const HloSparsity *d, int n, char *buf, size_t cap);
				/* n descriptors as text (L.3@2:4_R.1@2:4);
				 * its length, -1 if over cap */
int hlo_dot_sparsity(const HloModule *m, const HloInstr *in,
	HloSparsity d[2]);	/* a dot's descriptors (0 for a dense dot, -1
				 * malformed); its operands are lhs, rhs, then
				 * one metadata array per descriptor */
				/* x is one of v[0..n) */	/* NULL if absent */
const char *hlo_attr_word(const HloModule *m, const HloInstr *in, int key,
	uint32_t *n);		/* K_WORD/K_STR/K_RAW bytes, NULL if absent */
int hlo_attr_is(const HloModule *m, const HloInstr *in, int key,
	const char *word);	/* K_WORD equals word */
void hlo_set_attrs(HloModule *m, uint32_t c, uint32_t i, uint32_t n,
	const HloAttr *attrs);	/* copies and sorts by key */
void hlo_attr_set(HloModule *m, uint32_t c, uint32_t i, const HloAttr *a);
				/* adds or replaces the attribute a->key
				 * (A_OTHER: matched by name) */
void hlo_attr_del(HloModule *m, uint32_t c, uint32_t i, int key);
HloAttr hlo_mk_int(int key, int64_t v);
HloAttr hlo_mk_ints(HloModule *m, int key, const int64_t *v, uint32_t n);
HloAttr hlo_mk_bytes(HloModule *m, int key, int kind, const void *v,
	uint32_t n);
int hlo_attr_equal(const HloModule *m, const HloAttr *a, const HloAttr *b);
int hlo_attr_value_equal(const HloModule *m, const HloAttr *a,
	const HloModule *s, const HloAttr *b, int elided);
				/* values only, a of m and b of s */
int hlo_attrs_equal(const HloModule *m, const HloInstr *a,
	const HloInstr *b, const uint8_t *ignore);
				/* ignore[key] set: passed over; may be
				 * NULL */
const void *hlo_literal(const HloModule *m, const HloInstr *in,
	uint32_t *nbytes);	/* NULL if absent or elided */

/* derived data, recomputed on demand, never kept in the module */
typedef struct {
	uint32_t *start;	/* users of i: list[start[i] .. start[i+1]) */
	uint32_t *list;
	uint32_t n;
} HloUsers;
void hlo_users(const HloModule *m, uint32_t c, HloUsers *u);
				/* operand users only, each user once per
				 * operand slot; dead instructions skipped */
void hlo_users_free(HloUsers *u);
int hlo_topo(const HloModule *m, uint32_t c, uint32_t *order);
				/* live instructions, operands and control
				 * predecessors first, stable; returns the
				 * count, or -1 on a cycle */
int hlo_comp_order(const HloModule *m, uint32_t *order);
				/* computations reachable from the entry,
				 * callees first; returns the count, -1 on a
				 * call cycle */
int hlo_comp_order_all(const HloModule *m, uint32_t *order);
				/* every computation, callees first, then
				 * the entry; -1 on a call cycle */
void hlo_replace_uses(HloModule *m, uint32_t c, uint32_t from, uint32_t to);
void hlo_replace_uses_in(HloModule *m, uint32_t c, uint32_t from, uint32_t to,
	uint32_t keep, uint32_t limit);	/* only in instructions below
				 * limit, keep's own operands left */
void hlo_forward(HloModule *m, uint32_t c, const uint32_t *map);
				/* every operand, control predecessor and the
				 * root x becomes map[x] (map[x] == x keeps) */
void hlo_comp_renumber(HloModule *m, uint32_t c, const uint32_t *order,
	uint32_t cnt);	/* order[0..cnt) becomes the instruction array,
			 * the others dropped, ids renumbered */
int hlo_comp_compact(HloModule *m, uint32_t c);
				/* drops dead instructions, renumbers in
				 * topological order; -1 on a cycle */
void hlo_module_compact(HloModule *m);
				/* drops computations unreachable from the
				 * entry and renumbers */
int hlo_has_side_effect(const HloModule *m, const HloInstr *in);
				/* xla's HasSideEffectNoRecurse */

/* hlo/float.c: floating-point element types as bit patterns (the low
 * bits of a uint64_t); every C_FLOAT type of types.def */
double hlo_float_decode(int type, uint64_t bits);
uint64_t hlo_float_encode(int type, double v);
				/* round to nearest even; too large: inf, else
				 * NaN, else the largest finite value */
int hlo_float_from_text(int type, double v, uint64_t *bits);
				/* strict: -1 if v overflows the type or its
				 * inf/NaN has no encoding; NaN payloads kept */
int hlo_float_format(int type, uint64_t bits, char *buf, size_t n);
				/* shortest round-tripping text, xla's inf,
				 * -inf, nan, -nan, nan(0x..); n >= 40 */
int hlo_float_has_inf(int type);
int hlo_float_has_nan(int type);
int hlo_float_nan_payload_bits(int type);

/* hlo/parse.c */
int hlo_parse_text(const char *src, size_t n, const char *fname,
	HloModule **out, HloError *e);

/* hlo/print.c */
void hlo_print_shape(const HloModule *m, uint32_t s, HloBuf *b);
void hlo_print_quoted(HloBuf *b, const char *s, size_t n);
				/* "..." with absl::CEscape's escapes */
void hlo_print_instr(const HloModule *m, uint32_t c, uint32_t i, HloBuf *b);
void hlo_print_module(const HloModule *m, HloBuf *b);

/* hlo/proto.c */
int hlo_read_proto(const void *data, size_t n, const char *fname,
	HloModule **out, HloError *e);
int hlo_write_proto(const HloModule *m, HloBuf *b, HloError *e);

/* hlo/load.c: either format, detected from the content */
int hlo_looks_like_proto(const void *data, size_t n);
int hlo_load(const char *path, HloModule **out, HloError *e);
				/* path "-" is stdin */
int hlo_load_args(const char *path, HloModule **out, HloModule **args,
	HloError *e);		/* hlo_load, and *args the arguments of a
				 * snapshot (NULL if none) */

/* hlo/proto_snapshot.c */
int hlo_read_snapshot_args(const void *data, size_t n, const char *fname,
	HloModule **out, HloError *e);
				/* 1: *out holds the argument literals of an
				 * xla.HloSnapshot (or the first partition's
				 * of an HloUnoptimizedSnapshot): one
				 * constant per argument in its entry, then
				 * a root tuple(); 0: data carries none */

/* hlo/verify.c, hlo/infer.c */
int hlo_verify(const HloModule *m, HloError *e);
int hlo_err_src(const HloModule *m, const HloError *e, unsigned *line,
	unsigned *col);		/* where the text had the instruction an
				 * error names; -1 if unknown */
				/* structure, called computations and every
				 * instruction's shape; -1 on the first
				 * problem */
int hlo_infer_shape(HloModule *m, uint32_t c, uint32_t i, uint32_t *shape,
	HloError *e);		/* the shape xla's shape inference gives,
				 * without layout; for opaque ops (custom-call,
				 * bitcast, ...) the instruction's own. checks
				 * this instruction's ids only: the rest of
				 * the module must be valid */
int hlo_infer_compatible(const HloModule *m, uint32_t a, uint32_t b);
				/* xla's ShapeUtil::Compatible: equal but for
				 * layout and which dimensions are dynamic */
#define HLO_CONV_MAXSP 10
typedef struct {
	int nsp;		/* spatial dimension count: rank - 2 */
	int in_batch, in_feature, in_spatial[HLO_CONV_MAXSP];
	int k_in, k_out, k_spatial[HLO_CONV_MAXSP];
	int out_batch, out_feature, out_spatial[HLO_CONV_MAXSP];
} HloConvDnums;			/* dimension numbers of a convolution */
int hlo_conv_dnums(const char *labels, size_t n, int rank, HloConvDnums *d);
				/* decodes dim_labels, e.g. "b01f_01io->b01f";
				 * rank < 0 accepts any rank; -1 if malformed */

#endif
