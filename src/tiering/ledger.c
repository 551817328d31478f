/*
 * The node ledger (issue 39, docs/TIERING.md "Node-wide"): the tiering
 * processes of one user on a node share, per target, who holds what and how
 * hot it is, so that the node's hottest arenas win its fast memory whoever
 * allocated first, every process keeps a floor, and all of them together
 * stay under each target's node budget.
 *
 * One file, TIERING_TABLE_DIR/loci-ledger-UID (LOCI_TIER_LEDGER: another
 * path, or off), of fixed layout (tiering_ledger_t): a header (magic,
 * version, size, generation, XXH3 checksum), the targets (a NUMA node by
 * its number, a file tier by its name), and one
 * slot per process — its PID and start time (a reused PID is another
 * process), its arenas' bytes, heat, target and candidates, what it holds,
 * was granted and reserves on each target. Each process plans its own
 * moves: every interval its tiering thread takes the file's flock (polled,
 * for at most a quarter of an interval: the kernel drops the lock of a
 * process that dies, and one that is stopped holding it leaves the others
 * within their last reserves for that interval), reads the file whole into its own memory
 * (never mapped: a file truncated under a mapping would be SIGBUS), checks
 * it — a regular file of the user's, mode 0600, its size, magic, version,
 * an even generation and the checksum: anything else is rebuilt empty,
 * every process writing its slot again at its next interval —, clears the
 * slots of processes gone (SIGKILL included), writes its own, computes the
 * node's share (plan_share, pure) and its room, and writes the file back
 * (the generation odd while it writes, for readers that take no lock:
 * `loci tier --node`).
 *
 * A process's room on a target is its grant and an equal share of what no
 * arena was granted (room for the moves of a swap, and for growth: the
 * grants and shares of all processes add up to the node budget), at most
 * the node budget less what the others reserve, or what it holds where
 * that is more (its grant, not another's reserve, takes what it holds) —
 * and it reserves the larger of what it holds (before this interval's
 * moves, which may take a while) and its room: memory one process may fill
 * is never another's, by construction, whatever the order in which they
 * plan. A process alone
 * has the whole node budget: it tiers as it did without the ledger.
 */
#include "tiering/tiering.h"
#include "clock.h"
#include "owned_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define MAGIC 0x5247444c49434f4cull /* "LOCILDGR" in memory */
#define VERSION 4 /* 2: targets' measured capacity, slots' moving mark; 3: arenas' spread; 4: slots' window */
#define SUMMED_FROM offsetof(tiering_ledger_t, uid) /* the checksum covers the ledger from uid on */
#define LOCK_POLL_US 500
#define MIN_LOCK_WAIT_MS 5
#define READ_ATTEMPTS 200 /* `loci tier --node`: a writer takes microseconds */

static struct {
    int fd;                /* -1: not joined */
    pid_t pid;             /* the process that opened fd (a forked child opens its own) */
    uint64_t start_time;
    bool off;              /* per process from now on (said once) */
    bool exiting;          /* left at exit: not joined again */
    bool armed;            /* the exit handler is registered */
    tiering_ledger_t *copy;
} led = {.fd = -1};

static tiering_node_totals_t last; /* the node at this process's last share (under led_lock) */
static uint64_t my_left[LEDGER_TARGETS]; /* and what the others' reserves leave there; none while not sharing */
static uint64_t my_reserved[LEDGER_TARGETS]; /* and this process's reserve there (under led_lock) */
static uint64_t my_share[LEDGER_TARGETS]; /* and what the share let it fill there (under led_lock) */
static bool sharing;
static pthread_mutex_t led_lock = PTHREAD_MUTEX_INITIALIZER;

bool tiering_ledger_path(char *buf, size_t len)
{
    const char *env = getenv("LOCI_TIER_LEDGER");
    if (env && strcmp(env, "off") == 0)
        return false;
    if (env && *env)
        snprintf(buf, len, "%s", env);
    else
        snprintf(buf, len, "%s/loci-ledger-%u", TIERING_TABLE_DIR, (unsigned)geteuid());
    return true;
}

/* ---- processes ------------------------------------------------------------ */

/* Field 22 of /proc/PID/stat (clock ticks since boot at its start) and its
 * state; 0 when there is no such process. */
