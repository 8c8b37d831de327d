/* change_op_data_type.h: xla's ChangeOpDataType as a building block
 * (change_op_data_type.c): instructions a predicate picks, whose operands
 * all have a type of the map, are computed in the mapped type between
 * converts. change-op-data-type (XLA:CPU's f16 dots and convolutions in
 * f32) and all-reduce-promotion (bf16 all-reduces in f32) run it. */
#ifndef CHANGE_OP_DATA_TYPE_H
#define CHANGE_OP_DATA_TYPE_H

#include "build.h"

typedef struct {
	const int (*map)[2];	/* {from, to} element types */
	uint32_t nmap;
	/* the instructions to change (besides the type rules) */
	int (*match)(PassEdit *ed, uint32_t i);
	/* after the copy x of i was given its new type to: what else the
	 * copy needs (all-reduce-promotion: a reducer in the new type);
	 * NULL for nothing */
	void (*fixup)(PassEdit *ed, uint32_t x, int to);
} PassChangeType;

int pass_change_op_type(HloModule *m, PassCtx *ctx, const PassChangeType *t);

#endif
