/*
 * The live table of a tiering process, for `loci tier PID` (docs/TIERING.md
 * "Seeing it"): after every interval the tiering thread writes its auto
 * arenas (intent, site, target, bytes, heat, bytes moved) and the totals to
 * /dev/shm/loci-tier-UID-PID, a file of its own (created O_CREAT|O_EXCL|
 * O_NOFOLLOW, mode 0600; one a dead process left with this PID is removed
 * first), mapped shared, and removes it at exit or loci_fini. A forked
 * child writes its own file, never its parent's.
 *
 * Readers (tiering_table_read, another process) never read half an update:
 * the generation is odd while the writer writes, and a copy is taken only
 * when the generation is even and the same before and after it and the
 * copy's checksum (XXH3 of the entries seeded with that of the header
 * from `pid` on) matches. They check before reading anything that the process and the
 * file are the reader's user's, and the file a regular one of mode 0600 (opened
 * O_NONBLOCK|O_NOFOLLOW: a FIFO another user planted at the name cannot hang
 * `loci tier`), and that every text of the copy ends inside its field.
 */
#include "tiering/tiering.h"
#include "os/shared_map.h"
#include "os/vm.h"
#include "owned_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#define MAGIC 0x5245495449434f4cull /* "LOCITIER" in memory */
#define VERSION 3 /* 1: a site was one module and offset; 2: no parts */

/* What the checksum covers: the header from `pid` on, then the entries. */
#define SUMMED_FROM offsetof(tiering_table_header_t, pid)

static struct {
    pid_t pid;              /* the process that made the file (0: none) */
    int fd;
    void *map;
    size_t size;
    bool failed;            /* said once: no publication from this process */
    bool exiting;           /* exit removed the file: none made again */
} pub;

static pthread_mutex_t pub_lock = PTHREAD_MUTEX_INITIALIZER;

static void path_of(pid_t pid, uid_t uid, char *buf, size_t len)
{
    snprintf(buf, len, "%s/loci-tier-%u-%ld", TIERING_TABLE_DIR, (unsigned)uid, (long)pid);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t size_for(uint64_t entries)
{
    return sizeof(tiering_table_header_t) + entries * sizeof(tiering_table_entry_t);
}

/* The checksum of a table: the header from `pid` on, and its entries. */
static uint64_t table_sum(const tiering_table_header_t *h, const tiering_table_entry_t *e)
{
    return XXH3_64bits_withSeed(e, (size_t)h->nentries * sizeof *e,
                                XXH3_64bits((const char *)h + SUMMED_FROM, sizeof *h - SUMMED_FROM));
}

/* ---- writing ------------------------------------------------------------------ */

/* Our file, made on first use: O_EXCL, and a file a dead process left with
 * our PID (its PID is ours now) removed once first. */
static int create_file(void)
{
    char path[128];
    path_of(getpid(), geteuid(), path, sizeof path);
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        struct stat st;
        if (errno != EEXIST || attempt > 0 || lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid() || unlink(path) != 0)
            break;
    }
    return loci__fail(LOCI_EPERM, "%s: cannot create it (%s): `loci tier %ld` will not see this process", path,
                      strerror(errno), (long)getpid());
}

/* The mapping, at least `size` bytes. Under pub_lock. */
static int ensure_mapped(size_t size)
{
    if (pub.map && pub.size >= size)
        return 0;
    if (!pub.map) {
        int fd = create_file();
        if (fd < 0)
            return fd;
        pub.fd = fd;
        pub.pid = getpid();
    }
    size_t want = size * 2; /* room to grow */
    if (ftruncate(pub.fd, (off_t)want) != 0)
        return loci__fail(LOCI_ENOSPC, "the tiering table: cannot size it (%s)", strerror(errno));
    void *map = shared_map_file(pub.fd, want, true);
    if (map == MAP_FAILED)
        return loci__fail(LOCI_ENOMEM, "the tiering table: cannot map it (%s)", strerror(errno));
    if (pub.map)
        vm_unmap(pub.map, pub.size);
    pub.map = map;
    pub.size = want;
    return 0;
}

static void copy_text(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    /* the end of a long path tells more than its start */
    const char *from = n >= len ? src + n - (len - 1) : src;
    memcpy(dst, from, strlen(from) + 1);
}

