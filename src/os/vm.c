/* Virtual-memory primitives shared by the providers (see vm.h). */
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY 5
#endif
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif
/* MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES, MPOL_F_NUMA_BALANCING: flags
 * get_mempolicy returns with the mode (linux/mempolicy.h) */
#define MODE_FLAGS ((1 << 15) | (1 << 14) | (1 << 13))
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

size_t vm_page_size(void)
{
    static atomic_size_t page;
    size_t p = atomic_load_explicit(&page, memory_order_relaxed);
    if (LOCI_UNLIKELY(p == 0)) {
        long v = sysconf(_SC_PAGESIZE);
        p = v > 0 ? (size_t)v : 4096;
        atomic_store_explicit(&page, p, memory_order_relaxed);
    }
    return p;
}

/* Where the next aligned mapping is tried first: just below the last one
 * (the kernel maps top-down), so that most aligned mappings take one mmap
 * instead of an over-sized one and two trims. */
static _Atomic uintptr_t map_hint;

static void *map_at_hint(size_t size, size_t align, int fd, int flags)
{
    uintptr_t hint = atomic_load_explicit(&map_hint, memory_order_relaxed);
    if (hint < size + align || hint - size < ((uintptr_t)1 << 32))
        return MAP_FAILED;
    uintptr_t want = (hint - size) & ~(uintptr_t)(align - 1);
    void *p = fd < 0 ? mmap((void *)want, size, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0)
                     : mmap((void *)want, size, PROT_READ | PROT_WRITE, flags | MAP_FIXED_NOREPLACE, fd, 0);
    if (p == MAP_FAILED)
        return MAP_FAILED;
    if (p != (void *)want) { /* a kernel without MAP_FIXED_NOREPLACE placed it elsewhere */
        munmap(p, size);
        return MAP_FAILED;
    }
    atomic_store_explicit(&map_hint, want, memory_order_relaxed);
    return p;
}

void vm_unmapped(void *addr, size_t size)
{
    /* The lowest mapping went: the next one can take its place. */
    uintptr_t a = (uintptr_t)addr;
    atomic_compare_exchange_strong(&map_hint, &a, (uintptr_t)addr + size);
}

/* Unmap the head and tail of the span at res around its first `align`ed
 * `size` bytes, which stay: their address. */
static uintptr_t trim_to_aligned(void *res, size_t span, size_t size, size_t align)
{
    uintptr_t start = (uintptr_t)res, aligned = (start + align - 1) & ~(uintptr_t)(align - 1);
    uintptr_t end = start + span, aend = aligned + size;
    if (aligned > start)
        munmap(res, aligned - start);
    if (end > aend)
        munmap((void *)aend, end - aend);
    return aligned;
}

/* A file is first mapped wherever the kernel likes: that settles whether
 * the file system takes `flags` (MAP_SYNC is refused late, inside the file
 * system's mmap, after a MAP_FIXED mapping has dropped what was at the spot)
 * and is often aligned already. Only then does it go over an aligned
 * reservation with MAP_FIXED. Should that still fail, the reservation may be
 * a hole another thread has mapped into: only what is provably empty is
 * released, never the span. */
static void *map_file_aligned(size_t size, size_t align, size_t span, int fd, int flags)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, fd, 0);
    if (p == MAP_FAILED || ((uintptr_t)p & (align - 1)) == 0)
        return p;
    munmap(p, size);
    void *res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED)
        return MAP_FAILED;
    uintptr_t aligned = trim_to_aligned(res, span, size, align);
    p = mmap((void *)aligned, size, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        void *empty = mmap((void *)aligned, size, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (empty != MAP_FAILED) /* the kernel had dropped it and nobody took it */
            munmap(empty, size);
        errno = e;
    }
    return p;
}

