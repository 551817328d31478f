/*
 * Memory that appears and goes away while a process runs (issue 28.2), on topology kmem: the
 * emulated NVDIMM made /dev/dax0.0 (kmem-setup.sh), then system RAM on NUMA node 1 by daxctl
 * (the kmem driver), then offlined and made devdax again. One process lives through all of it,
 * a thread of it allocating and freeing the whole time, and never calls loci_topology_refresh
 * before it has seen each change by itself (loci's watcher thread).
 *
 *   vm_kmem cycle DEV    online as system RAM: node 1 appears (within 15 s, timed), its kind is
 *                        not dram, its memory tier is slower than DRAM's, the devdax target is
 *                        gone; capacity=large and kind=KIND place on node 1 (move_pages);
 *                        offline: the target is gone (timed), what was on it is intact and on
 *                        node 0, target=NAME! is refused naming it, `loci info` shows it gone;
 *                        devdax again: the devdax target is back and takes allocations
 *   vm_kmem mapped DEV   DEV mapped by loci (target=its name!) while daxctl reconfigures it to
 *                        system RAM: the kernel lets it (6.1 and 6.12), a load from the old
 *                        mapping gets SIGBUS; loci sees the target gone, refuses the next
 *                        allocation there with ENODEV naming DEV, frees the old block
 *   vm_kmem names DEV KEEP  names that stay put (issue 37.5): DEV made system RAM while KEEP, a
 *                        second NVDIMM, stays devdax; in a new process KEEP keeps the name it
 *                        had before, DEV's node has the name this process gave it and none
 *                        persistent memory ever had (kmemN), kind=pmem ranks KEEP first
 *                        (persistent before volatile, in both processes), and target=<DEV's
 *                        old name> is refused, not volatile memory; then DEV is devdax again
 *   vm_kmem show DEV OLD  (the new process of names) prints DEV's name and persistence, node 1's
 *                        name and kind, kind=pmem's first target, and what target=OLD gives
 *   vm_kmem cxl DEV      (topology cxl) DEV, the device-DAX instance of a CXL pmem region, is a
 *                        persistent pmem target that takes allocations; made system RAM it is a
 *                        node of kind cxl in a slower memory tier, where kind=cxl places
 *
 * Exit 0 ok, 1 a check failed, 2 setup error.
 */
#include "page_nodes.h"

#include <loci.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB (1ul << 20)
#define WAIT_S 15.0

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vm_kmem: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* daxctl, its output in the log; its exit status. */
static int run(const char *cmd)
{
    printf("$ %s\n", cmd);
    fflush(stdout);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    printf("(exit %d)\n", rc);
    return rc;
}

static const loci_target_t *target_of_node(int node)
{
    loci_target_info_t info;
    for (int i = 0; i < loci_target_count(); i++)
        if (loci_target_info(loci_target_at(i), &info) == 0 && info.numa_node == node)
            return loci_target_at(i);
    return NULL;
}

static const loci_target_t *target_of_path(const char *dev)
{
    for (int i = 0; i < loci_target_count(); i++) {
        const char *p = loci_target_path(loci_target_at(i));
        if (p && strcmp(p, dev) == 0)
            return loci_target_at(i);
    }
    return NULL;
}

static const char *name_of(const loci_target_t *t)
{
    loci_target_info_t info;
    return loci_target_info(t, &info) == 0 ? info.name : "?";
}

static bool is_gone(const loci_target_t *t) { return t && loci_target_gone(t) != NULL; }

/* Seconds until cond() holds, polling what loci shows without asking it to look again; < 0
 * when it did not within WAIT_S. */
static double wait_for(bool (*cond)(const void *), const void *arg)
{
    double start = now_s();
    while (now_s() - start < WAIT_S) {
        if (cond(arg))
            return now_s() - start;
        usleep(50 * 1000);
    }
    return -1;
}

static bool node1_here(const void *arg)
{
    (void)arg;
    const loci_target_t *t = target_of_node(1);
    return t && !is_gone(t);
}

static bool went_away(const void *t) { return is_gone(t); }
static bool came_back(const void *t) { return !is_gone(t); }

static const loci_target_t *best_of(const char *intent)
{
    loci_allocator_t *a = loci_allocator_create(intent);
    const loci_target_t *best = NULL;
    return a && loci_allocator_targets(a, &best, 1) >= 1 ? best : NULL;
}

/* ---- a thread that allocates and frees all along: none of it may fail ---- */

static atomic_bool stop;
static atomic_long background_failures, background_rounds;