static uint64_t start_time_of(int64_t pid, char *state)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0)
        return 0;
    text[got] = '\0';
    char *p = strrchr(text, ')'); /* the command's name may hold anything, ')' included */
    if (!p || p[1] != ' ')
        return 0;
    p += 2;
    *state = *p;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p)
            return 0;
        p++;
    }
    return strtoull(p, NULL, 10);
}

/* Whether process pid, started at start_time, still runs (not a zombie). */
static bool alive(int64_t pid, uint64_t start_time)
{
    char state = '?';
    return pid > 0 && start_time_of(pid, &state) == start_time && state != 'Z' && state != 'X';
}

/* ---- the file --------------------------------------------------------------- */

static uint64_t checksum_of(const tiering_ledger_t *l)
{
    return XXH3_64bits((const char *)l + SUMMED_FROM, sizeof *l - SUMMED_FROM);
}

/* Whether a copy of `got` bytes is a whole ledger of this user's: nothing
 * in it is used before this says so. */
static bool whole(const tiering_ledger_t *l, ssize_t got)
{
    if (got != (ssize_t)sizeof *l || l->magic != MAGIC || l->version != VERSION || l->size != sizeof *l ||
        l->generation & 1 || l->uid != geteuid() || l->ntargets > LEDGER_TARGETS || checksum_of(l) != l->checksum)
        return false;
    for (size_t s = 0; s < LEDGER_SLOTS; s++) {
        const ledger_slot_t *slot = &l->slots[s];
        if (slot->nentries > LEDGER_ENTRIES)
            return false;
        for (size_t k = l->ntargets; k < LEDGER_TARGETS; k++)
            if (slot->held[k] || slot->node_budget[k] || slot->reserved[k])
                return false;
        for (uint32_t i = 0; i < slot->nentries; i++) {
            const ledger_entry_t *e = &slot->entries[i];
            if (e->ncandidates > RESOLVE_MAX_CANDIDATES || e->at < -1 || e->at >= (int)e->ncandidates ||
                !(e->heat >= 0 && e->heat <= 1e9) ||
                !(e->spread >= 0 && e->spread <= 1e9) || !memchr(e->intent, '\0', sizeof e->intent))
                return false;
            for (int k = 0; k < e->ncandidates; k++)
                if (e->cand[k] >= l->ntargets)
                    return false;
        }
    }
    for (uint32_t k = 0; k < l->ntargets; k++)
        if (!memchr(l->targets[k].name, '\0', sizeof l->targets[k].name) || l->targets[k].numa_node < -1)
            return false;
    return true;
}

/* What is at the path is still a regular file of ours, mode 0600. */
static bool still_ours(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 07777) == 0600;
}

/* The ledger, made when there is none (O_EXCL: never one another user made
 * at the name), else opened as owned_file_open checks it. */
static int open_ledger(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    int created = errno; /* EEXIST; EACCES where the kernel protects a sticky directory's files */
    fd = owned_file_open(path, O_RDWR, OWNED_BY_ME, 0177, "the node ledger");
    return fd != LOCI_ENOENT ? fd
                             : loci__fail(LOCI_EPERM, "the node ledger %s: cannot create it (%s)", path,
                                          strerror(created));
}

/* The file's flock, polled for at most a quarter of an interval. */
static bool lock_file(int fd, unsigned interval_ms)
{
    unsigned wait_ms = interval_ms / 4 > MIN_LOCK_WAIT_MS ? interval_ms / 4 : MIN_LOCK_WAIT_MS;
    uint64_t deadline = clock_mono_ns() + (uint64_t)wait_ms * 1000000u;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || clock_mono_ns() >= deadline)
            return false;
        usleep(LOCK_POLL_US);
    }
    return true;
}

/* The file into led.copy, under its lock: whole, else rebuilt empty. */
static void load(void)
{
    tiering_ledger_t *l = led.copy;
    ssize_t got = pread(led.fd, l, sizeof *l, 0);
    struct stat st;
    if (whole(l, got) && fstat(led.fd, &st) == 0 && st.st_size == (off_t)sizeof *l)
        return;
    uint64_t generation = got >= (ssize_t)offsetof(tiering_ledger_t, checksum) ? l->generation : 0;
    if (got > 0)
        loci__log(LOCI_LOG_DEBUG, "tiering: the node ledger was not whole (a writer died mid-write, or it was "
                                  "damaged): rebuilt empty; every process writes its slot again");
    memset(l, 0, sizeof *l); /* (field by field: a whole ledger would be a temporary on the thread's stack) */
    l->magic = MAGIC;
    l->version = VERSION;
    l->size = sizeof *l;
    l->uid = geteuid();
    l->generation = (generation | 1) + 1;
    if (ftruncate(led.fd, sizeof *l) != 0)
        loci__log(LOCI_LOG_DEBUG, "tiering: the node ledger: cannot size it (%s)", strerror(errno));
}