void *vm_map_aligned(size_t size, size_t align, int fd, int flags)
{
    size_t page = vm_page_size();
    if (align < page)
        align = page;
    if (align > page) {
        int e = errno;
        void *p = map_at_hint(size, align, fd, flags);
        if (p != MAP_FAILED)
            return p;
        errno = e;
    }
    size_t span = size + align - page;
    if (span < size) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    void *res = fd < 0 ? mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                       : map_file_aligned(size, align, span, fd, flags);
    if (res == MAP_FAILED || fd >= 0) {
        if (res != MAP_FAILED && align > page)
            atomic_store_explicit(&map_hint, (uintptr_t)res, memory_order_relaxed);
        return res;
    }
    uintptr_t aligned = trim_to_aligned(res, span, size, align);
    if (align > page)
        atomic_store_explicit(&map_hint, aligned, memory_order_relaxed);
    return (void *)aligned;
}

void *vm_map_lazy(size_t size)
{
    return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

int vm_unmap(void *addr, size_t size) { return munmap(addr, size); }

const char *vm_nodemask_str(const uint64_t *mask, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < PLACE_MAX_NODES && n + 1 < len;) {
        if (!(mask[i / 64] >> (i % 64) & 1)) {
            i++;
            continue;
        }
        int j = i;
        while (j + 1 < PLACE_MAX_NODES && (mask[(j + 1) / 64] >> ((j + 1) % 64) & 1))
            j++;
        int w = j > i ? snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "", i, j)
                      : snprintf(buf + n, len - n, "%s%d", n ? "," : "", i);
        if (w < 0 || (size_t)w >= len - n)
            break;
        n += (size_t)w;
        i = j + 1;
    }
    if (n == 0)
        snprintf(buf, len, "(none)");
    return buf;
}

/* Highest node in the mask, -1 if empty. */
static int mask_last(const uint64_t *mask)
{
    for (int w = PLACE_MAX_NODES / 64 - 1; w >= 0; w--)
        if (mask[w])
            return w * 64 + 63 - __builtin_clzll(mask[w]);
    return -1;
}

bool vm_mask_has(const uint64_t *mask, int node)
{
    return node >= 0 && node < PLACE_MAX_NODES && mask[node / 64] >> (node % 64) & 1;
}

int vm_mask_first(const uint64_t *mask)
{
    for (int w = 0; w < PLACE_MAX_NODES / 64; w++)
        if (mask[w])
            return w * 64 + __builtin_ctzll(mask[w]);
    return -1;
}

/* --- one-time probes for policies newer kernels have --------------------- */

enum { PROBE_UNKNOWN = 0, PROBE_YES, PROBE_NO };

/* Try `mode` on a scratch page with the nodes this process may use. */
static bool probe_mode(int mode)
{
    unsigned long allowed[PLACE_MAX_NODES / (8 * sizeof(unsigned long))] = {0};
    if (get_mempolicy(NULL, allowed, PLACE_MAX_NODES, NULL, MPOL_F_MEMS_ALLOWED) != 0)
        allowed[0] = 1;
    size_t page = vm_page_size();
    void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return false;
    bool ok = mbind(p, page, mode, allowed, PLACE_MAX_NODES + 1, 0) == 0;
    munmap(p, page);
    return ok;
}

static bool kernel_has(int mode)
{
    static atomic_int preferred_many, weighted;
    atomic_int *slot = mode == MPOL_PREFERRED_MANY ? &preferred_many : &weighted;
    int v = atomic_load_explicit(slot, memory_order_relaxed);
    if (v == PROBE_UNKNOWN) {
        v = probe_mode(mode) ? PROBE_YES : PROBE_NO;
        atomic_store_explicit(slot, v, memory_order_relaxed);
        if (v == PROBE_NO)
            loci__log(LOCI_LOG_INFO, "kernel lacks %s; using %s instead",
                      mode == MPOL_PREFERRED_MANY ? "MPOL_PREFERRED_MANY" : "MPOL_WEIGHTED_INTERLEAVE",
                      mode == MPOL_PREFERRED_MANY ? "MPOL_PREFERRED (first node)" : "MPOL_INTERLEAVE");
    }
    return v == PROBE_YES;
}

