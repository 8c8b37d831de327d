/* proto.h: private to hlo/proto*.c, the binary proto reader and writer.
 * protobuf types never leave these files. */
#ifndef HLO_PROTO_H
#define HLO_PROTO_H

#include "hlo.h"
#include "hlo.pb-c.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "proto*.c assume a little-endian host"
#endif

/* protobuf-c's longest names */
#define LENPREF PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED
#define RG_IOTA \
	XLA__HLO_INSTRUCTION_PROTO__REPLICA_GROUP_LIST_IOTA_COLLECTIVE_DEVICE_LIST
#define RG_LIST \
	XLA__HLO_INSTRUCTION_PROTO__REPLICA_GROUP_LIST_COLLECTIVE_DEVICE_LIST
#define RG_NONE XLA__HLO_INSTRUCTION_PROTO__REPLICA_GROUP_LIST__NOT_SET
#define XPF_SET XLA__HLO_INSTRUCTION_PROTO__OPTIONAL_CROSS_PROGRAM_\
PREFETCH_INDEX_CROSS_PROGRAM_PREFETCH_INDEX

enum {
	EXT = 424242,		/* private extension field number */
	MAXDEPTH = 100,		/* message nesting accepted */
	MAXRANK = 4096,
};

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct Chunk Chunk;
struct Chunk {
	Chunk *next;
	size_t used, cap;
	max_align_t data[];
};

typedef struct {
	Chunk *head;
} Arena;

typedef struct {
	int64_t *v;
	size_t n, cap;
} Vec;

/* one field of a wire-format buffer */
typedef struct {
	uint32_t num;
	int wt;
	uint64_t v;		/* varint and fixed values */
	const uint8_t *p;	/* length-delimited payload */
	size_t n;
} WField;

typedef struct {
	const char *p, *e;
} Lx;

/* the writer */
typedef struct {
	const HloModule *m;
	HloModule *s;		/* scratch module: the reader's results */
	Arena a;
	HloError *e;
	Xla__ShapeProto **shcache;	/* by shape id of m */
	uint64_t nid;		/* next instruction id */
	uint32_t *compid;	/* computation index -> proto id */
	int sched;		/* is_scheduled: write the schedule */
	Xla__HloScheduleProto__SequencesEntry **seq;
	size_t nseq;
} Wr;

/* the wire walk */
typedef struct {
	const uint8_t *base;
	size_t off;
	char why[160];
} Walk;

/* the reader's attribute list */
typedef struct {
	HloModule *m;
	HloAttr *v;
	uint32_t n, cap;
	HloBuf t;
	char why[256];
} Ab;

typedef struct {
	Xla__DotDimensionNumbers *dot;
	Xla__RaggedDotDimensionNumbers *ragged;
	Xla__PrecisionConfig *prec;
} Sub;

/* hlo/proto_wire.c */
void *hlo_aalloc(Arena *a, size_t n);
void *hlo_aallocn(Arena *a, size_t n, size_t size);
char *hlo_astrndup(Arena *a, const char *s, size_t n);
void hlo_afree(Arena *a);
void hlo_vpush(Vec *v, int64_t x);
int64_t *hlo_adupvec(Arena *a, const int64_t *v, size_t n);
void *hlo_adupn(Arena *a, const void *p, size_t n, size_t size);
				/* n elements of size copied into n + 1
				 * (a repeated field's array) */
protobuf_c_boolean *hlo_abools(Arena *a, size_t n);
ProtobufCAllocator hlo_pcallocator(Arena *a);
void hlo_putvarint(HloBuf *b, uint64_t v);
void hlo_puttag(HloBuf *b, uint32_t field, int wt);
void hlo_putlenfield(HloBuf *b, uint32_t field, const void *p, size_t n);
size_t hlo_getvarint(const uint8_t *p, const uint8_t *e, uint64_t *v);
int hlo_nextfield(const uint8_t **pp, const uint8_t *e, WField *f);
int hlo_walkmsg(Walk *w, const ProtobufCMessageDescriptor *d, const uint8_t *p,
	const uint8_t *e, int depth);
int hlo_ismodule(const uint8_t *p, const uint8_t *e);
void hlo_unwrap(const uint8_t **pp, const uint8_t **pe);
void hlo_addext(Arena *a, ProtobufCMessage *msg, const HloBuf *x);
int hlo_getext(const ProtobufCMessage *msg, const uint8_t **p, size_t *n);

/* hlo/proto_lex.c */
void hlo_putints(HloBuf *b, const int64_t *v, size_t n);
uint32_t hlo_strid(HloModule *m, const void *p, size_t n);
void hlo_lxws(Lx *l);
int hlo_lxc(Lx *l, int c);
int hlo_lxpeek(Lx *l, int c);
int hlo_lxend(Lx *l);
int hlo_lxword(Lx *l, const char **s, size_t *n);
int hlo_lxkw(Lx *l, const char *kw);
int hlo_lxint(Lx *l, int64_t *v);
int hlo_lxstr(Lx *l, HloBuf *b);
int hlo_lxlist(Lx *l, Vec *v, int open, int close);
				/* OPEN int, int, ... CLOSE into v (emptied
				 * first) */
int hlo_lxskip(Lx *l);

/* hlo/proto_shape.c */
int hlo_psshape(Lx *l, HloModule *m, uint32_t *out, int depth);
int hlo_rdshape(HloModule *m, const Xla__ShapeProto *sp, uint32_t *out, int depth,
	char *why, size_t nwhy);