static void *background(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        loci_allocator_t *a = loci_allocator_create("capacity=large");
        void *p[32];
        for (int i = 0; i < 32; i++)
            if (!(p[i] = loci_alloc(a, 4096 + (size_t)i * 8192))) {
                if (atomic_fetch_add(&background_failures, 1) < 3)
                    fprintf(stderr, "vm_kmem: background allocation failed: %s\n", loci_last_error());
            } else
                memset(p[i], i, 4096);
        for (int i = 0; i < 32; i++)
            loci_free(p[i]);
        atomic_fetch_add(&background_rounds, 1);
        usleep(2000);
    }
    return NULL;
}

static int cycle(const char *dev)
{
    const loci_target_t *devdax = target_of_path(dev), *dram = target_of_node(0);
    if (!devdax || !dram || target_of_node(1))
        return fail("at start: expected %s as a device-DAX target, node 0, no node 1", dev), 2;
    if (best_of("capacity=large") != dram)
        return fail("at start: capacity=large should be dram0 (the NVDIMM is no node yet)");
    pthread_t bg;
    pthread_create(&bg, NULL, background, NULL);

    /* online: node 1 appears */
    if (run("daxctl reconfigure-device --mode=system-ram dax0.0") != 0)
        return fail("daxctl could not make dax0.0 system RAM"), 2;
    double t = wait_for(node1_here, NULL);
    if (t < 0)
        return fail("node 1 not seen within %.0f s without a refresh", WAIT_S);
    const loci_target_t *node1 = target_of_node(1);
    loci_target_info_t info, dinfo;
    loci_target_info(node1, &info);
    loci_target_info(dram, &dinfo);
    const char *kind_src;
    loci_target_sources(node1, NULL, NULL, NULL, &kind_src);
    char tier_nodes[64];
    int tier = loci_target_memory_tier(node1, tier_nodes, sizeof tier_nodes, NULL);
    int dram_tier = loci_target_memory_tier(dram, NULL, 0, NULL);
    printf("node 1 seen after %.2f s without a refresh: %s, kind %s (from %s), %.0f MiB, memory tier %d (DRAM's "
           "%d)\n",
           t, info.name, info.kind, kind_src, info.capacity / (double)MiB, tier, dram_tier);
    if (strcmp(info.kind, "dram") == 0)
        return fail("node 1 (kmem-onlined NVDIMM) classified dram");
    if (tier < 0 || dram_tier < 0 || tier <= dram_tier)
        return fail("node 1's memory tier %d is not slower than DRAM's %d", tier, dram_tier);
    if (!is_gone(devdax))
        return fail("%s is system RAM now, but its device-DAX target %s is not gone", dev, name_of(devdax));
    printf("%s: gone: %s\n", name_of(devdax), loci_target_gone(devdax));
    int rc = loci_topology_refresh();
    if (rc < 0)
        return fail("loci_topology_refresh: %s", loci_last_error());
    loci_target_info(node1, &info);
    printf("loci_topology_refresh() after that: %d change(s); %s has %.0f MiB\n", rc, info.name,
           info.capacity / (double)MiB);

    /* placed there, page by page; by its kind where an earlier hint prefers it to persistent memory */
    if (best_of("capacity=large") != node1)
        return fail("capacity=large does not rank node 1 first");
    char kind_intent[48], strict[48];
    snprintf(kind_intent, sizeof kind_intent, "capacity=large,kind=%s", info.kind);
    snprintf(strict, sizeof strict, "target=%s!", info.name);
    loci_allocator_t *large = loci_allocator_create("capacity=large"), *kind = loci_allocator_create(kind_intent),
                     *only = loci_allocator_create(strict);
    unsigned char *big = loci_alloc(large, 64 * MiB), *small = loci_alloc(kind, MiB), *pinned = loci_alloc(only, MiB);
    if (!big || !small || !pinned)
        return fail("allocating on node 1: %s", loci_last_error());
    memset(big, 0xa5, 64 * MiB);
    memset(small, 0x3c, MiB);
    memset(pinned, 0x11, MiB);
    if (!pages_on_node("capacity=large", big, 64 * MiB, 1) || !pages_on_node(kind_intent, small, MiB, 1) ||
        !pages_on_node(strict, pinned, MiB, 1))
        return 1;
    printf("capacity=large (64 MiB), %s and %s: every page on node 1\n", kind_intent, strict);

    /* offline: the kernel moves what is there, loci stops placing there */
    if (run("daxctl offline-memory dax0.0") != 0)
        return fail("daxctl could not offline dax0.0's memory");
    t = wait_for(went_away, node1);
    if (t < 0)
        return fail("%s not seen gone within %.0f s without a refresh", info.name, WAIT_S);
    printf("%s seen gone after %.2f s without a refresh: %s\n", info.name, t, loci_target_gone(node1));
    for (size_t i = 0; i < 64 * MiB; i++)
        if (big[i] != 0xa5)
            return fail("byte %zu of the 64 MiB block changed while its node was offlined", i);
    if (!pages_on_node("after offline", big, 64 * MiB, 0))
        return 1;
    printf("the 64 MiB block is intact, on node 0 (the kernel migrated it)\n");
    errno = 0;
    if (loci_alloc(only, MiB) || errno != ENODEV || !strstr(loci_last_error(), info.name) ||
        !strstr(loci_last_error(), "went away"))
        return fail("%s after offline: expected NULL, ENODEV and a message naming %s; got errno %d: %s", strict,
                    info.name, errno, loci_last_error());
    printf("%s refused: %s\n", strict, loci_last_error());
    if (loci_allocator_create(strict) || !strstr(loci_last_error(), "went away"))
        return fail("a new allocator for %s: expected a refusal saying it went away: %s", strict, loci_last_error());
    if (best_of("capacity=large") != dram)
        return fail("capacity=large still ranks %s first after it went away", info.name);
    if (run("loci info | grep -F 'gone: NUMA node 1 has no memory online'") != 0)
        return fail("loci info (a new process) does not show node 1 gone while its memory is offline");
    loci_target_info(node1, &info);
    if (!(info.flags & LOCI_TARGET_GONE))
        return fail("loci_target_info: %s not flagged LOCI_TARGET_GONE", info.name);

    /* devdax again: the device-DAX target comes back */
    if (run("daxctl reconfigure-device --mode=devdax dax0.0") != 0)
        return fail("daxctl could not make dax0.0 devdax again");
    t = wait_for(came_back, devdax);
    if (t < 0)
        return fail("%s not back within %.0f s", name_of(devdax), WAIT_S);
    printf("%s back after %.2f s without a refresh\n", name_of(devdax), t);
    snprintf(strict, sizeof strict, "target=%s!", name_of(devdax));
    void *onpmem = loci_alloc(loci_allocator_create(strict), MiB);
    if (!onpmem || loci_ptr_target(onpmem) != devdax)
        return fail("%s after it came back: %s", strict, loci_last_error());
    memset(onpmem, 1, MiB);
    loci_free(onpmem);

    atomic_store(&stop, true);
    pthread_join(bg, NULL);
    printf("background thread: %ld rounds of 32 allocations, %ld failed\n", atomic_load(&background_rounds),
           atomic_load(&background_failures));
    if (atomic_load(&background_failures))
        return 1;
    loci_free(big);
    loci_free(small);
    loci_free(pinned);
    return 0;
}