int vm_kernel_mode(place_policy_t policy)
{
    switch (policy) {
    case PLACE_BIND: return MPOL_BIND;
    case PLACE_PREFERRED: return kernel_has(MPOL_PREFERRED_MANY) ? MPOL_PREFERRED_MANY : MPOL_PREFERRED;
    case PLACE_INTERLEAVE: return MPOL_INTERLEAVE;
    case PLACE_WEIGHTED_INTERLEAVE:
        return kernel_has(MPOL_WEIGHTED_INTERLEAVE) ? MPOL_WEIGHTED_INTERLEAVE : MPOL_INTERLEAVE;
    default: return MPOL_DEFAULT;
    }
}

static const char *mode_name(int mode)
{
    switch (mode) {
    case MPOL_BIND: return "MPOL_BIND";
    case MPOL_PREFERRED: return "MPOL_PREFERRED";
    case MPOL_PREFERRED_MANY: return "MPOL_PREFERRED_MANY";
    case MPOL_INTERLEAVE: return "MPOL_INTERLEAVE";
    case MPOL_WEIGHTED_INTERLEAVE: return "MPOL_WEIGHTED_INTERLEAVE";
    default: return "MPOL_DEFAULT";
    }
}

/* The preferred mode for the nodes of `mask`: MPOL_PREFERRED for one node,
 * whose huge pages come from that node or not at all (base pages then, still
 * there); MPOL_PREFERRED_MANY, the only form that names several, takes a
 * huge page from any node once its own have no free 2 MiB left (6.1, 6.12):
 * on the tiers3 VM's node 1 with its free memory in pieces, 4 MiB so faulted
 * landed whole on node 0 (omp_check inherit, 2 runs in 600). */
static int preferred_mode(const uint64_t *mask)
{
    int nodes = 0;
    for (int w = 0; w < PLACE_MAX_NODES / 64; w++)
        nodes += __builtin_popcountll(mask[w]);
    return nodes > 1 && kernel_has(MPOL_PREFERRED_MANY) ? MPOL_PREFERRED_MANY : MPOL_PREFERRED;
}

int vm_kernel_policy(const place_t *place, int *mode, unsigned long *mask, unsigned long *maxnode)
{
    int last = mask_last(place->nodemask);
    if (last < 0)
        return loci__fail(LOCI_EINVAL, "placement with an empty NUMA node mask");
    *mode = place->policy == PLACE_PREFERRED ? preferred_mode(place->nodemask) : vm_kernel_mode(place->policy);
    memcpy(mask, place->nodemask, VM_MASK_LONGS * sizeof *mask);
    if (*mode == MPOL_PREFERRED && place->policy == PLACE_PREFERRED) {
        /* Old kernels prefer one node: the first one given. */
        int first = vm_mask_first(place->nodemask);
        memset(mask, 0, VM_MASK_LONGS * sizeof *mask);
        mask[first / 64] = 1ul << (first % 64);
        last = first;
    }
    /* maxnode counts one more than the highest node (the kernel's historic off-by-one). */
    *maxnode = (unsigned long)last + 2;
    return 0;
}

const char *vm_mode_name(int mode) { return mode_name(mode); }

int vm_apply_policy(void *addr, size_t size, const place_t *place, unsigned mflags)
{
    if (place->base_pages)
        (void)madvise(addr, size, MADV_NOHUGEPAGE); /* best effort: a kernel without THP has none to avoid */
    if (place->simulated || place->policy == PLACE_LOCAL)
        return 0;
    int mode;
    unsigned long mask[VM_MASK_LONGS], maxnode;
    char nodes[128];
    int rc = vm_kernel_policy(place, &mode, mask, &maxnode);
    if (rc)
        return rc;
    if (mbind(addr, size, mode, mask, maxnode, mflags) == 0)
        return 0;
    int e = errno;
    vm_nodemask_str(place->nodemask, nodes, sizeof nodes);
    char sz[32];
    units_format_size(size, sz, sizeof sz);
    switch (e) {
    case ENOMEM:
        return loci__fail(LOCI_ENOMEM, "mbind(%s, nodes %s) of %s: out of memory", mode_name(mode), nodes, sz);
    case EPERM:
        return loci__fail(LOCI_EPERM, "mbind(%s, nodes %s) of %s: not permitted (moving pages of shared memory needs CAP_SYS_NICE)",
                          mode_name(mode), nodes, sz);
    case EIO:
        return loci__fail(LOCI_EIO, "mbind(%s, nodes %s) of %s: some pages could not be moved (in use or locked elsewhere)",
                          mode_name(mode), nodes, sz);
    default:
        return loci__fail(LOCI_EINVAL, "mbind(%s, nodes %s) of %s failed: %s (are the nodes online and allowed by the cpuset?)",
                          mode_name(mode), nodes, sz, strerror(e));
    }
}

