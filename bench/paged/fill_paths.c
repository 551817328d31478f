/*
 * bench_fill_paths: what each way of backing the paged chunk cache costs the
 * kernel and the CPU, measured without loci (issue 30: should the cache be
 * shared memory mapped at the region and filled in place?). Results and the
 * decision: docs/BENCHMARKS.md, 2026-11-28.
 *
 * A reader streams a file of --region MiB (O_DIRECT, in --dir) through a
 * cache of 64 MiB into a userfaultfd-registered region of the same size,
 * 1 MiB per read (the cache's readahead batch), evicting the oldest MiB once
 * the cache is full, and touches every page after it is installed (the
 * application's access). A writer dirties the region 1 MiB at a time (fresh
 * memory, zeros first), and once the cache is full write-protects the oldest
 * MiB, writes it to the file and evicts it (the write-behind). The ways:
 *
 *   anon-copy   what src/paged does today: a private anonymous region; the
 *               read lands in a bounce buffer and UFFDIO_COPY installs a
 *               write-protected copy; eviction is MADV_DONTNEED. The writer's
 *               fresh memory is UFFDIO_COPY of never-written (zero) pages.
 *   shm-alias   issue 30's proposal: the region is MAP_SHARED of a memfd of its
 *               size, registered MISSING|MINOR|WP; a second (alias) mapping of
 *               the memfd is populated (MADV_POPULATE_WRITE) and read into
 *               directly, then UFFDIO_CONTINUE(WP) maps the pages at the region;
 *               eviction is fallocate(PUNCH_HOLE), which unmaps both mappings
 *               and frees the pages. The writer: POPULATE + CONTINUE.
 *   shm-write   the same memfd filled by pwrite(2) from the bounce buffer (a
 *               full-page write needs no zeroing), then CONTINUE(WP).
 *   slot-remap  a memfd of the cache's size whose pages are kept: each MiB is
 *               read into its slot and the slot is mapped at the region
 *               (mmap MAP_FIXED, UFFDIO_REGISTER MINOR|WP, CONTINUE); eviction
 *               maps anonymous memory back (MAP_FIXED, REGISTER MISSING|WP).
 *               No page is allocated or zeroed after the first pass, but each
 *               fill and eviction takes the address space's lock for writing.
 *
 * With --threads N, N threads stream their own region and file at once (the
 * cache's fault and readahead threads fill concurrently). Each round runs
 * every way once, in turn; a cell is the median over --rounds of the
 * process's CPU seconds (all threads) and the wall seconds, per GB moved.
 *
 * --unit 2 --shm-dir DIR (a tmpfs mounted huge=always, or with the system's
 * shmem_enabled at advise or always): the shared-memory ways in 2 MiB
 * pages, which only the system's setting can give a memfd (its default,
 * never, keeps shared memory in 4 KiB pages).
 *
 *   bench_fill_paths [--dir DIR] [--shm-dir DIR] [--unit MiB] [--region MiB] [--threads N] [--rounds N]
 *   bench_fill_paths --features    what this kernel offers, and exit
 */
#include "median.h"
#include "timing.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* For headers older than the kernel. */
#ifndef UFFDIO_CONTINUE_MODE_WP
#define UFFDIO_CONTINUE_MODE_WP ((__u64)1 << 1) /* Linux 6.4 */
#endif
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1 << 16) /* Linux 6.8 */
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

#define CACHE ((size_t)64 << 20) /* NVMalloc's cache, paged's default */
#define MAX_THREADS 8
#define MAX_ROUNDS 64
#define PAGE 4096

typedef enum { ANON_COPY, SHM_ALIAS, SHM_WRITE, SLOT_REMAP, NWAYS } way_t;
static const char *const way_names[NWAYS] = {"anon-copy", "shm-alias", "shm-write", "slot-remap"};
static const bool way_writes[NWAYS] = {true, true, false, true}; /* shm-write is a way to read */

static int uffd = -1;
static size_t region_bytes = (size_t)512 << 20;
static const char *dir = "/var/tmp";
static const char *shm_dir; /* the shared-memory ways' files: here (a tmpfs) instead of memfds */
static size_t unit = (size_t)1 << 20; /* one read, install and eviction */

#define EXIT_SKIP 77 /* ctest's skip: this machine cannot run it (told why) */

