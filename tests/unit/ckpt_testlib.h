/*
 * What the checkpoint tests (test_ckpt.c, test_ckpt_proc.c) share: data
 * patterns with a generation number, and the pool's bookkeeping seen from
 * outside: how many chunk files it has, how many distinct ones the
 * manifests refer to, and leftover temporary files.
 */
#ifndef LOCI_TEST_CKPT_TESTLIB_H
#define LOCI_TEST_CKPT_TESTLIB_H

#include "loci.h"
#include "ckpt/ckpt.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MB ((size_t)1 << 20)
#define KB ((size_t)1 << 10)

/* Word i of generation gen: every word differs between generations. */
static inline uint64_t word(size_t i, uint64_t gen) { return (i + 1) * 0x9E3779B97F4A7C15ull ^ gen; }

/* Bytes [from, to) of p: generation gen's words, indexed from p. */
static inline void fill_in(void *p, size_t from, size_t to, uint64_t gen)
{
    uint64_t *w = p;
    for (size_t i = from / 8; i < to / 8; i++)
        w[i] = word(i, gen);
}

static inline void fill(void *p, size_t size, uint64_t gen) { fill_in(p, 0, size, gen); }

/* The generation whose pattern bytes [from, to) of p hold throughout, or
 * UINT64_MAX when they hold none (a mix of two, or garbage). */
static inline uint64_t gen_in(const void *p, size_t from, size_t to)
{
    const uint64_t *w = p;
    uint64_t gen = w[from / 8] ^ word(from / 8, 0);
    for (size_t i = from / 8; i < to / 8; i++)
        if (w[i] != word(i, gen))
            return UINT64_MAX;
    return gen;
}

static inline uint64_t gen_of(const void *p, size_t size) { return gen_in(p, 0, size); }

/* The checkpoint directory these tests use (LOCI_CKPT_DIR, else ssd0's ckpt/). */
static inline const char *ckpt_dir(void)
{
    static char dir[4096];
    const char *env = getenv("LOCI_CKPT_DIR");
    if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else
        snprintf(dir, sizeof dir, "%s/ckpt", loci_target_path(loci_target_by_name("ssd0")));
    return dir;
}

/* Files in the pool; *temps: temporary manifests left in the directory. */
static inline size_t pool_files(size_t *temps)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/chunks", ckpt_dir());
    size_t n = 0;
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    *temps = 0;
    d = opendir(ckpt_dir());
    for (struct dirent *e; d && (e = readdir(d));)
        *temps += strncmp(e->d_name, ".tmp-", 5) == 0;
    if (d)
        closedir(d);
    return n;
}

static inline int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct pool ids the manifests refer to (-1 when one cannot be read). */
static inline long referenced_chunks(void)
{
    int dir = open(ckpt_dir(), O_RDONLY | O_DIRECTORY);
    DIR *d = dir < 0 ? NULL : fdopendir(dup(dir));
    uint64_t *ids = NULL;
    size_t n = 0;
    long rc = 0;
    for (struct dirent *e; d && rc == 0 && (e = readdir(d));) {
        char name[NVM_NAME_MAX + 1];
        ckpt_manifest_t m;
        if (!ckpt_manifest_name(e->d_name, name))
            continue;
        if (ckpt_manifest_read(dir, name, &m) != 0) {
            rc = -1;
            break;
        }
        for (size_t k = 0; k < m.nvars; k++)
            for (uint64_t i = 0; i < m.vars[k].nchunks; i++)
                if (m.vars[k].chunks[i].id != CKPT_ZERO) {
                    ids = realloc(ids, (n + 1) * sizeof *ids);
                    ids[n++] = m.vars[k].chunks[i].id;
                }
        ckpt_manifest_free(&m);
    }
    if (d)
        closedir(d);
    if (dir >= 0)
        close(dir);
    if (rc == 0 && n > 0) {
        qsort(ids, n, sizeof *ids, cmp_u64);
        rc = 1;
        for (size_t i = 1; i < n; i++)
            rc += ids[i] != ids[i - 1];
    }
    free(ids);
    return rc;
}

/* Flip one byte at `off` of file `path`. */
static inline int flip_byte(const char *path, off_t off)
{
    int fd = open(path, O_RDWR);
    unsigned char c = 0;
    int ok = fd >= 0 && pread(fd, &c, 1, off) == 1;
    c ^= 0x20;
    ok = ok && pwrite(fd, &c, 1, off) == 1;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

#endif