static void fill_entry(tiering_table_entry_t *e, const tier_arena_t *t)
{
    const struct loci_target *at = loci_arena_target(t->ar);
    *e = (tiering_table_entry_t){.bytes = t->bytes, .heat = t->track.heat, .bytes_moved = t->bytes_moved,
                                 .moves = t->moves, .size_class = t->site.size_class, .ordinal = t->site.ordinal};
    copy_text(e->intent, sizeof e->intent, t->ar->intent);
    copy_text(e->target, sizeof e->target, at->name);
    copy_text(e->kind, sizeof e->kind, topo_kind_name(at->kind));
    snprintf(e->site, sizeof e->site, "%s", t->site.where ? t->site.where : ""); /* its innermost frames first */
    e->parts = t->split ? (uint32_t)t->nparts : 0;
    for (size_t i = 0; t->split && i < t->nparts; i++) {
        const struct loci_target *x = t->parts[i].at;
        if (x == at)
            continue;
        uint32_t k = 0;
        while (k < e->naway && strcmp(e->away[k].target, x->name) != 0)
            k++;
        if (k == LEDGER_TARGETS)
            continue;
        if (k == e->naway)
            copy_text(e->away[e->naway++].target, sizeof e->away[k].target, x->name);
        e->away[k].bytes += t->parts[i].size;
    }
}

static void remove_at_exit(void) { tiering_unpublish(true); }

void tiering_publish(unsigned interval_ms, uint64_t started_ns)
{
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    pthread_mutex_lock(&pub_lock);
    tiering_lock();
    uint64_t n = 0;
    for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
        n++;
    bool fresh = !pub.map;
    int rc = pub.failed || pub.exiting ? -1 : ensure_mapped(size_for(n));
    if (rc == 0) {
        static bool armed;
        if (fresh && !armed)
            atexit(remove_at_exit); /* once per process */
        armed = true;
        tiering_table_header_t *h = pub.map;
        _Atomic uint64_t *gen = (_Atomic uint64_t *)&h->generation;
        uint64_t g = atomic_load_explicit(gen, memory_order_relaxed) | 1;
        atomic_store_explicit(gen, g, memory_order_relaxed); /* odd: being written */
        atomic_thread_fence(memory_order_release);
        h->magic = MAGIC;
        h->version = VERSION;
        h->entry_size = sizeof(tiering_table_entry_t);
        h->pid = getpid();
        h->uid = geteuid();
        h->published_ns = now_ns();
        h->started_ns = started_ns;
        h->interval_ms = interval_ms;
        h->paused = (uint32_t)tot.paused;
        copy_text(h->source, sizeof h->source, tot.source);
        h->bytes_promoted = tot.bytes_promoted;
        h->bytes_demoted = tot.bytes_demoted;
        h->bytes_pingpong = tot.bytes_pingpong;
        h->moves = tot.moves;
        h->intervals = tot.intervals;
        h->cpu_seconds = tot.cpu_seconds;
        tiering_table_entry_t *e = (tiering_table_entry_t *)(h + 1);
        for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
            fill_entry(e++, t);
        h->nentries = n;
        h->checksum = table_sum(h, (tiering_table_entry_t *)(h + 1));
        atomic_store_explicit(gen, g + 1, memory_order_release); /* even: whole */
    } else if (!pub.failed && !pub.exiting) {
        pub.failed = true;
        loci__log(LOCI_LOG_INFO, "tiering: %s", loci_last_error());
    }
    tiering_unlock();
    pthread_mutex_unlock(&pub_lock);
}

void tiering_unpublish(bool for_good)
{
    pthread_mutex_lock(&pub_lock);
    if (pub.map && pub.pid == getpid()) {
        char path[128];
        path_of(pub.pid, geteuid(), path, sizeof path);
        unlink(path);
    }
    if (pub.map) {
        vm_unmap(pub.map, pub.size);
        close(pub.fd);
    }
    pub.map = NULL;
    pub.size = 0;
    pub.pid = 0;
    pub.failed = false;
    pub.exiting = for_good;
    pthread_mutex_unlock(&pub_lock);
}

void tiering_publish_fork(loci_fork_phase_t phase)
{
    loci__fork_mutex(&pub_lock, phase);
    if (phase == LOCI_FORK_CHILD && pub.map) { /* the parent's file: not the child's to write or remove */
        vm_unmap(pub.map, pub.size);
        close(pub.fd);
        pub.map = NULL;
        pub.size = 0;
        pub.pid = 0;
    }
}

/* ---- reading (`loci tier`) ---------------------------------------------------- */

/* Whether the process maps a library of loci's (a guess for the message only). */
static bool maps_loci(pid_t pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(path, "re");
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, "/libloci") != NULL;
    if (f)
        fclose(f);
    return found;
}

/* The process is there and the caller's: 0, or why not. */
static int check_process(pid_t pid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%ld", (long)pid);
    if (pid <= 0 || stat(path, &st) != 0) {
        char table[128];
        path_of(pid, geteuid(), table, sizeof table);
        bool left = pid > 0 && lstat(table, &st) == 0 && st.st_uid == geteuid() && S_ISREG(st.st_mode) &&
                    unlink(table) == 0;
        return loci__fail(LOCI_ENOENT, "no process %ld (it has exited, or never was)%s", (long)pid,
                          left ? "; the table it left behind is removed" : "");
    }
    if (st.st_uid != geteuid())
        return loci__fail(LOCI_EPERM, "process %ld is user %u's, not yours (%u): loci tier reads only your own "
                                      "processes' tables; nothing read", (long)pid, (unsigned)st.st_uid,
                          (unsigned)geteuid());
    return 0;
}

