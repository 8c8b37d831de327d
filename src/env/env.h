/* env.h: the pass-ordering environment (src/env/env.c), the C API that the
 * search command and the RL agents (src/rl/) share. It exposes no IR type:
 * an Env is opaque, observations are arrays of doubles, actions are ints
 * (the pass ids of passes/passes.def, append-only, so action a means the
 * same pass in every version).
 *
 * An Env holds a private clone of its input module and a current state.
 * env_reset restores the input (a clone of the cached copy, never a
 * re-parse); env_step applies one pass in place. Nothing is global: any
 * number of Envs may live in one process, and different Envs may be used
 * from different threads at the same time (one Env per thread; env_dup
 * makes more that share the read-only input).
 *
 * Observation layout, version ENV_OBS_VERSION (a trained policy depends on
 * it; any change bumps the version). With A = env_action_count, K =
 * EnvOpts.last_k, O = env_opcode_count (the opcodes of hlo/ops.def, in
 * that order):
 *   [0, O)          instructions per opcode / instructions of the input
 *   O + 0           log1p(FLOPs) / 32
 *   O + 1           log1p(transcendentals) / 32
 *   O + 2           log1p(bytes accessed) / 32
 *   O + 3           log1p(computations) / 16
 *   O + 4           log1p(instructions) / 16
 *   O + 5           steps taken / episode length
 *   O + 6 + k*A + a 1 if the k-th last action (k = 0: the last) was a,
 *                   for k < K; all 0 before the episode has k+1 actions
 * env_obs_size = O + 6 + K * A.
 *
 * Reward of a step: (objective before - objective after) / objective of
 * the input (so the rewards of an episode sum to the fraction of the
 * objective removed); with shaping, gamma * phi(s') - phi(s) is added,
 * phi(s) = -(FLOPs(s) + 2 * transcendentals(s)) / (that of the input, or
 * 1 when it is 0).
 */
#ifndef ENV_H
#define ENV_H

#include <stddef.h>
#include <stdint.h>

#define ENV_OBS_VERSION 1
#define ENV_OBS_FEATURES 6	/* the cost features after the opcodes */

typedef struct Env Env;

/* what a step's reward is measured on */
enum {
	ENV_OBJ_INSTRUCTIONS,	/* live instructions, every computation */
	ENV_OBJ_FLOPS,
	ENV_OBJ_BYTES,		/* bytes accessed */
	ENV_OBJ_TRANSCENDENTALS,
	ENV_OBJ_KERNELS,	/* hlo_cost_kernels: launches */
	ENV_OBJ_COUNT
};

typedef struct {
	int objective;		/* ENV_OBJ_*; default instructions */
	int episode_len;	/* steps per episode; 0: env_action_count */
	int patience;		/* end the episode after this many steps
				 * without a new best objective; 0: never */
	int last_k;		/* past actions in the observation; 0: none */
	int shaping;		/* potential-based shaping of the reward */
	double gamma;		/* shaping's discount; 0 means 0.99 */
	int verify_each;	/* check the module's invariants after every
				 * pass (slow; a broken module is an error) */
	uint64_t seed;		/* for env_sample_action */
} EnvOpts;

/* what one step did */
typedef struct {
	double reward;
	int done;		/* the episode is over: length reached or
				 * patience exhausted (further steps are
				 * errors until env_reset) */
	int changed;		/* the pass changed the module (its own
				 * return value) */
	int cached;		/* the pass was not run: this state and
				 * action were known to change nothing */
	int seen;		/* the state after the step was already in
				 * the transposition table */
	int64_t before, after;	/* live instructions before and after */
	int capped;		/* the step took the module past its size cap
				 * (ENV_GROWTH times the input's instructions
				 * plus ENV_SLACK): the episode ends there */
	double objective;	/* the objective after the step */
	double ms;		/* wall time of the step */
} EnvInfo;

/* the size cap: some passes grow a module each time they run (XLA's
 * stable-sort-expander doubles a comparator it already expanded), so a
 * policy repeating them would exhaust memory */
#define ENV_GROWTH 16
#define ENV_SLACK 100000

void env_opts_default(EnvOpts *o);
int env_objective_by_name(const char *name);	/* ENV_OBJ_*, -1 */
int env_name_index(const char *const *names, int n, const char *name);
				/* i with names[i] equal to name, -1 */
const char *env_name_at(const char *const *names, int n, int i);
				/* names[i], "?" when i is out of [0, n) */
const char *env_objective_name(int objective);

/* creation: 0 ok, -1 with a message in err[0..nerr) ("file:...: error:
 * ..."); the input is read in either format and verified */
int env_create_file(const char *path, const EnvOpts *o, Env **out,
	char *err, size_t nerr);
Env *env_dup(const Env *env);	/* same input and options, fresh state,
				 * its own transposition table */
void env_free(Env *env);
void env_seed(Env *env, uint64_t seed);

/* the action space: every registered pass */
int env_action_count(const Env *env);
const char *env_action_name(const Env *env, int action);
int env_action_by_name(const Env *env, const char *name);	/* -1 */
void env_action_mask(Env *env, uint8_t *mask);
				/* mask[a] = 0 if action a is known to
				 * change nothing in the current state,
				 * else 1; env_action_count entries */
int env_sample_action(Env *env, const uint8_t *mask);
				/* uniform among actions with mask[a] != 0
				 * (mask NULL: all), from the Env's seed;
				 * -1 if none */

/* the observation: env_obs_size doubles, layout above */
int env_obs_size(const Env *env);
int env_opcode_count(void);
const char *env_opcode_name(int i);	/* "add", ... */
void env_observe(Env *env, double *obs);

/* episodes: 0 ok, -1 error (env_error says what). obs may be NULL */
int env_reset(Env *env, double *obs);
int env_step(Env *env, int action, double *obs, EnvInfo *info);
const char *env_error(const Env *env);

/* the current episode */
int env_steps(const Env *env);		/* actions taken since reset */
const int *env_actions(const Env *env);	/* those actions */
double env_objective(const Env *env);	/* objective now */
double env_objective_initial(const Env *env);
double env_best_objective(const Env *env);	/* best in this episode */

/* where an Env's time went, in seconds, since it was created */
typedef struct {
	double reset;		/* env_reset: cloning the input */
	double pass;		/* running passes */
	double objective;	/* measuring the objective after a change */
	double hash;		/* hashing states after a change */
	double observe;		/* building observations */
	uint64_t steps, passes;	/* steps taken, passes really run */
} EnvTimes;
void env_times(const Env *env, EnvTimes *t);
void env_times_add(EnvTimes *sum, const EnvTimes *t);	/* sum += t */

/* the transposition table (structural hashes of the states reached) */
uint64_t env_state_hash(Env *env);	/* of the current state */
void env_table_stats(const Env *env, uint64_t *lookups, uint64_t *hits);

#endif