Xla__ShapeProto *hlo_wrshape(Wr *w, const HloModule *mm, uint32_t s, int deflayout);
int hlo_rdlit(HloModule *m, const Xla__LiteralProto *lp, uint32_t s, HloBuf *out,
	int depth, char *why, size_t nwhy);
Xla__LiteralProto *hlo_wrlit(Wr *w, uint32_t s, const uint8_t *b, size_t nb, size_t *pos,
	int depth);

/* hlo/proto_lang.c */
int hlo_lookup(const char *const *tab, int n, const char *s, size_t len);
const char *hlo_ename(const char *const *tab, int n, int v);
void hlo_prfloat(HloBuf *b, float f);
void hlo_prmeta(HloBuf *b, const Xla__OpMetadata *md);
int hlo_psmeta(Lx *l, Arena *a, Xla__OpMetadata *md);
int hlo_prsharding(HloBuf *b, const Xla__OpSharding *s, int depth);
int hlo_pssharding(Lx *l, Arena *a, Xla__OpSharding *s, int depth);
void hlo_prfattrs(HloBuf *b, const Xla__FrontendAttributes *fa);
int hlo_psfattrs(Lx *l, Arena *a, Xla__FrontendAttributes *fa);
void hlo_prgroups(HloBuf *b, Xla__ReplicaGroup **g, size_t n);
void hlo_priota(HloBuf *b, const Xla__IotaReplicaGroupListProto *io);
int hlo_psgroups(Lx *l, Arena *a, Xla__HloInstructionProto *ip);
void hlo_prpairs(HloBuf *b, Xla__SourceTarget **p, size_t n);
int hlo_pspairs(Lx *l, Arena *a, Xla__HloInstructionProto *ip);
int hlo_psprec(Lx *l, Arena *a, Xla__PrecisionConfig *pc);
void hlo_pralias(HloBuf *b, Xla__OutputOperandAliasing **v, size_t n);
int hlo_psalias(Lx *l, Arena *a, Xla__HloInstructionProto *ip);
int hlo_prlabels(HloBuf *b, const Xla__ConvolutionDimensionNumbers *d);
int hlo_pslabels(const char *s, size_t n, Arena *a, Xla__ConvolutionDimensionNumbers *d);
void hlo_prframes(HloBuf *b, const Xla__StackFrameIndexProto *f);
int hlo_psframes(const char *s, size_t n, Arena *a, Xla__StackFrameIndexProto *f);
void hlo_prioalias(HloBuf *b, const Xla__HloInputOutputAliasProto *io);
int hlo_psioalias(Lx *l, Arena *a, Xla__HloInputOutputAliasProto *io);
void hlo_prdonor(HloBuf *b, const Xla__HloBufferDonorProto *d);
int hlo_psdonor(Lx *l, Arena *a, Xla__HloBufferDonorProto *d);
extern const char *const hlo_precname[3];
extern const char *const hlo_algname[14];
extern const char *const hlo_distname[3];
extern const char *const hlo_rngalgname[3];
extern const char *const hlo_fftname[4];
extern const char *const hlo_transname[4];
extern const char *const hlo_schedname[3];
extern const char *const hlo_apiname[5];
extern const char *const hlo_padtypename[3];

/* hlo/proto_rdattr.c */
void hlo_abpush(Ab *b, HloAttr a);
int hlo_abints(Ab *b, int key, const int64_t *v, size_t n);
int hlo_abtext(Ab *b, int key, int kind, const void *s, size_t n);
int hlo_hasprecision(int op);
const char *hlo_defcmptype(int t);
int hlo_rdattrs(Ab *b, const Xla__HloInstructionProto *ip, int op, uint32_t s,
	int t0);

/* hlo/proto_wrattr.c */
Lx hlo_alx(Wr *w, const HloAttr *a);
int hlo_aname(const HloModule *m, const HloAttr *a, const char *name);
Xla__DotDimensionNumbers *hlo_subdot(Wr *w, Sub *s, Xla__HloInstructionProto *ip, int op);
Xla__PrecisionConfig *hlo_subprec(Wr *w, Sub *s, Xla__HloInstructionProto *ip);
void hlo_wrattr(Wr *w, Sub *s, Xla__HloInstructionProto *ip, int op,
	const HloAttr *a);

/* hlo/proto_field.c */
const char *hlo_attr_path(int key);
const ProtobufCFieldDescriptor *hlo_pbfield(const ProtobufCMessageDescriptor *d,
	const char *path, const ProtobufCFieldDescriptor **sub);
ProtobufCMessage *hlo_pbsub(Arena *a, ProtobufCMessage *msg,
	const ProtobufCFieldDescriptor *fd);
ProtobufCMessage *hlo_pbsubname(Arena *a, ProtobufCMessage *msg,
	const char *name);
int64_t hlo_field_num(const ProtobufCMessage *msg,
	const ProtobufCFieldDescriptor *fd);
int hlo_abfield(Ab *b, const ProtobufCMessage *msg,
	const ProtobufCFieldDescriptor *fd, int key, int op);
char *hlo_aword(Wr *w, const HloAttr *a);
int hlo_wrfield(Wr *w, ProtobufCMessage *ip, const HloAttr *a,
	const char *path);

/* hlo/proto_ext.c */
int hlo_attrsame(const HloModule *m, const HloAttr *a, const HloModule *s,
	const HloAttr *b);
int hlo_attrdiff(HloBuf *x, const HloModule *m, const HloAttr *a, uint32_t na,
	const HloModule *s, const HloAttr *r, uint32_t nr);
int hlo_extapply(Ab *b, const uint8_t *p, size_t n, unsigned *flags);

#endif
