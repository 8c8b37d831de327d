/* envi.h: what the driver and the search algorithms (src/env/search.c,
 * src/cmd_search.c) use of the environment beyond env.h: creating an Env
 * from a module already loaded, reading its modules, and the structural
 * hash and objective of any module. Includes the IR: src/rl/ must not
 * include this header (it cannot: its include path has src/env only).
 */
#ifndef ENVI_H
#define ENVI_H

#include "hlo.h"
#include "cost.h"
#include "env.h"

Env *env_create_module(HloModule *m, const EnvOpts *o);
				/* takes m (verified by the caller) */
void env_trim(HloModule *m);	/* no spare capacity in its pools, so
				 * that its clones copy less */
const HloModule *env_input(const Env *env);	/* the cached input */
const HloModule *env_module(const Env *env);	/* the current state */
const EnvOpts *env_opts(const Env *env);

uint64_t env_hash_module(const HloModule *m);
				/* structural: opcodes, shapes, operands,
				 * attributes, called computations; not the
				 * instruction names. equal modules hash
				 * equal */
uint64_t env_hash_frozen(const HloModule *m, uint32_t frozen);
				/* the same for modules derived from one
				 * input whose string pool had frozen bytes:
				 * equal only among those */
typedef struct EnvLitCache EnvLitCache;
EnvLitCache *env_litcache_new(void);
void env_litcache_clear(EnvLitCache *lc);
void env_litcache_free(EnvLitCache *lc);
uint64_t env_hash_cached(const HloModule *m, uint32_t frozen,
	EnvLitCache *lits);	/* env_hash_frozen, the content hashes of
				 * big literals past frozen kept in lits
				 * (keyed by offset and length: only for
				 * one lineage of modules whose pool only
				 * grows, cleared when it is not so) */
int env_module_objective(const HloModule *m, int objective, double *v,
	HloError *e);		/* the objective's value for m */
uint64_t env_mix(uint64_t seed, uint64_t k);
				/* a seed derived from seed and k
				 * (splitmix64) */
double env_now(void);		/* monotonic seconds */

#endif
