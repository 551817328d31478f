/* What the parts of bench_nvm share: raw bandwidth of the device, region paths, paged counters,
 * residency and loci failures (clocks, progress, JSON rows and I/O counters: bench/common). */
#include "bench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Sequential read of the file at path in 1 MiB requests, O_DIRECT where the file system has it: MB/s. */
static double read_file_mbps(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECT);
    if (fd < 0 && errno == EINVAL && (fd = open(path, O_RDONLY)) >= 0) { /* no O_DIRECT here (tmpfs) */
        static bool told;
        if (!told) {
            told = true;
            fprintf(stderr, "bench_nvm: %s: no O_DIRECT on this file system; raw reads go through the page "
                            "cache, dropped first\n", path);
        }
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    }
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    size_t block = MiB, total = 0;
    void *buf = aligned_alloc(4096, block);
    double t = clock_mono_s();
    ssize_t n;
    while ((n = read(fd, buf, block)) > 0)
        total += (size_t)n;
    t = clock_mono_s() - t;
    if (n < 0) {
        perror(path);
        exit(1);
    }
    free(buf);
    close(fd);
    return (double)total / t / 1e6;
}

/* A flat file beside the region directory `dir`, as large as its chunk files together, written once
 * (O_DIRECT, 1 MiB at a time) and removed at exit: what the same bytes read as from one plain file. */
static char flat[4200];

static void remove_flat(void) { unlink(flat); }

static const char *flat_twin(const char *dir)
{
    static off_t made;
    off_t size = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    struct stat st;
    while (d && (e = readdir(d)))
        if (e->d_name[0] == 'c' && fstatat(dirfd(d), e->d_name, &st, 0) == 0)
            size += st.st_size;
    if (d)
        closedir(d);
    if (size == made)
        return flat;
    if (!made) {
        snprintf(flat, sizeof flat, "%s.raw-twin", dir);
        atexit(remove_flat);
    }
    int fd = open(flat, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
    void *buf = aligned_alloc(4096, MiB);
    if (fd < 0 || !buf) {
        perror(flat);
        exit(1);
    }
    memset(buf, 0x5a, MiB);
    for (off_t at = 0; at < size; at += (off_t)MiB)
        if (pwrite(fd, buf, MiB, at) != (ssize_t)MiB) {
            perror(flat);
            exit(1);
        }
    free(buf);
    fsync(fd);
    close(fd);
    made = size;
    return flat;
}

double bench_raw_read_mbps(const char *path)
{
    struct stat st;
    /* A region in chunk layout (mode=paged) is a directory of 256 KiB files: the device's sequential
     * bandwidth is measured on a flat file of the same size beside it instead. */
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        path = flat_twin(path);
    return read_file_mbps(path);
}

void bench_region_path(const bench_opts_t *o, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s.region", o->tier, name);
}

loci_cache_stats_t bench_nvm(void)
{
    loci_cache_stats_t st;
    loci_cache_stats(NULL, &st);
    return st;
}

size_t bench_resident(const void *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, r = 0;
    unsigned char *vec = malloc(n);
    if (vec && mincore((void *)((uintptr_t)p & ~(page - 1)), len, vec) == 0)
        for (size_t i = 0; i < n; i++)
            r += vec[i] & 1;
    free(vec);
    return r;
}

void *bench_check(void *p, const char *what)
{
    if (!p) {
        fprintf(stderr, "bench_nvm: %s failed: %s\n", what, loci_last_error());
        exit(1);
    }
    return p;
}
