/* reduce_window.h: what reduce-window-rewriter and reduce-window-resizer
 * share (xla's reduce_window_util), in reduce_window_resizer.c. */
#ifndef REDUCE_WINDOW_H
#define REDUCE_WINDOW_H

#include "build.h"

/* xla's reduce_window_util::Replace1DReduceWindowWithReshape: the
 * rank-1 reduce-window i of the computation ed edits becomes one over
 * its inputs reshaped to [n,1] (a trivial window dimension appended),
 * each result reshaped back (read through a get-tuple-element and
 * gathered in a tuple when variadic); i's users take the result and i
 * is removed. i must have no control dependencies. */
void pass_rw_to_rank2(PassEdit *ed, uint32_t i);

/* element j (an array) of a reduce-window's result: x itself when x is
 * an array, else a new get-tuple-element (xla's GetAtIndex) */
uint32_t pass_rw_at(PassEdit *ed, uint32_t x, uint32_t j);

#endif
