/* parsei.h: between the text reader (parse.c) and the work it leaves for
 * when every name of the module is resolved (parse_post.c): the shapes an
 * instruction may leave out, which xla's parser infers, and the async
 * forms "call-start(...)", "dynamic-slice-start(...)", ..., which wrap
 * the instruction in a computation of its own. Nothing outside hlo/
 * includes it. */
#ifndef HLO_PARSEI_H
#define HLO_PARSEI_H

#include "hlo.h"

/* one instruction left for after the parse */
typedef struct {
	uint32_t c, i;		/* computation, instruction */
	uint32_t pos;		/* source offset, for messages */
	int wrapped;		/* async-start: the wrapped opcode; else -1 */
} HloPostItem;

/* HloInstr.src of text positions given in increasing order */
typedef struct {
	const char *at, *bol;	/* counted up to at, in the line that
				 * starts at bol */
	uint32_t line;
} HloSrcLines;
uint32_t hlo_post_srcpos(HloSrcLines *l, const char *start,
	const char *at);	/* line << 10 | column (at most 1023) of at
				 * in the text at start; 0 past 4M lines */

int hlo_post_can_infer(int op);
				/* xla's CanInferShape: may op leave its
				 * result shape out? */
int hlo_post_async_op(const char *s, size_t n, int *wrapped);
				/* "OP-start", "OP-update", "OP-done" for an
				 * opcode OP: async-start, -update, -done
				 * wrapping OP (*wrapped), as xla's
				 * ParseOpcode reads them; -1 if none */
int hlo_post_arity(HloModule *m, int op, const HloAttr *at, uint32_t nat,
	uint32_t nops, HloError *e);
				/* nops fits op's arity; a dot takes one more
				 * operand (its metadata) per sparsity
				 * descriptor of at[0..nat) (checked as xla's
				 * ParseSparsityDescriptor does); -1 and a
				 * message (no position) if not */
int hlo_post_infer(HloModule *m, const HloPostItem *it, uint32_t n,
	uint32_t *bad, HloError *e);
				/* infers the shape of every it[k] (shape
				 * HLO_NONE), operands first; on failure -1,
				 * *bad the item and e the reason (no
				 * position) */
int hlo_post_wrap(HloModule *m, const HloPostItem *it, uint32_t n,
	uint32_t *bad, HloError *e);
				/* async-starts written "OP-start(...)":
				 * each gets a computation "async_wrapped"
				 * whose root is OP over its parameters, with
				 * the start's attributes and called
				 * computations but async_execution_thread;
				 * -1 and *bad as above */

#endif