/* led.copy back to the file, under its lock: the generation odd while the
 * rest is written, then the header with the even one and the checksum. */
static void store(void)
{
    tiering_ledger_t *l = led.copy;
    uint64_t odd = l->generation | 1;
    l->generation = odd + 1;
    l->checksum = checksum_of(l);
    bool ok = pwrite(led.fd, &odd, sizeof odd, offsetof(tiering_ledger_t, generation)) == (ssize_t)sizeof odd &&
              pwrite(led.fd, (const char *)l + SUMMED_FROM, sizeof *l - SUMMED_FROM, SUMMED_FROM) ==
                  (ssize_t)(sizeof *l - SUMMED_FROM) &&
              pwrite(led.fd, l, SUMMED_FROM, 0) == (ssize_t)SUMMED_FROM;
    if (!ok) /* (tmpfs full): the odd generation left makes the next process rebuild it */
        loci__log(LOCI_LOG_DEBUG, "tiering: the node ledger: cannot write it (%s)", strerror(errno));
}

/* Clear the slots of processes gone: exited, killed, their PID reused. */
static void reap(tiering_ledger_t *l)
{
    for (size_t s = 0; s < LEDGER_SLOTS; s++) {
        ledger_slot_t *slot = &l->slots[s];
        if (slot->pid && !(slot->pid == led.pid && slot->start_time == led.start_time) &&
            !alive(slot->pid, slot->start_time))
            memset(slot, 0, sizeof *slot);
    }
}

/* This process's slot, taken when it has none; NULL: every slot taken. */
static ledger_slot_t *own_slot(tiering_ledger_t *l)
{
    ledger_slot_t *free_slot = NULL;
    for (size_t s = 0; s < LEDGER_SLOTS; s++) {
        ledger_slot_t *slot = &l->slots[s];
        if (slot->pid == led.pid && slot->start_time == led.start_time)
            return slot;
        if (!slot->pid && !free_slot)
            free_slot = slot;
    }
    return free_slot;
}

/* ---- joining and leaving ------------------------------------------------------ */

static void leave_at_exit(void) { tiering_ledger_leave(true); }

/* Stop using the ledger: per process from now on, said once. Under led_lock. */
static void go_alone(const char *why)
{
    loci__log(LOCI_LOG_WARN, "tiering: %s; this process tiers alone, by its own budgets (docs/TIERING.md "
                             "\"Node-wide\")", why);
    if (led.fd >= 0)
        close(led.fd);
    led.fd = -1;
    led.off = true;
}

/* Join: the file opened, a copy to work on. false: per process. Under led_lock. */
static bool join(void)
{
    if (led.fd >= 0 && led.pid == getpid())
        return true;
    char path[256];
    if (led.off || led.exiting || !tiering_ledger_path(path, sizeof path))
        return false;
    if (!led.copy && !(led.copy = malloc(sizeof *led.copy)))
        return false;
    char state;
    led.pid = getpid();
    led.start_time = start_time_of(led.pid, &state);
    int fd = open_ledger(path);
    if (fd < 0 || led.start_time == 0) {
        if (fd >= 0)
            close(fd);
        go_alone(fd < 0 ? loci_last_error() : "/proc/self/stat does not say when this process started");
        return false;
    }
    led.fd = fd;
    if (!led.armed)
        atexit(leave_at_exit);
    led.armed = true;
    return true;
}

void tiering_ledger_leave(bool for_good)
{
    pthread_mutex_lock(&led_lock);
    if (led.fd >= 0 && led.pid == getpid()) {
        if (lock_file(led.fd, 0) && still_ours(led.fd)) {
            load();
            ledger_slot_t *slot = own_slot(led.copy);
            if (slot && slot->pid == led.pid)
                memset(slot, 0, sizeof *slot);
            store();
        }
        flock(led.fd, LOCK_UN);
    }
    if (led.fd >= 0)
        close(led.fd);
    free(led.copy);
    led.copy = NULL;
    led.fd = -1;
    led.off = false;
    led.exiting = for_good;
    sharing = false;
    pthread_mutex_unlock(&led_lock);
}