int vm_migrate(void *addr, size_t size, const place_t *to)
{
    return vm_apply_policy(addr, size, to, MPOL_MF_MOVE | MPOL_MF_STRICT);
}

int vm_reset_policy(void *addr, size_t size) { return mbind(addr, size, MPOL_DEFAULT, NULL, 0, 0); }

int vm_copy_policy(const void *from, void *to, size_t size)
{
    int mode; /* with its MPOL_F_STATIC_NODES / RELATIVE_NODES flags, which mbind takes back */
    unsigned long mask[VM_MASK_LONGS] = {0};
    if (get_mempolicy(&mode, mask, PLACE_MAX_NODES, (void *)from, MPOL_F_ADDR) != 0)
        return -1;
    return mbind(to, size, (unsigned)mode, mask, PLACE_MAX_NODES + 1, 0);
}

int vm_pin(void *addr, size_t size)
{
    /* The raw syscall: sanitizers replace mlock() with a no-op. */
    if (syscall(SYS_mlock, addr, size) == 0)
        return 0;
    int e = errno;
    struct rlimit rl = {0, 0};
    getrlimit(RLIMIT_MEMLOCK, &rl);
    char sz[32], lim[32];
    units_format_size(size, sz, sizeof sz);
    if (rl.rlim_cur == RLIM_INFINITY)
        snprintf(lim, sizeof lim, "unlimited");
    else
        units_format_size(rl.rlim_cur, lim, sizeof lim);
    if (e == EPERM || e == ENOMEM || e == EAGAIN)
        return loci__fail(e == EPERM ? LOCI_EPERM : LOCI_ENOMEM,
                          "pinned: mlock of %s failed (%s); RLIMIT_MEMLOCK is %s: raise it (ulimit -l, "
                          "limits.conf memlock) or drop the `pinned` trait",
                          sz, strerror(e), lim);
    return loci__fail(LOCI_EINVAL, "pinned: mlock of %s failed: %s", sz, strerror(e));
}

/* madvise(MADV_POPULATE_WRITE): 0, 1 when the kernel lacks it, or errno. */
static int populate_write(void *addr, size_t size)
{
    static atomic_int unsupported;
    if (atomic_load_explicit(&unsupported, memory_order_relaxed))
        return 1;
    if (madvise(addr, size, MADV_POPULATE_WRITE) == 0)
        return 0;
    if (errno == EINVAL) { /* kernel before 5.14: pages come on first touch */
        atomic_store_explicit(&unsupported, 1, memory_order_relaxed);
        return 1;
    }
    return errno;
}

void vm_loosen(void *addr, size_t size, vm_loosened_t *l)
{
    /* A bound fault on a full node wakes the OOM killer, which may kill this
     * process: faulted in preferred, then bound and moved, it fails instead.
     * Always, not only when the nodes look short of room: threads filling
     * arenas at once overtake any look (vm.room.fill, OOM-killed so). */
    *l = (vm_loosened_t){.mode = MPOL_DEFAULT};
    l->bound = get_mempolicy(&l->mode, l->mask, PLACE_MAX_NODES, addr, MPOL_F_ADDR) == 0 &&
               (l->mode & ~MODE_FLAGS) == MPOL_BIND;
    unsigned long preferred[VM_MASK_LONGS];
    memcpy(preferred, l->mask, sizeof preferred);
    /* (a huge page faulted off its node here could not be moved back under load by the
     * bind after it: EIO) */
    uint64_t m64[PLACE_MAX_NODES / 64];
    memcpy(m64, l->mask, sizeof m64);
    int pmode = preferred_mode(m64);
    if (l->bound && pmode == MPOL_PREFERRED) { /* one node, or the first of several */
        int first = vm_mask_first(m64);
        memset(preferred, 0, sizeof preferred);
        preferred[first / (8 * sizeof *preferred)] = 1ul << (first % (8 * sizeof *preferred));
    }
    if (l->bound && mbind(addr, size, pmode, preferred, PLACE_MAX_NODES + 1, 0) != 0)
        l->bound = false; /* (cannot happen for a range that holds a policy): as it is */
}