/* The driver dax0.0 is bound to now ("device_dax", "kmem"), "" for none. */
static const char *driver_of_dax0(char *buf, size_t len)
{
    ssize_t n = readlink("/sys/bus/dax/devices/dax0.0/driver", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    const char *slash = strrchr(buf, '/');
    return slash ? slash + 1 : buf;
}

/* What a load from p does now, in a child: its exit status, or 128 + the signal that killed it. */
static int load_in_child(const volatile unsigned char *p, unsigned char expect)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(p[0] == expect ? 0 : 3);
    int st;
    waitpid(pid, &st, 0);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static int mapped(const char *dev)
{
    const loci_target_t *devdax = target_of_path(dev);
    if (!devdax)
        return fail("no device-DAX target %s", dev), 2;
    char strict[48], drv[256];
    snprintf(strict, sizeof strict, "target=%s!", name_of(devdax));
    loci_allocator_t *a = loci_allocator_create(strict);
    unsigned char *p = a ? loci_alloc(a, 4 * MiB) : NULL;
    if (!p)
        return fail("%s: %s", strict, loci_last_error()), 2;
    memset(p, 0x77, 4 * MiB);
    int rc = run("daxctl reconfigure-device --mode=system-ram dax0.0");
    const char *driver = driver_of_dax0(drv, sizeof drv);
    printf("daxctl exit %d; dax0.0 now bound to \"%s\"\n", rc, driver);
    /* 6.1 and 6.12 alike: device_dax's unbind does not wait for mappings, it zaps them */
    if (rc != 0 || strcmp(driver, "kmem") != 0)
        return fail("expected the kernel to let daxctl reconfigure the mapped device (6.1 and 6.12 do)");
    /* it went away under the mapping */
    double t = wait_for(went_away, devdax);
    if (t < 0)
        return fail("%s reconfigured to %s, but %s not seen gone within %.0f s", dev, driver, name_of(devdax), WAIT_S);
    printf("%s seen gone after %.2f s: %s\n", name_of(devdax), t, loci_target_gone(devdax));
    errno = 0;
    if (loci_alloc(a, 4 * MiB) || errno != ENODEV || !strstr(loci_last_error(), dev))
        return fail("%s after %s went away: expected NULL, ENODEV and a message naming it; got errno %d: %s",
                    strict, dev, errno, loci_last_error());
    printf("next allocation refused: %s\n", loci_last_error());
    int load = load_in_child(p, 0x77);
    if (load != 128 + SIGBUS)
        return fail("a load from the old mapping: expected SIGBUS (the kernel zapped it), got status %d", load);
    printf("a load from the old mapping: SIGBUS (the kernel zapped it; loci cannot stop the program's own loads)\n");
    loci_free(p); /* loci touches none of the memory it frees */
    printf("freed the block of the device that went away: no crash\n");
    return 0;
}

/* ---- names that stay put ---- */

/* The rest of the line of `out` that starts with "key ", or "". */
static void show_line(const char *out, const char *key, char *buf, size_t len)
{
    size_t n = strlen(key);
    buf[0] = '\0';
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, n) == 0 && l[n] == ' ') {
            snprintf(buf, len, "%.*s", (int)strcspn(l + n + 1, "\n"), l + n + 1);
            return;
        }
}