void tiering_ledger_fork(loci_fork_phase_t phase)
{
    loci__fork_mutex(&led_lock, phase);
    if (phase == LOCI_FORK_CHILD && led.fd >= 0) { /* the parent's open file and lock: the child opens its own */
        close(led.fd);
        led.fd = -1;
    }
}

/* ---- the node's share --------------------------------------------------------- */

/* Whether the ledger's target e is t: the same NUMA node (processes may
 * name a node differently in their configs), else the same name. */
static bool same_target(const ledger_target_t *e, const struct loci_target *t)
{
    return t->numa_node >= 0 ? e->numa_node == t->numa_node
                             : e->numa_node < 0 && strncmp(e->name, t->name, sizeof e->name - 1) == 0;
}

/* The ledger's index of target t, added when new; -1: the table is full. */
static int target_of(tiering_ledger_t *l, const struct loci_target *t)
{
    for (uint32_t k = 0; k < l->ntargets; k++)
        if (same_target(&l->targets[k], t))
            return (int)k;
    if (l->ntargets == LEDGER_TARGETS)
        return -1;
    ledger_target_t *n = &l->targets[l->ntargets];
    snprintf(n->name, sizeof n->name, "%s", t->name);
    n->numa_node = t->numa_node >= 0 ? t->numa_node : -1;
    return (int)l->ntargets++;
}

uint64_t tiering_ledger_node_budget(const tiering_ledger_t *l, int k)
{
    uint64_t least = 0;
    for (size_t s = 0; s < LEDGER_SLOTS; s++) {
        uint64_t asked = l->slots[s].pid ? l->slots[s].node_budget[k] : 0;
        if (asked && (!least || asked < least))
            least = asked;
    }
    return least ? least - 1 : 0;
}

uint64_t tiering_ledger_held(const tiering_ledger_t *l, int k)
{
    uint64_t held = 0;
    for (size_t s = 0; s < LEDGER_SLOTS; s++)
        held += l->slots[s].held[k];
    return held;
}

uint64_t tiering_ledger_capacity(const tiering_ledger_t *l, int k)
{
    const ledger_target_t *t = &l->targets[k];
    uint64_t most = 0;
    for (uint32_t i = 0; i < t->measures && i < LEDGER_MEASURES; i++)
        most = t->measured[i] > most ? t->measured[i] : most;
    return t->measures ? most : UINT64_MAX;
}

/* What each of this process's targets can hold of auto arenas, measured
 * now (under the lock): the bytes all the node's auto arenas hold there and
 * the free memory they may take — only while no other process is marked
 * as moving arenas, whose held bytes do not yet say where its pages are;
 * this process's own bytes read now, next to the free memory (its program
 * fills its arenas meanwhile). A node budget is a ceiling; this is what the
 * node has: the kernel's own use, the watermarks' boosts and other
 * programs' memory take their part, and a grant of room that is not there
 * would keep a cold incumbent of one process on the fast node while
 * another's hot arena cannot come. The others' programs grow too between
 * their intervals (their held bytes lag: a measurement low by what they
 * allocated since): the capacity is the most of the last few. */
static void measure(tiering_ledger_t *l, const ledger_slot_t *me, const ledger_view_t *v, const int *map)
{
    if (!v->room_of)
        return;
    for (size_t s = 0; s < LEDGER_SLOTS; s++)
        if (l->slots[s].pid && &l->slots[s] != me && l->slots[s].moving_since_ns)
            return;
    for (size_t j = 0; j < v->nt; j++) {
        if (map[j] < 0)
            continue;
        uint64_t mine = v->held_of(v->targets[j]), free = v->room_of(v->targets[j]);
        if (free == UINT64_MAX)
            continue;
        ledger_target_t *t = &l->targets[map[j]];
        uint64_t held = tiering_ledger_held(l, map[j]) - me->held[map[j]] + mine;
        t->measured[t->measures++ % LEDGER_MEASURES] = held > UINT64_MAX - free ? UINT64_MAX : held + free;
    }
}

typedef struct {
    double heat;
    size_t index;
} by_heat_t;