#define TIGHTEN_PASSES 3 /* binds of a populated range before its misplaced pages fail it */

/* LOCI_ENOMEM or LOCI_EIO for errno e of `call` populating size bytes. */
static int populate_failed(int e, const char *call, size_t size, bool bound)
{
    char sz[32];
    units_format_size(size, sz, sizeof sz);
    if (e == ENOMEM || e == EFAULT || e == EHWPOISON || e == EIO)
        return loci__fail(LOCI_ENOMEM, "populating %s of %s memory failed: the nodes are out of memory (%s: %s)", sz,
                          bound ? "bound" : "placed", call, strerror(e));
    return loci__fail(LOCI_EIO, "populating %s failed: %s: %s", sz, call, strerror(e));
}

#define POPULATE_CALL "madvise(MADV_POPULATE_WRITE)"

int vm_populate_pages(void *addr, size_t size)
{
    int e = populate_write(addr, size);
    return e == 0 || e == 1 ? 0 : populate_failed(e, POPULATE_CALL, size, false);
}

int vm_tighten(void *addr, size_t size, const vm_loosened_t *l, bool populated)
{
    if (!l->bound)
        return 0;
    unsigned long mask[VM_MASK_LONGS];
    memcpy(mask, l->mask, sizeof mask);
    /* EIO: pages the nodes did not take stayed elsewhere. A page busy for a moment (under
     * load) is taken by a pass after, as in numa_node_move; a full node refuses them all. */
    for (int pass = 0; pass < TIGHTEN_PASSES; pass++)
        if (mbind(addr, size, (unsigned)l->mode, mask, PLACE_MAX_NODES + 1,
                  populated ? MPOL_MF_MOVE | MPOL_MF_STRICT : 0) == 0)
            return 0;
        else if (errno != EIO)
            break;
    return populate_failed(errno, "mbind(MPOL_MF_MOVE | MPOL_MF_STRICT) after it", size, true);
}

int vm_populate(void *addr, size_t size)
{
    vm_loosened_t l;
    vm_loosen(addr, size, &l);
    int e = populate_write(addr, size);
    int rc = vm_tighten(addr, size, &l, e == 0);
    if (e != 0 && e != 1)
        return populate_failed(e, POPULATE_CALL, size, l.bound);
    return rc;
}

int vm_each_page_node(void *addr, size_t size, void (*fn)(void *page, int node, void *arg), void *arg)
{
    enum { BATCH = 1024 }; /* pages per move_pages call */
    void *pages[BATCH];
    int status[BATCH];
    size_t page = vm_page_size(), n = size / page;
    for (size_t i = 0; i < n; i += BATCH) {
        unsigned long k = n - i < BATCH ? n - i : BATCH;
        for (unsigned long j = 0; j < k; j++)
            pages[j] = (char *)addr + (i + j) * page;
        if (move_pages(0, k, pages, NULL, status, 0) != 0)
            return loci__fail(LOCI_EIO, "move_pages (query) of %lu pages at %p: %s", k, pages[0], strerror(errno));
        for (unsigned long j = 0; j < k; j++)
            fn(pages[j], status[j], arg);
    }
    return 0;
}

typedef struct {
    const place_t *place;
    size_t misplaced;
    int example;
} placed_check_t;

static void check_one(void *page, int node, void *arg)
{
    (void)page;
    placed_check_t *c = arg; /* negative: not faulted in (or no page): nothing to place */
    if (node >= 0 && !vm_mask_has(c->place->nodemask, node)) {
        c->misplaced++;
        c->example = node;
    }
}