/* In a process of its own: what it calls things. */
static int show(const char *keep, const char *old)
{
    const loci_target_t *k = target_of_path(keep), *node1 = target_of_node(1), *best = best_of("kind=pmem");
    loci_target_info_t info;
    if (k && loci_target_info(k, &info) == 0)
        printf("keep %s %s\n", info.name, info.flags & LOCI_TARGET_PERSISTENT ? "persistent" : "volatile");
    if (node1 && loci_target_info(node1, &info) == 0)
        printf("node1 %s %s\n", info.name, info.kind);
    printf("best %s\n", best ? name_of(best) : "none");
    char intent[48];
    snprintf(intent, sizeof intent, "target=%s!", old);
    const loci_target_t *got = best_of(intent);
    printf("old %s\n", got ? name_of(got) : strerror(errno));
    return 0;
}

static int names(const char *dev, const char *keep)
{
    const loci_target_t *d = target_of_path(dev), *k = target_of_path(keep);
    loci_target_info_t din, kin;
    if (!d || !k || loci_target_info(d, &din) || loci_target_info(k, &kin) || target_of_node(1))
        return fail("at start: expected %s and %s as device-DAX targets and no node 1", dev, keep), 2;
    if (!(din.flags & kin.flags & LOCI_TARGET_PERSISTENT))
        return fail("%s (%s) and %s (%s) should both be persistent", dev, din.name, keep, kin.name);
    printf("before: %s is %s, %s is %s\n", dev, din.name, keep, kin.name);
    if (run("daxctl reconfigure-device --mode=system-ram dax0.0") != 0)
        return fail("daxctl could not make dax0.0 system RAM"), 2;
    if (wait_for(node1_here, NULL) < 0)
        return fail("node 1 not seen within %.0f s", WAIT_S);
    const char *mine = name_of(target_of_node(1));
    printf("this process calls node 1 %s; kind=pmem ranks %s first\n", mine, name_of(best_of("kind=pmem")));

    char self[256], cmd[512], keep_name[64], node1[64], best[64], old[128];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return fail("readlink /proc/self/exe"), 2;
    self[n] = '\0';
    snprintf(cmd, sizeof cmd, "%s show %s %s", self, keep, din.name);
    char out[1024];
    FILE *f = popen(cmd, "r");
    if (!f)
        return fail("popen %s", cmd), 2;
    out[fread(out, 1, sizeof out - 1, f)] = '\0';
    pclose(f);
    show_line(out, "keep", keep_name, sizeof keep_name);
    show_line(out, "node1", node1, sizeof node1);
    show_line(out, "best", best, sizeof best);
    show_line(out, "old", old, sizeof old);
    printf("a new process: %s is \"%s\", node 1 \"%s\", kind=pmem ranks %s first, target=%s! gives: %s\n", keep,
           keep_name, node1, best, din.name, old);
    char expect_keep[64], expect_node1[64];
    snprintf(expect_keep, sizeof expect_keep, "%s persistent", kin.name);
    snprintf(expect_node1, sizeof expect_node1, "%s pmem", mine);
    int bad = 0;
    if (strcmp(keep_name, expect_keep) != 0)
        bad |= fail("%s changed its name between processes: \"%s\", was %s", keep, keep_name, kin.name);
    if (strcmp(node1, expect_node1) != 0)
        bad |= fail("node 1 is \"%s\" in a new process, \"%s pmem\" in this one", node1, mine);
    if (strcmp(mine, din.name) == 0 || strcmp(mine, kin.name) == 0 || strncmp(mine, "pmem", 4) == 0)
        bad |= fail("volatile node 1 took %s, a name of persistent memory", mine);
    if (strcmp(best, kin.name) != 0 || best_of("kind=pmem") != k)
        bad |= fail("kind=pmem ranks %s (new process) / %s (this one) first, not persistent %s", best,
                    name_of(best_of("kind=pmem")), kin.name);
    if (!strstr(old, "No such file"))
        bad |= fail("target=%s! in a new process: expected ENOENT (the device is system RAM now), got %s", din.name,
                    old);
    if (run("daxctl offline-memory dax0.0") != 0 || run("daxctl reconfigure-device --mode=devdax dax0.0") != 0)
        return fail("daxctl could not make dax0.0 devdax again"), 2;
    return bad;
}

