/*
 * `loci tier PID [--watch [SECONDS]]`: what tiering does in a running
 * process of yours — each auto arena's site, intent, target, size, heat and
 * bytes moved, and the totals (promoted, demoted, ping-pong, the tiering
 * thread's share of one core) — from the table the process publishes each
 * interval (src/tiering/publish.c), refreshed every SECONDS with --watch
 * until the process ends. Another user's process, one without loci or
 * without tiering, or one that died: a message saying which, nothing read.
 *
 * `loci tier --node`: every tiering process of yours on the node, from the
 * node ledger (src/tiering/ledger.c): its auto arenas (the hottest it
 * lists), what it holds, was granted and reserves on each target, and the
 * node's totals against each target's node budget.
 */
#include "tiering/tiering.h"
#include "commands.h"
#include "units.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: loci tier PID [--watch [SECONDS]]\n"
               "       loci tier --node\n"
               "  each tier=auto arena of process PID (yours): its allocation site, intent, target, size, heat\n"
               "  (share of its memory found accessed per interval) and bytes tiering moved; then the totals.\n"
               "  --watch: again every SECONDS (default 1) until the process ends or Ctrl-C.\n"
               "  --node: every tiering process of yours on this node (the node ledger): its auto arenas, heat,\n"
               "  targets and share of each target; the node's totals against each target's node budget.\n");
}

static const char *size(uint64_t bytes, char *buf)
{
    return units_format_size(bytes, buf, 16);
}

/* "gups_malloc+0x1234<+0x1300/20#0" (frames, class 20, #0), "?" when unknown. */
static const char *site_text(const tiering_table_entry_t *e, char *buf, size_t len)
{
    if (!e->site[0])
        return "?";
    snprintf(buf, len, "%.*s/%u#%u", (int)sizeof e->site, e->site, e->size_class, e->ordinal);
    return buf;
}

static void show(pid_t pid, const tiering_table_t *t)
{
    const tiering_table_header_t *h = &t->header;
    double wall = (double)(h->published_ns - h->started_ns) / 1e9;
    printf("process %ld: tiering by the %s heat source%s, every %u ms; %" PRIu64 " intervals, %" PRIu64
           " auto arenas; published %.1f s ago\n",
           (long)pid, h->source, h->paused ? " (PAUSED: the source stopped working)" : "", h->interval_ms,
           h->intervals, h->nentries, t->age_s);
    printf("  %-28s %-8s %10s %7s %10s %6s  %s\n", "INTENT", "TARGET", "BYTES", "HEAT", "MOVED", "MOVES",
           "SITE (frames/class#n)");
    for (uint64_t i = 0; i < h->nentries; i++) {
        const tiering_table_entry_t *e = &t->entries[i];
        char site[200], b1[16], b2[16];
        printf("  %-28s %-8s %10s %7.3f %10s %6" PRIu64 "  %s\n", e->intent, e->target, size(e->bytes, b1), e->heat,
               size(e->bytes_moved, b2), e->moves, site_text(e, site, sizeof site));
        if (e->parts) {
            printf("  %-28s placed by granule: %u parts", "", e->parts);
            for (uint32_t k = 0; k < e->naway && k < sizeof e->away / sizeof e->away[0]; k++)
                printf("%s %s on %.*s", k ? "," : ";", size(e->away[k].bytes, b1), (int)sizeof e->away[k].target,
                       e->away[k].target);
            printf("%s\n", e->naway ? ", the rest on its target" : ", all on its target");
        }
    }
    uint64_t moved = h->bytes_promoted + h->bytes_demoted;
    char b1[16], b2[16], b3[16];
    printf("totals: %s promoted, %s demoted, %s moved back within 10 intervals (%.1f %% of moved), %" PRIu64
           " moves;\n        tiering CPU %.3f s = %.2f %% of one core over %.0f s\n",
           size(h->bytes_promoted, b1), size(h->bytes_demoted, b2), size(h->bytes_pingpong, b3),
           moved ? 100.0 * (double)h->bytes_pingpong / (double)moved : 0.0, h->moves, h->cpu_seconds,
           wall > 0 ? 100.0 * h->cpu_seconds / wall : 0.0, wall);
}