int vm_check_placed(void *addr, size_t size, const place_t *place)
{
    if (place->simulated || place->policy == PLACE_LOCAL)
        return 0;
    placed_check_t c = {.place = place, .example = -1};
    int rc = vm_each_page_node(addr, size, check_one, &c);
    if (rc != 0 || c.misplaced == 0)
        return rc;
    char nodes[128];
    return loci__fail(LOCI_EIO, "%zu of the %zu pages at %p are still outside nodes %s (e.g. on node %d): "
                                "pinned, shared with another process, or the nodes are full",
                      c.misplaced, size / vm_page_size(), addr, vm_nodemask_str(place->nodemask, nodes, sizeof nodes),
                      c.example);
}

typedef struct {
    uint64_t count[PLACE_MAX_NODES];
} node_tally_t;

static void tally_one(void *page, int node, void *arg)
{
    (void)page;
    if (node >= 0 && node < PLACE_MAX_NODES)
        ((node_tally_t *)arg)->count[node]++;
}

int vm_range_node(void *addr, size_t size, int *node)
{
    node_tally_t *t = calloc(1, sizeof *t);
    if (!t)
        return loci__fail(LOCI_ENOMEM, "out of memory counting the nodes of %zu bytes at %p", size, addr);
    int rc = vm_each_page_node(addr, size, tally_one, t);
    *node = -1;
    for (int k = 0; rc == 0 && k < PLACE_MAX_NODES; k++)
        if (t->count[k] && (*node < 0 || t->count[k] > t->count[*node]))
            *node = k;
    free(t);
    return rc;
}

/* Does /proc/self/maps cover [addr, addr+size) with readable mappings,
 * writable too when `write`, MAP_SHARED too when `shared`? */
static bool maps_cover(const void *addr, size_t size, bool write, bool shared)
{
    uintptr_t at = (uintptr_t)addr, end = at + size; /* covered up to `at` so far */
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return !shared; /* no /proc: nothing to tell (but shared memory is a promise someone relies on) */
    char line[512];
    while (at < end && fgets(line, sizeof line, f)) {
        if (strchr(line, '\n') == NULL) /* a long path: the rest of the line is no new line */
            for (int c; (c = fgetc(f)) != EOF && c != '\n';)
                ;
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || hi <= at)
            continue;
        if (lo > at || perms[0] != 'r' || (write && perms[1] != 'w') || (shared && perms[3] != 's'))
            /* a hole, or no access: lines in address order */
            break;
        at = hi;
    }
    fclose(f);
    return at >= end;
}

const char *vm_occupant(uintptr_t at, size_t size, char *buf, size_t len)
{
    snprintf(buf, len, "(unknown)");
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo < at + size && hi > at) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(buf, len, "%s", line);
            break;
        }
    }
    fclose(f);
    return buf;
}

bool vm_accessible(const void *addr, size_t size, bool write) { return maps_cover(addr, size, write, false); }

bool vm_mapped_shared(const void *addr, size_t size) { return maps_cover(addr, size, true, true); }

int vm_replace(void *to, void *from, size_t size)
{
    memcpy(from, to, size);
    return vm_remap_over(to, from, size);
}

int vm_remap_over(void *to, void *from, size_t size)
{
    if (mremap(from, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, to) == MAP_FAILED) {
        int e = errno;
        /* mremap may have unmapped `to` before failing: the caller still owns
         * those addresses, so they get fresh memory with the old contents
         * (NOREPLACE: never over what another thread mapped meanwhile). */
        void *hole = mmap(to, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (hole == to)
            memcpy(to, from, size);
        else if (hole != MAP_FAILED)
            munmap(hole, size);
        errno = e;
        char sz[32];
        return loci__fail(LOCI_ENOMEM, "mremap of %s over %p: %s", units_format_size(size, sz, sizeof sz), to,
                          strerror(errno));
    }
    vm_unmapped(from, size);
    return 0;
}