static bool ends_inside(const char *text, size_t size) { return memchr(text, '\0', size) != NULL; }

/* Every text of the copy ends inside its field: what `loci tier` prints. */
static bool texts_end_inside(const tiering_table_header_t *h, const tiering_table_entry_t *e)
{
    bool ok = ends_inside(h->source, sizeof h->source);
    for (uint64_t i = 0; ok && i < h->nentries; i++)
        ok = ends_inside(e[i].intent, sizeof e[i].intent) && ends_inside(e[i].target, sizeof e[i].target) &&
             ends_inside(e[i].kind, sizeof e[i].kind) && ends_inside(e[i].site, sizeof e[i].site);
    return ok;
}

/* One consistent copy of the file into *out (header, malloc'd entries):
 * 0, LOCI_EBUSY to try again (being written), or an error. */
static int copy_once(int fd, tiering_table_t *out)
{
    tiering_table_header_t h;
    if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
        return LOCI_EBUSY; /* still being made */
    uint64_t g = h.generation;
    if (h.magic != MAGIC || h.version != VERSION || h.entry_size != sizeof(tiering_table_entry_t))
        return h.magic == 0 ? LOCI_EBUSY
                            : loci__fail(LOCI_EINVAL, "its table is of another version of loci (%u; this loci "
                                                      "reads %u): use the loci of the program's installation",
                                         (unsigned)h.version, VERSION);
    if (g & 1 || h.nentries > (1u << 20))
        return LOCI_EBUSY;
    size_t n = (size_t)h.nentries * sizeof(tiering_table_entry_t);
    tiering_table_entry_t *e = malloc(n ? n : 1);
    if (!e)
        return loci__fail(LOCI_ENOMEM, "out of memory reading the tiering table");
    tiering_table_header_t again;
    if ((n && pread(fd, e, n, sizeof h) != (ssize_t)n) || pread(fd, &again, sizeof again, 0) != (ssize_t)sizeof again ||
        again.generation != g) {
        free(e);
        return LOCI_EBUSY;
    }
    if (table_sum(&h, e) != h.checksum) {
        free(e);
        return LOCI_EBUSY;
    }
    if (!texts_end_inside(&h, e)) {
        free(e);
        return loci__fail(LOCI_EINVAL, "its table has a text that does not end inside its record: not a table this "
                                       "loci wrote; nothing read");
    }
    out->header = h;
    out->entries = e;
    return 0;
}

int tiering_table_read(pid_t pid, tiering_table_t *out)
{
    *out = (tiering_table_t){0};
    int rc = check_process(pid);
    if (rc != 0)
        return rc;
    char path[128];
    path_of(pid, geteuid(), path, sizeof path);
    /* another user may have planted anything at the name: a FIFO must not hang the open */
    int fd = owned_file_open(path, O_RDONLY, OWNED_BY_ME, 0177, "the tiering table");
    if (fd < 0 && fd != LOCI_ENOENT) {
        char why[512];
        snprintf(why, sizeof why, "%s", loci_last_error());
        return loci__fail(fd, "%s; nothing read", why);
    }
    if (fd < 0) {
        if (maps_loci(pid))
            return loci__fail(LOCI_ENOENT, "process %ld uses loci but publishes no tiering table: it has no "
                                           "tier=auto arena, or none for an interval yet (the table comes "
                                           "after the first interval; see docs/TIERING.md)", (long)pid);
        return loci__fail(LOCI_ENOENT, "process %ld does not use loci (no libloci.so mapped, no table in %s; "
                                       "a program linked with libloci.a publishes one after its first auto "
                                       "arena's first interval): run it with `loci run --tier auto -- PROGRAM`, "
                                       "or give it tier=auto arenas", (long)pid, TIERING_TABLE_DIR);
    }
    for (int attempt = 0; attempt < 200; attempt++) { /* a writer takes microseconds */
        rc = copy_once(fd, out);
        if (rc != LOCI_EBUSY)
            break;
        usleep(1000);
    }
    close(fd);
    if (rc == LOCI_EBUSY)
        return loci__fail(LOCI_EBUSY, "%s: no whole table in 200 ms (being written all the time, or damaged)",
                          path);
    if (rc == 0 && out->header.pid != pid) {
        tiering_table_free(out);
        return loci__fail(LOCI_EINVAL, "%s holds process %ld's table, not %ld's: nothing read", path,
                          (long)out->header.pid, (long)pid);
    }
    if (rc == 0)
        out->age_s = (double)(now_ns() - out->header.published_ns) / 1e9;
    return rc;
}

void tiering_table_free(tiering_table_t *t)
{
    free(t->entries);
    t->entries = NULL;
}
