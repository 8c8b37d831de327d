/* cmd_dump.h: optimize's --dump-after/--dump-to and --diff
 * (src/cmd_dump.c) */
#ifndef CMD_DUMP_H
#define CMD_DUMP_H

#include "hlo.h"
#include "pass.h"

typedef struct {
	const char *dir;	/* --dump-to */
	int all;		/* --dump-after all */
	PassSeq only;		/* else these passes */
	unsigned step;		/* passes run so far */
	unsigned files;		/* modules written */
} CmdDump;

int cmd_dump_init(CmdDump *d, const char *which, const char *dir,
	int *status);		/* -1 after a message, *status 2 */
void cmd_dump_free(CmdDump *d);
int cmd_dump_after(const HloModule *m, int pass, int changed, void *arg,
	HloError *e);		/* a PassCtx.after hook; arg is a CmdDump */
int64_t cmd_diff(const HloModule *before, const HloModule *after,
	HloBuf *out);		/* lines written */

#endif
