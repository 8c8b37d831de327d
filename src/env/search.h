/* search.h: pass-order search over the environment (src/env/search.c,
 * minimize.c): random search with patience, greedy search and beam search,
 * run on N worker threads with a result that does not depend on N, and
 * delta debugging of the best sequence. Used by src/cmd_search.c.
 */
#ifndef SEARCH_H
#define SEARCH_H

#include "envi.h"
#include "pass.h"

enum { SEARCH_RANDOM, SEARCH_GREEDY, SEARCH_BEAM, SEARCH_NALGO };

typedef struct {
	int64_t steps;		/* steps so far */
	double best;		/* best objective so far */
	double seconds;		/* since the start */
	double fraction;	/* of the budget or time done, 0..1; -1
				 * unknown */
} SearchProgress;

typedef struct {
	int algo;		/* SEARCH_* */
	int64_t budget;		/* steps (pass applications); 0: none */
	double seconds;		/* wall time; 0: none */
	int episode_len;	/* random: steps per episode (0: until the
				 * patience runs out); greedy, beam: depth at most
				 * (0: unlimited) */
	int patience;		/* random: end an episode after this many
				 * steps without improvement (0: 1.25 x
				 * actions); beam: stop after this many
				 * depths without a better best (0: never) */
	uint64_t seed;
	int jobs;		/* worker threads */
	int beam_width;
	int objective;		/* ENV_OBJ_* */
	void (*progress)(void *arg, const SearchProgress *p);
	void *arg;		/* progress is called from one thread at a
				 * time, about every 0.2 s */
} SearchOpts;

typedef struct {
	int64_t steps;		/* steps counted at this improvement */
	double best;
	int *seq;
	int nseq;
} SearchImprovement;

typedef struct {
	double initial, best;	/* the objective of the input, of the best */
	int *seq;		/* the best sequence (pass ids) */
	int nseq;
	int64_t steps;		/* steps counted (see the man page) */
	int64_t passes_run;	/* passes really run (not skipped as known
				 * no-ops) */
	double seconds;
	uint64_t lookups, hits;	/* transposition table */
	EnvTimes times;		/* summed over the threads; reset is the
				 * time spent cloning states */
	char found_by[128];	/* "random: episode 3, step 7", ... */
	char warning[1200];	/* a pass that failed, else empty */
	SearchImprovement *log;	/* improvements, in order */
	int nlog;
} SearchResult;

const char *search_algo_name(int algo);
int search_algo_by_name(const char *name);	/* -1 if unknown */
void search_opts_default(SearchOpts *o);
int search_run(const HloModule *in, const SearchOpts *o, SearchResult *r,
	HloError *e);		/* 0 ok, -1 error */
void search_result_free(SearchResult *r);

/* replays seq on a clone of in: the module (*out, may be NULL) and the
 * objective reached; log (may be NULL) gets one PassStep per pass */
int search_replay(const HloModule *in, const int *seq, int n,
	int objective, double *value, HloModule **out, PassLog *log,
	HloError *e);

/* minimize.c: a shortest subsequence of seq (1-minimal: dropping any
 * one pass of it loses) whose replay reaches an objective <= target;
 * *out malloc'd. tests counts the replays */
int search_minimize(const HloModule *in, const int *seq, int n,
	int objective, double target, int **out, int *nout, int *tests,
	HloError *e);

#endif