static int hottest_first(const void *pa, const void *pb)
{
    const by_heat_t *a = pa, *b = pb;
    if (a->heat != b->heat)
        return a->heat > b->heat ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* An arena of this process as the ledger lists it: false when one of its
 * candidates has no place in the ledger's targets (its bytes count as held). */
static bool fill_entry(ledger_entry_t *e, const plan_arena_t *a, const int *map)
{
    *e = (ledger_entry_t){.id = a->id, .bytes = a->bytes, .heat = a->heat, .spread = a->spread,
                          .residence = a->residence,
                          .at = (int8_t)a->at, .ncandidates = (uint8_t)a->ncandidates,
                          .unreachable = (uint16_t)a->unreachable};
    for (int k = 0; k < a->ncandidates; k++) {
        if (map[a->cand[k]] < 0)
            return false;
        e->cand[k] = (uint8_t)map[a->cand[k]];
    }
    size_t len = strlen(a->intent);
    const char *tail = len >= sizeof e->intent ? a->intent + len - (sizeof e->intent - 1) : a->intent;
    memcpy(e->intent, tail, strlen(tail) + 1); /* the end of a long intent tells more than its start */
    return true;
}

/* held[k]: the bytes v's arenas hold on the ledger's target k (map: as write_slot's). */
static void held_on(const ledger_view_t *v, const int *map, uint64_t *held)
{
    memset(held, 0, LEDGER_TARGETS * sizeof *held);
    for (size_t i = 0; i < v->n; i++) {
        const plan_arena_t *a = &v->arenas[i];
        if (a->at >= 0 && map[a->cand[a->at]] >= 0)
            held[map[a->cand[a->at]]] += a->bytes;
    }
}

/* Its arenas (the hottest LEDGER_ENTRIES) and what they hold on each target
 * into slot me, as v has them (map: as write_slot's). false: out of memory. */
static bool list_arenas(const ledger_view_t *v, const int *map, ledger_slot_t *me)
{
    by_heat_t *order = malloc((v->n + 1) * sizeof *order);
    if (!order)
        return false;
    held_on(v, map, me->held);
    for (size_t i = 0; i < v->n; i++)
        order[i] = (by_heat_t){v->arenas[i].heat, i};
    qsort(order, v->n, sizeof *order, hottest_first);
    me->nentries = 0;
    for (size_t r = 0; r < v->n && me->nentries < LEDGER_ENTRIES; r++)
        me->nentries += fill_entry(&me->entries[me->nentries], &v->arenas[order[r].index], map);
    free(order);
    return true;
}

/* This process's slot: its arenas, what it holds and the node budget it
 * asks on each target. map[k]: the ledger's index of v->targets[k] (-1:
 * none). false: out of memory. */
static bool write_slot(const tiering_config_t *c, const ledger_view_t *v, tiering_ledger_t *l, ledger_slot_t *me,
                       int *map)
{
    *me = (ledger_slot_t){.pid = led.pid, .start_time = led.start_time, .heartbeat_ns = clock_mono_ns(),
                          .interval_ms = c->interval_ms, .window_us = v->window_us};
    for (size_t k = 0; k < v->nt; k++) {
        map[k] = target_of(l, v->targets[k]);
        uint64_t asked = tiering_node_budget_bytes(c, v->targets[k]);
        if (map[k] >= 0)
            me->node_budget[map[k]] = asked == UINT64_MAX ? asked : asked + 1;
    }
    return list_arenas(v, map, me);
}

/* Slot s's arenas for plan_share, owner o: its entries, and for the bytes
 * beyond them on a target one arena held there. */
static size_t slot_arenas(const ledger_slot_t *slot, int o, plan_arena_t *a, int *owner)
{
    size_t n = 0;
    uint64_t listed[LEDGER_TARGETS] = {0};
    for (uint32_t i = 0; i < slot->nentries; i++) {
        const ledger_entry_t *e = &slot->entries[i];
        a[n] = (plan_arena_t){.bytes = e->bytes, .heat = e->heat, .spread = e->spread, .at = e->at,
                              .ncandidates = e->ncandidates, .unreachable = e->unreachable,
                              .residence = e->residence};
        for (int k = 0; k < e->ncandidates; k++)
            a[n].cand[k] = e->cand[k];
        if (e->at >= 0)
            listed[e->cand[e->at]] += e->bytes;
        owner[n++] = o;
    }
    for (int k = 0; k < LEDGER_TARGETS; k++)
        if (slot->held[k] > listed[k]) {
            a[n] = (plan_arena_t){.bytes = slot->held[k] - listed[k], .ncandidates = 1, .cand = {k}};
            owner[n++] = o;
        }
    return n;
}

/* LOCI_LOG=debug, where the node's share takes from this process (me) some
 * of what it holds on target k: the node as plan_share saw it there — each
 * process's holding, grant and floor, and its arenas that may be there — to
 * read why a place went where a run shows only the moves. */
static void log_node(const tiering_ledger_t *l, ledger_slot_t *const *slots, size_t nowners, const uint64_t *grant,
                     size_t nt, size_t k)
{
    for (size_t o = 0; o < nowners; o++) {
        const ledger_slot_t *slot = slots[o];
        char arenas[768] = "";
        size_t len = 0;
        for (uint32_t i = 0; i < slot->nentries && len < sizeof arenas; i++) {
            const ledger_entry_t *e = &slot->entries[i];
            bool may = false;
            for (int c = 0; c < e->ncandidates; c++)
                may |= e->cand[c] == k;
            if (may)
                len += (size_t)snprintf(arenas + len, sizeof arenas - len, " %.3f±%.3f on %s res %u;", e->heat,
                                        e->spread, e->at >= 0 ? l->targets[e->cand[e->at]].name : "none",
                                        e->residence);
        }
        loci__log(LOCI_LOG_DEBUG, "tiering (process %d): the node on %s: process %lld holds %llu KiB, granted %llu KiB, "
                  "floor %llu KiB%s; arenas:%s", (int)getpid(), l->targets[k].name, (long long)slot->pid,
                  (unsigned long long)(slot->held[k] >> 10), (unsigned long long)(grant[o * nt + k] >> 10),
                  (unsigned long long)(slot->floor[k] >> 10), slot->moving_since_ns ? ", moving" : "", arenas);
    }
}

/* The node's share (plan_share) and this process's room on each of the
 * ledger's targets, mine[k]: its grant and its share of what nobody was
 * granted, at most what the others' reserves leave (kept for new arenas:
 * my_left); its grant and reserve written to
 * its slot. Under led_lock.
 * false: out of memory. */
static bool share(const tiering_config_t *c, tiering_ledger_t *l, ledger_slot_t *me, const plan_params_t *p,
                  const ledger_view_t *v, const int *map, uint64_t *mine)
{
    measure(l, me, v, map);
    size_t nt = l->ntargets, nowners = 0, cap = 0, m = 0;
    ledger_slot_t *slots[LEDGER_SLOTS];
    for (size_t s = 0; s < LEDGER_SLOTS; s++)
        if (l->slots[s].pid) {
            m = &l->slots[s] == me ? nowners : m;
            slots[nowners++] = &l->slots[s];
            cap += l->slots[s].nentries + LEDGER_TARGETS;
        }
    plan_target_t t[LEDGER_TARGETS];
    for (size_t k = 0; k < nt; k++) {
        uint64_t budget = tiering_ledger_node_budget(l, (int)k), capacity = tiering_ledger_capacity(l, (int)k);
        t[k].room = budget < capacity ? budget : capacity;
        me->floor[k] = me->node_budget[k] ? tiering_floor_bytes(c, t[k].room) : 0;
    }
    plan_arena_t *a = malloc(cap * sizeof *a);
    int *owner = malloc(cap * sizeof *owner);
    uint64_t *floor = calloc(nowners * nt + 1, sizeof *floor), *grant = calloc(nowners * nt + 1, sizeof *grant);
    bool ok = a && owner && floor && grant;
    size_t n = 0;
    for (size_t o = 0; ok && o < nowners; o++) {
        n += slot_arenas(slots[o], (int)o, a + n, owner + n);
        memcpy(&floor[o * nt], slots[o]->floor, nt * sizeof *floor);
    }
    ok = ok && plan_share(a, owner, n, t, nt, floor, nowners, p, grant);
    for (size_t k = 0; ok && k < nt; k++) {
        uint64_t others = 0, granted = 0;
        for (size_t o = 0; o < nowners; o++) {
            others += o == m ? 0 : slots[o]->reserved[k];
            granted += grant[o * nt + k];
        }
        uint64_t left = t[k].room > others ? t[k].room - others : 0;
        uint64_t unclaimed = t[k].room > granted ? t[k].room - granted : 0;
        uint64_t want = grant[m * nt + k] + unclaimed / nowners;
        /* what it holds is not taken from it by the others' reserves, only by its grant: another's
         * reserve beyond its own grant (its view of the node an interval older, a promotion that
         * waits for its rent) cannot be filled while this process holds the memory, and a demotion
         * for it came straight back (node test, 6.12) */
        uint64_t ceiling = left > me->held[k] ? left : me->held[k];
        my_left[k] = left;
        mine[k] = want < ceiling ? want : ceiling;
        my_share[k] = mine[k];
        if (grant[m * nt + k] < me->held[k] && me->held[k] > mine[k] && loci__log_on(LOCI_LOG_DEBUG))
            log_node(l, slots, nowners, grant, nt, k);
        me->granted[k] = grant[m * nt + k];
        me->reserved[k] = me->held[k] > mine[k] ? me->held[k] : mine[k];
        my_reserved[k] = me->reserved[k];
    }
    free(a);
    free(owner);
    free(floor);
    free(grant);
    return ok;
}

/* The node's totals for LOCI_STATS, which come after this process left. */
static void keep_totals(const tiering_ledger_t *l)
{
    last = (tiering_node_totals_t){.ntargets = l->ntargets};
    for (size_t s = 0; s < LEDGER_SLOTS; s++)
        last.processes += l->slots[s].pid != 0;
    for (uint32_t k = 0; k < l->ntargets; k++) {
        last.targets[k] = l->targets[k];
        last.held[k] = tiering_ledger_held(l, (int)k);
        last.node_budget[k] = tiering_ledger_node_budget(l, (int)k);
    }
}

void tiering_ledger_totals(tiering_node_totals_t *out)
{
    pthread_mutex_lock(&led_lock);
    *out = last;
    pthread_mutex_unlock(&led_lock);
}

uint64_t tiering_ledger_room(const struct loci_target *t)
{
    uint64_t room = UINT64_MAX;
    pthread_mutex_lock(&led_lock);
    for (uint32_t k = 0; sharing && k < last.ntargets; k++)
        if (same_target(&last.targets[k], t))
            room = my_left[k];
    pthread_mutex_unlock(&led_lock);
    return room;
}

/* An interval that cannot take the ledger's lock: room[] within the
 * reserve this process wrote at its last interval, which the others still
 * leave it — planning alone, it took what they were granted (the node over
 * its budget). Under led_lock. */
static void keep_reserve(const ledger_view_t *v, plan_target_t *room)
{
    for (size_t k = 0; sharing && k < v->nt; k++)
        for (uint32_t j = 0; j < last.ntargets; j++)
            if (same_target(&last.targets[j], v->targets[k]) && my_reserved[j] < room[k].room)
                room[k].room = my_reserved[j];
}

/* The shortest window any live process of l wants (0: none has windows).
 * Each process's source adapts its own window, and a heat is the share of
 * windows that found memory touched: 1 - exp(-r w) for a page touched at
 * rate r. In the node test's workers windows of 160 to 320 ms read cold
 * arenas 0.1 to 0.5 by that alone, which then traded the fast node's spare
 * places across processes; in one window their heats compare. The
 * shortest, so that the busiest process's hot end does not saturate. */
static uint64_t node_window(const tiering_ledger_t *l)
{
    uint64_t w = 0;
    for (size_t s = 0; s < LEDGER_SLOTS; s++)
        if (l->slots[s].pid && l->slots[s].window_us && (!w || l->slots[s].window_us < w))
            w = l->slots[s].window_us;
    return w;
}

uint64_t tiering_ledger_share(const tiering_config_t *c, const ledger_view_t *v, const plan_params_t *p,
                              plan_target_t *room)
{
    static uint64_t window; /* (the tiering thread's) the last share's: kept while the lock is not had */
    pthread_mutex_lock(&led_lock);
    int *map = malloc((v->nt + 1) * sizeof *map);
    if (!map || !join())
        goto out;
    if (!lock_file(led.fd, c->interval_ms)) {
        loci__log(LOCI_LOG_DEBUG, "tiering: the node ledger's lock is held longer than a quarter of an interval: "
                                  "this interval plans in its last reserve");
        keep_reserve(v, room);
        goto out;
    }
    sharing = false; /* until this interval shares again */
    if (!still_ours(led.fd)) {
        go_alone("the node ledger is no longer a 0600 file of yours"); /* (closing it drops the lock) */
        goto out;
    }
    load();
    reap(led.copy);
    ledger_slot_t *me = own_slot(led.copy);
    uint64_t mine[LEDGER_TARGETS];
    bool shared = me && write_slot(c, v, led.copy, me, map) && share(c, led.copy, me, p, v, map, mine);
    window = shared ? node_window(led.copy) : 0;
    if (me) {
        store();
        keep_totals(led.copy);
    }
    flock(led.fd, LOCK_UN);
    if (!me) {
        go_alone("every slot of the node ledger is taken (by as many processes of yours as it holds)");
        goto out;
    }
    for (size_t k = 0; shared && k < v->nt; k++) {
        if (map[k] < 0)
            continue;
        if (mine[map[k]] < room[k].room)
            room[k].room = mine[map[k]];
        room[k].floor = me->floor[map[k]] < room[k].room ? me->floor[map[k]] : room[k].room;
    }
    sharing = shared;
out:
    free(map);
    if (!sharing)
        window = 0; /* alone: its own window */
    uint64_t w = window;
    pthread_mutex_unlock(&led_lock);
    return w;
}

void tiering_ledger_moving(const tiering_config_t *c, const ledger_view_t *v, bool moving)
{
    pthread_mutex_lock(&led_lock);
    int *map = malloc((v->nt + 1) * sizeof *map);
    /* a lock not had within a quarter interval: unmarked, a measurement meanwhile may be off by these
     * moves (the most of several is taken); still marked, none is taken until its next share */
    if (map && sharing && led.fd >= 0 && led.pid == getpid() && lock_file(led.fd, c->interval_ms)) {
        ledger_slot_t *me = NULL;
        if (still_ours(led.fd)) { /* (else the next share says so) */
            load();
            me = own_slot(led.copy);
        }
        if (me && me->pid == led.pid) { /* (a ledger rebuilt meanwhile: at the next share) */
            me->moving_since_ns = moving ? clock_mono_ns() : 0;
            if (!moving) {
                /* what the demotions gave up is the others' from now, not at the next share; and the
                 * arenas are listed where they are now: listed where they were, a promoted arena's
                 * bytes read as a second, unknown arena on its new target (held beyond the entries)
                 * that stays there while the arena itself still asked for a place — the others' shares
                 * fell by its size for an interval, and a place given up so came back (node test) */
                for (size_t k = 0; k < v->nt; k++)
                    map[k] = target_of(led.copy, v->targets[k]);
                if (!list_arenas(v, map, me))
                    held_on(v, map, me->held);
                for (uint32_t k = 0; k < led.copy->ntargets; k++)
                    my_reserved[k] = me->reserved[k] = me->held[k] > my_share[k] ? me->held[k] : my_share[k];
            }
            store();
        }
        flock(led.fd, LOCK_UN);
    }
    free(map);
    pthread_mutex_unlock(&led_lock);
}

int tiering_ledger_read(tiering_ledger_t *out)
{
    char path[256];
    if (!tiering_ledger_path(path, sizeof path))
        return loci__fail(LOCI_ENOENT, "LOCI_TIER_LEDGER=off: no node ledger");
    int fd = owned_file_open(path, O_RDONLY, OWNED_BY_ME, 0177, "the node ledger");
    if (fd == LOCI_ENOENT)
        return loci__fail(LOCI_ENOENT, "no node ledger at %s: no process of yours on this node has had a tier=auto "
                                       "arena for an interval yet", path);
    if (fd < 0)
        return fd;
    int rc = LOCI_EBUSY;
    for (int attempt = 0; attempt < READ_ATTEMPTS && rc == LOCI_EBUSY; attempt++) {
        uint64_t again;
        if (whole(out, pread(fd, out, sizeof *out, 0)) &&
            pread(fd, &again, sizeof again, offsetof(tiering_ledger_t, generation)) == (ssize_t)sizeof again &&
            again == out->generation)
            rc = 0;
        else
            usleep(1000);
    }
    close(fd);
    if (rc != 0)
        return loci__fail(LOCI_EBUSY, "%s: no whole copy in %d ms (being written all the time, or damaged: the "
                                      "next process to plan rebuilds it)", path, READ_ATTEMPTS);
    for (size_t s = 0; s < LEDGER_SLOTS; s++) /* a process killed since its last interval is gone already */
        if (out->slots[s].pid && !alive(out->slots[s].pid, out->slots[s].start_time))
            memset(&out->slots[s], 0, sizeof out->slots[s]);
    return 0;
}