static void die(const char *what)
{
    fprintf(stderr, "bench_fill_paths: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void ioctl_or_die(unsigned long req, void *arg, const char *what)
{
    if (ioctl(uffd, req, arg) != 0)
        die(what);
}

static void uffd_register(void *at, size_t len, __u64 mode)
{
    struct uffdio_register r = {.range = {(uintptr_t)at, len}, .mode = mode};
    ioctl_or_die(UFFDIO_REGISTER, &r, "UFFDIO_REGISTER");
}

static void uffd_continue(void *at, size_t len, bool wp)
{
    struct uffdio_continue c = {.range = {(uintptr_t)at, len}, .mode = wp ? UFFDIO_CONTINUE_MODE_WP : 0};
    ioctl_or_die(UFFDIO_CONTINUE, &c, "UFFDIO_CONTINUE");
}

static void uffd_protect(void *at, size_t len)
{
    struct uffdio_writeprotect w = {.range = {(uintptr_t)at, len}, .mode = UFFDIO_WRITEPROTECT_MODE_WP};
    ioctl_or_die(UFFDIO_WRITEPROTECT, &w, "UFFDIO_WRITEPROTECT");
}

static void *map_or_die(void *at, size_t len, int flags, int fd, off_t off)
{
    void *p = mmap(at, len, PROT_READ | PROT_WRITE, flags, fd, off);
    if (p == MAP_FAILED)
        die("mmap");
    return p;
}

/* Anonymous memory at `at` (or anywhere), as paged maps a region: no huge
 * pages, not inherited, missing pages and writes fault to uffd. */
static char *map_anon_region(void *at, size_t len)
{
    char *p = map_or_die(at, len, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (at ? MAP_FIXED : 0), -1, 0);
    madvise(p, len, MADV_NOHUGEPAGE);
    madvise(p, len, MADV_DONTFORK);
    uffd_register(p, len, UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP);
    return p;
}

/* Shared memory of len bytes: a memfd, or an unlinked file in --shm-dir. */
static int memfd_of(size_t len)
{
    static _Atomic int files;
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_fill_paths.shm.%d.%d", shm_dir ? shm_dir : "", (int)getpid(), files++);
    int fd = shm_dir ? open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : memfd_create("bench_fill_paths", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
        die(shm_dir ? "a file in --shm-dir" : "memfd_create");
    if (shm_dir)
        unlink(path);
    return fd;
}

static void io(bool write, int fd, void *buf, off_t off)
{
    ssize_t n = write ? pwrite(fd, buf, unit, off) : pread(fd, buf, unit, off);
    if (n != (ssize_t)unit)
        die(write ? "pwrite" : "pread");
}

static volatile unsigned long sink;

static void touch(const char *p)
{
    unsigned long sum = 0;
    for (size_t i = 0; i < unit; i += PAGE)
        sum += (unsigned char)p[i];
    sink += sum;
}

/* One pass of `way` over a region of its own, reading from (or writing to) file. */
static void pass(way_t way, bool writer, int file)
{
    size_t units = region_bytes / unit, cached = CACHE / unit;
    bool shm = way == SHM_ALIAS || way == SHM_WRITE;
    int mem = shm ? memfd_of(region_bytes) : way == SLOT_REMAP ? memfd_of(CACHE) : -1;
    char *region, *alias = NULL, *bounce = map_or_die(NULL, unit, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *zeros = map_or_die(NULL, unit, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); /* never written */
    memset(bounce, 1, unit);
    if (shm) {
        region = map_or_die(NULL, region_bytes, MAP_SHARED, mem, 0);
        alias = map_or_die(NULL, region_bytes, MAP_SHARED, mem, 0);
        uffd_register(region, region_bytes,
                      UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP);
    } else {
        region = map_anon_region(NULL, region_bytes);
        if (way == SLOT_REMAP)
            alias = map_or_die(NULL, CACHE, MAP_SHARED | MAP_POPULATE, mem, 0);
    }
    for (size_t k = 0; k < units; k++) {
        off_t off = (off_t)(k * unit);
        char *at = region + off, *slot = way == SLOT_REMAP ? alias + (k % cached) * unit : NULL;
        if (k >= cached) { /* the oldest unit leaves: written back first by a writer */
            off_t old = (off_t)((k - cached) * unit);
            if (writer) {
                uffd_protect(region + old, unit);
                io(true, file, shm ? alias + old : region + old, old);
            }
            if (shm && fallocate(mem, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, old, (off_t)unit) != 0)
                die("fallocate(PUNCH_HOLE)");
            if (way == ANON_COPY)
                madvise(region + old, unit, MADV_DONTNEED);
            if (way == SLOT_REMAP)
                map_anon_region(region + old, unit);
        }
        if (way == ANON_COPY) {
            if (!writer)
                io(false, file, bounce, off);
            struct uffdio_copy c = {.dst = (uintptr_t)at, .src = (uintptr_t)(writer ? zeros : bounce), .len = unit,
                                    .mode = writer ? 0 : UFFDIO_COPY_MODE_WP};
            ioctl_or_die(UFFDIO_COPY, &c, "UFFDIO_COPY");
        } else if (way == SHM_ALIAS) {
            if (madvise(alias + off, unit, MADV_POPULATE_WRITE) != 0)
                die("madvise(POPULATE_WRITE)");
            if (!writer)
                io(false, file, alias + off, off);
            uffd_continue(at, unit, !writer);
        } else if (way == SHM_WRITE) {
            io(false, file, bounce, off);
            if (pwrite(mem, bounce, unit, off) != (ssize_t)unit)
                die("pwrite to the memfd");
            uffd_continue(at, unit, true);
        } else {
            if (writer)
                memset(slot, 0, unit);
            else
                io(false, file, slot, off);
            map_or_die(at, unit, MAP_SHARED | MAP_FIXED, mem, (off_t)((size_t)(slot - alias)));
            madvise(at, unit, MADV_DONTFORK);
            uffd_register(at, unit, UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP);
            uffd_continue(at, unit, !writer);
        }
        if (writer)
            memset(at, 3, unit);
        else
            touch(at);
    }
    munmap(region, region_bytes);
    if (alias)
        munmap(alias, shm ? region_bytes : CACHE);
    munmap(bounce, unit);
    munmap(zeros, unit);
    if (mem >= 0)
        close(mem);
}

typedef struct {
    way_t way;
    bool writer;
    int file;
} job_t;

static void *run_job(void *arg)
{
    job_t *j = arg;
    pass(j->way, j->writer, j->file);
    return NULL;
}

/* A file of region_bytes per thread, written once (its contents: ones). */
static int make_file(int n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_fill_paths.%d.%d", dir, (int)getpid(), n);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
    if (fd < 0)
        die("an O_DIRECT file in --dir (a file system without O_DIRECT? choose another --dir)");
    unlink(path);
    void *buf;
    if (posix_memalign(&buf, PAGE, unit) != 0)
        die("posix_memalign");
    memset(buf, 1, unit);
    for (size_t off = 0; off < region_bytes; off += unit)
        io(true, fd, buf, (off_t)off);
    free(buf);
    return fd;
}

/* A userfaultfd with write-protect faults, and minor faults and
 * write-protection on shared memory: -1 where the kernel lacks them. */
static int open_uffd(void)
{
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct uffdio_api api = {.api = UFFD_API,
                             .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_MINOR_SHMEM |
                                         UFFD_FEATURE_WP_HUGETLBFS_SHMEM};
    if (ioctl(fd, UFFDIO_API, &api) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Print what the kernel offers; true when it has all the shared-memory ways need. */
static bool features(void)
{
    struct uffdio_api api = {.api = UFFD_API}; /* the kernel answers with every feature it has */
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 || ioctl(fd, UFFDIO_API, &api) != 0) {
        fprintf(stderr, "bench_fill_paths: skipped: userfaultfd: %s (run as root, or allow it with sysctl "
                        "vm.unprivileged_userfaultfd=1)\n", strerror(errno));
        exit(EXIT_SKIP);
    }
    close(fd);
    bool minor = api.features & UFFD_FEATURE_MINOR_SHMEM, wp = api.features & UFFD_FEATURE_WP_HUGETLBFS_SHMEM;
    bool cont_wp = false;
    if (uffd >= 0) { /* CONTINUE_MODE_WP has no feature bit: try it on one page */
        int mem = memfd_of(PAGE);
        char *p = map_or_die(NULL, PAGE, MAP_SHARED, mem, 0), *a = map_or_die(NULL, PAGE, MAP_SHARED, mem, 0);
        a[0] = 1;
        uffd_register(p, PAGE, UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP);
        struct uffdio_continue c = {.range = {(uintptr_t)p, PAGE}, .mode = UFFDIO_CONTINUE_MODE_WP};
        cont_wp = ioctl(uffd, UFFDIO_CONTINUE, &c) == 0;
        munmap(p, PAGE);
        munmap(a, PAGE);
        close(mem);
    }
    printf("kernel features: MINOR_SHMEM %s, WP_HUGETLBFS_SHMEM %s, UFFDIO_CONTINUE_MODE_WP %s, MOVE %s\n",
           minor ? "yes" : "no", wp ? "yes" : "no", cont_wp ? "yes" : "no",
           api.features & UFFD_FEATURE_MOVE ? "yes" : "no");
    return minor && wp && cont_wp;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_fill_paths [--dir DIR] [--shm-dir DIR] [--unit MiB] [--region MiB] [--threads N] [--rounds N] "
                    "| --features\n");
    exit(2);
}

static long number(const char *s, long lo, long hi, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "bench_fill_paths: %s %s: give a whole number from %ld to %ld\n", what, s, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    int threads = 1, rounds = 3;
    bool only_features = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--features") == 0)
            only_features = true;
        else if (i + 1 < argc && strcmp(argv[i], "--dir") == 0)
            dir = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--region") == 0)
            region_bytes = (size_t)number(argv[++i], 2 * CACHE >> 20, 1 << 16, "--region") << 20;
        else if (i + 1 < argc && strcmp(argv[i], "--shm-dir") == 0)
            shm_dir = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--unit") == 0)
            unit = (size_t)number(argv[++i], 1, 8, "--unit (MiB)") << 20;
        else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
            threads = (int)number(argv[++i], 1, MAX_THREADS, "--threads");
        else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0)
            rounds = (int)number(argv[++i], 1, MAX_ROUNDS, "--rounds");
        else
            usage();
    }
    uffd = open_uffd();
    bool can = features();
    if (only_features)
        return 0;
    if (!can) {
        fprintf(stderr, "bench_fill_paths: skipped: the shared-memory ways need minor faults and write-protection "
                        "on shared memory (Linux 5.19) and UFFDIO_CONTINUE_MODE_WP (Linux 6.4)\n");
        return EXIT_SKIP;
    }
    int files[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        files[t] = make_file(t);
    double cpu[2][NWAYS][MAX_ROUNDS], wall[2][NWAYS][MAX_ROUNDS];
    double gb = (double)region_bytes * threads / 1e9;
    for (int r = 0; r < rounds; r++)
        for (int writer = 0; writer < 2; writer++)
            for (way_t w = 0; w < NWAYS; w++) {
                if (writer && !way_writes[w])
                    continue;
                pthread_t tid[MAX_THREADS];
                job_t jobs[MAX_THREADS];
                double c0 = bench_cpu(), w0 = clock_mono_s();
                for (int t = 0; t < threads; t++) {
                    jobs[t] = (job_t){w, writer, files[t]};
                    if (pthread_create(&tid[t], NULL, run_job, &jobs[t]) != 0)
                        die("pthread_create");
                }
                for (int t = 0; t < threads; t++)
                    pthread_join(tid[t], NULL);
                cpu[writer][w][r] = (bench_cpu() - c0) / gb;
                wall[writer][w][r] = (clock_mono_s() - w0) / gb;
            }
    printf("%d thread(s), %zu MiB each through a %zu MiB cache in %zu MiB units, shared memory %s%s, %d round(s), "
           "medians\n", threads, region_bytes >> 20, CACHE >> 20, unit >> 20, shm_dir ? "in " : "in memfds",
           shm_dir ? shm_dir : "", rounds);
    printf("%-7s %-11s %10s %10s %14s\n", "pass", "way", "CPU s/GB", "wall s/GB", "CPU vs today");
    for (int writer = 0; writer < 2; writer++)
        for (way_t w = 0; w < NWAYS; w++) {
            if (writer && !way_writes[w])
                continue;
            double c = bench_median_of(cpu[writer][w], rounds), base = bench_median_of(cpu[writer][ANON_COPY], rounds);
            printf("%-7s %-11s %10.3f %10.3f %13.2fx\n", writer ? "writer" : "reader", way_names[w], c,
                   bench_median_of(wall[writer][w], rounds), c / base);
        }
    return 0;
}