/* The CXL region's device-DAX instance (topology cxl, cxl-setup.sh): persistent memory of kind
 * pmem that takes allocations; made system RAM, a node of kind cxl in a slower tier, where
 * kind=cxl places. */
static int cxl(const char *dev)
{
    const loci_target_t *devdax = target_of_path(dev);
    loci_target_info_t info;
    if (!devdax || loci_target_info(devdax, &info) != 0)
        return fail("no device-DAX target %s", dev);
    if (strcmp(info.kind, "pmem") != 0 || !(info.flags & LOCI_TARGET_PERSISTENT))
        return fail("%s: kind %s%s, expected persistent pmem (a CXL pmem region)", dev, info.kind,
                    info.flags & LOCI_TARGET_PERSISTENT ? "" : ", not persistent");
    char strict[48];
    snprintf(strict, sizeof strict, "target=%s!", info.name);
    void *p = loci_alloc(loci_allocator_create(strict), MiB);
    if (!p || loci_ptr_target(p) != devdax)
        return fail("%s: %s", strict, loci_last_error());
    memset(p, 0x42, MiB);
    loci_free(p);
    printf("%s: %s, kind pmem, persistent, takes allocations\n", dev, info.name);
    if (run("daxctl reconfigure-device --mode=system-ram dax0.0") != 0)
        return fail("daxctl could not make dax0.0 system RAM"), 2;
    if (wait_for(node1_here, NULL) < 0)
        return fail("node 1 not seen within %.0f s", WAIT_S);
    const loci_target_t *node1 = target_of_node(1);
    loci_target_info(node1, &info);
    int tier = loci_target_memory_tier(node1, NULL, 0, NULL), dram_tier = loci_target_memory_tier(target_of_node(0),
                                                                                                  NULL, 0, NULL);
    printf("node 1: %s, kind %s, memory tier %d (DRAM's %d)\n", info.name, info.kind, tier, dram_tier);
    if (strcmp(info.kind, "cxl") != 0 || tier <= dram_tier)
        return fail("the CXL region onlined as node 1: expected kind cxl in a slower tier");
    unsigned char *q = loci_alloc(loci_allocator_create("kind=cxl"), 16 * MiB);
    if (!q)
        return fail("kind=cxl: %s", loci_last_error());
    memset(q, 0x24, 16 * MiB);
    if (!pages_on_node("kind=cxl", q, 16 * MiB, 1))
        return 1;
    printf("kind=cxl: 16 MiB, every page on node 1\n");
    loci_free(q);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    bool two = argc == 4 && (strcmp(argv[1], "names") == 0 || strcmp(argv[1], "show") == 0);
    if (argc != 3 && !two)
        return fail("usage: vm_kmem cycle|mapped|cxl DEV | vm_kmem names DEV KEEP | vm_kmem show KEEP OLD"), 2;
    if (loci_init() != 0)
        return fail("loci_init: %s", loci_last_error()), 2;
    if (two)
        return strcmp(argv[1], "names") == 0 ? names(argv[2], argv[3]) : show(argv[2], argv[3]);
    if (strcmp(argv[1], "cycle") == 0)
        return cycle(argv[2]);
    if (strcmp(argv[1], "mapped") == 0)
        return mapped(argv[2]);
    if (strcmp(argv[1], "cxl") == 0)
        return cxl(argv[2]);
    return fail("unknown mode %s", argv[1]), 2;
}
