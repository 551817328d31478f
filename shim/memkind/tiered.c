/*
 * Kinds under `loci run --memkind --tier auto` (LOCI_TIER=auto, which that
 * sets): each kind's blocks go to one tier=auto arena of its own instead of
 * its bound arenas — its intent as hints ("kind=hbm!" becomes "kind=hbm"),
 * plus tier=auto — which starts on the kind's best candidate with room under
 * its tiering budget and moves among the candidates by measured heat
 * (docs/TIERING.md): hbw_malloc blocks that go down to DRAM when cold and
 * back when hot. File-backed and interleaved kinds keep their placement
 * (an arena on one file, or pages over several nodes, cannot be tiered).
 */
#include "memkind_shim.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool enabled;

static void read_mode(void)
{
    const char *mode = getenv("LOCI_TIER");
    enabled = mode && strcmp(mode, "auto") == 0;
}

bool tiered_wanted(const struct memkind *k)
{
    pthread_once(&once, read_mode);
    return enabled && !(k->take & (TAKE_FILES | INTERLEAVED));
}

loci_arena_t *tiered_arena(struct memkind *k)
{
    loci_arena_t *a = atomic_load_explicit(&k->tiered, memory_order_acquire);
    if (a)
        return a;
    char intent[MK_INTENT_LEN + 16];
    size_t n = 0;
    for (const char *c = k->intent; *c && n + 1 < sizeof intent; c++)
        if (*c != '!') /* constraints become hints: tiering needs several candidates */
            intent[n++] = *c;
    snprintf(intent + n, sizeof intent - n, "%s%s", n ? "," : "", LOCI_TIER_TERM);
    loci_arena_t *fresh = loci_arena_create(intent, 0), *none = NULL;
    if (!fresh) {
        mk_log(LOCI_LOG_WARN, "%s: no tier=auto arena (%s): its blocks stay where the kind places them",
               k->name, loci_last_error());
        return NULL;
    }
    if (atomic_compare_exchange_strong(&k->tiered, &none, fresh))
        return fresh;
    loci_arena_destroy(fresh); /* another thread made it first */
    return none;
}