/* One process of the ledger: its share of each target it uses, then its arenas. */
static void show_process(const tiering_ledger_t *l, const ledger_slot_t *p, uint64_t now_ns)
{
    printf("process %lld: %u auto arenas listed, last interval %.1f s ago\n", (long long)p->pid, p->nentries,
           p->heartbeat_ns && now_ns > p->heartbeat_ns ? (double)(now_ns - p->heartbeat_ns) / 1e9 : 0.0);
    for (uint32_t k = 0; k < l->ntargets; k++)
        if (p->node_budget[k]) {
            char b1[16], b2[16], b3[16], b4[16];
            printf("  share of %-8s holds %10s, granted %10s, reserves %10s, floor %10s\n", l->targets[k].name,
                   size(p->held[k], b1), size(p->granted[k], b2), size(p->reserved[k], b3), size(p->floor[k], b4));
        }
    printf("  %-8s %-28s %-8s %10s %7s\n", "ARENA", "INTENT", "TARGET", "BYTES", "HEAT");
    for (uint32_t i = 0; i < p->nentries; i++) {
        const ledger_entry_t *e = &p->entries[i];
        char b[16];
        printf("  %-8" PRIu64 " %-28s %-8s %10s %7.3f\n", e->id, e->intent,
               e->at >= 0 ? l->targets[e->cand[e->at]].name : "-", size(e->bytes, b), e->heat);
    }
}

static int show_node(void)
{
    tiering_ledger_t *l = malloc(sizeof *l);
    if (!l) {
        fprintf(stderr, "loci tier --node: out of memory\n");
        return 1;
    }
    int rc = tiering_ledger_read(l);
    if (rc != 0) {
        fprintf(stderr, "loci tier --node: %s\n", loci_last_error());
        free(l);
        return 1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    unsigned processes = 0;
    for (size_t s = 0; s < LEDGER_SLOTS; s++)
        if (l->slots[s].pid) {
            show_process(l, &l->slots[s], now_ns);
            processes++;
        }
    /* CAPACITY: what the node was last measured to hold of auto arenas there (- never) */
    printf("node: %u tiering processes of yours\n  %-8s %10s %12s %10s\n", processes, "TARGET", "HELD",
           "NODE BUDGET", "CAPACITY");
    for (uint32_t k = 0; k < l->ntargets; k++) {
        char b1[16], b2[16], b3[16];
        uint64_t capacity = tiering_ledger_capacity(l, (int)k);
        printf("  %-8s %10s %12s %10s\n", l->targets[k].name, size(tiering_ledger_held(l, (int)k), b1),
               size(tiering_ledger_node_budget(l, (int)k), b2), capacity == UINT64_MAX ? "-" : size(capacity, b3));
    }
    free(l);
    return 0;
}

int cmd_tier(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--node") == 0) {
        if (argc == 2)
            return show_node();
        fprintf(stderr, "loci tier --node: unexpected \"%s\": --node takes nothing more\n", argv[2]);
        usage(stderr);
        return 2;
    }
    uint64_t pid;
    const char *why = "no process ID given";
    if (argc < 2 || !units_parse_whole(argv[1], 1, INT_MAX, &pid, &why)) { /* a pid_t, never a wrapped one */
        fprintf(stderr, "loci tier: \"%s\": %s; expected a process ID (1 to %d)\n", argc < 2 ? "" : argv[1], why,
                INT_MAX);
        usage(stderr);
        return 2;
    }
    uint64_t every = 0; /* ms */
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--watch") != 0) {
            fprintf(stderr, "loci tier: unknown option \"%s\"\n", argv[i]);
            usage(stderr);
            return 2;
        }
        every = 1000;
        if (i + 1 < argc && (!units_parse_duration(argv[++i], true, &every, &why) ||
                             ((every < 100 || every > 3600 * 1000) && (why = "out of range")))) {
            fprintf(stderr, "loci tier: --watch %s: %s; expected seconds from 0.1 to 3600 (or 100ms to 60min)\n",
                    argv[i], why);
            return 2;
        }
    }
    bool clear = every > 0 && isatty(STDOUT_FILENO);
    for (int round = 0;; round++) {
        tiering_table_t t;
        int rc = tiering_table_read((pid_t)pid, &t);
        if (rc != 0) {
            if (round > 0 && rc == LOCI_ENOENT) { /* watched until it ended */
                printf("loci tier: process %ld has no tiering table any more: it exited, or ended loci "
                       "(loci_fini)\n", (long)pid);
                return 0;
            }
            fprintf(stderr, "loci tier: %s\n", loci_last_error());
            return 1;
        }
        if (clear)
            fputs("\033[H\033[2J", stdout);
        show((pid_t)pid, &t);
        tiering_table_free(&t);
        if (every == 0)
            return 0;
        fflush(stdout);
        usleep((useconds_t)(every * 1000));
        if (!clear)
            putchar('\n');
    }
}
