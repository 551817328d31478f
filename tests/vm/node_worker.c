#include "node_worker.h"

#include <loci.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WORDS (NODE_ARENA_BYTES / sizeof(uint64_t))
/* A batch, then 10 ms asleep (as vm_tiering gups): a hot worker's batch sends 90 % of its
 * updates to arenas 2-3, some 20 times as often a page as any worker's other arenas get. */
#define HOT_BATCH 1000
#define COLD_BATCH 100
#define REPORT_EVERY 10 /* batches between two reports of the tiering intervals */

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t start_word(int a, uint64_t k) { return (uint64_t)a * 1000003u + k; }

static void report(node_worker_slot_t *me, int final)
{
    loci_tier_totals_t tot = {0};
    loci_tier_totals(&tot);
    NODE_SET(me->intervals, tot.intervals);
    NODE_SET(me->moves, tot.moves);
    if (!final)
        return;
    me->promoted = tot.bytes_promoted;
    me->demoted = tot.bytes_demoted;
    me->pingpong = tot.bytes_pingpong;
    me->paused = tot.paused;
    snprintf(me->source, sizeof me->source, "%s", tot.source ? tot.source : "?");
}

int node_worker_run(node_board_t *b, int index, uint64_t *arena[NODE_ARENAS])
{
    node_worker_slot_t *me = &b->w[index];
    uint64_t updates[NODE_ARENAS] = {0}, seed = 88172645463325252ull + (uint64_t)index;
    for (int a = 0; a < NODE_ARENAS; a++) {
        for (uint64_t k = 0; k < WORDS; k++)
            arena[a][k] = start_word(a, k);
        me->arena[a] = arena[a];
    }
    report(me, 0);
    NODE_SET(me->pid, getpid());
    NODE_SET(me->ready, 1);
    for (unsigned batch = 0; !(NODE_GET(b->stop) & 1u << index); batch++) {
        int hot = (NODE_GET(b->hot) >> index) & 1;
        for (int i = 0; i < (hot ? HOT_BATCH : COLD_BATCH); i++) {
            uint64_t r = rng(&seed);
            int a = hot && r % 10 < 9 ? NODE_HOT_FIRST + (int)((r >> 8) & 1) : (int)((r >> 8) % NODE_ARENAS);
            arena[a][(r >> 16) % WORDS]++;
            updates[a]++;
        }
        usleep(10000);
        if (batch % REPORT_EVERY == 0)
            report(me, 0);
    }
    int intact = 1;
    for (int a = 0; a < NODE_ARENAS; a++) {
        uint64_t sum = 0, want = updates[a];
        for (uint64_t k = 0; k < WORDS; k++) {
            sum += arena[a][k];
            want += start_word(a, k);
        }
        intact &= sum == want;
    }
    report(me, 1);
    me->data_intact = intact;
    NODE_SET(me->finished, 1);
    return intact ? 0 : 1;
}
