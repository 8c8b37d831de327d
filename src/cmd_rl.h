/* cmd_rl.h: the RL agents in the driver (src/cmd_train.c): the flags
 * every agent command shares (one per hyperparameter of
 * src/rl/params.def, plus the environment's), hlopt train, the hook
 * through which hlopt search runs ppo|dqn|a2c, and the pass sequence a
 * policy file picks for hlopt optimize --policy */
#ifndef CMD_RL_H
#define CMD_RL_H

#include <argtable2.h>

#include "hlo.h"
#include "pass.h"
#include "search.h"
#include "run.h"

typedef struct {
	int algo;			/* RL_* */
	struct arg_str **param;		/* one per rl_param_info entry */
	struct arg_lit *shaping;
	struct arg_int *lastk;
	struct arg_str *curve, *plot;
	void **table;			/* the command's table, ours inserted */
	int ntable;
	EnvOpts eo;
	RlRunOpts ro;
	RlRun run;
	int ran;
} CmdRl;

void **cmd_rl_table(CmdRl *c, void **base, int nbase, const char *curve,
	int *n);	/* base's entries with ours before its last (arg_end);
			 * curve: the learning curve's flag ("log", "curve") */
int cmd_rl_setup(CmdRl *c, int algo, int *status);
			/* the hyperparameters from the flags; -1 after a
			 * usage message (*status 2) */
int cmd_rl_search(CmdRl *c, const HloModule *in, const SearchOpts *so,
	SearchResult *r, HloError *e);
			/* trains on in within so's budget, time, seed and
			 * jobs; r as search_run fills it */
void cmd_rl_report(const CmdRl *c, HloBuf *b, int json);
			/* the hyperparameters: a text line, or a JSON
			 * member ("rl": {...},) */
int cmd_rl_curves(const CmdRl *c, const char *title, HloError *e);
			/* writes the --curve/--log CSV and the --plot SVG */
void cmd_rl_free(CmdRl *c);	/* not the table's entries (the command
				 * frees its whole table) */
int cmd_policy_seq(const HloModule *m, const char *path, int samples,
	int climb, uint64_t seed, PassSeq *seq, HloError *e);
			/* the sequence the policy in path picks for m;
			 * climb < 0: as many climbing rollouts as the
			 * policy file records */
#endif
