/* The baseline: every checkpoint a full copy of the variables into one file,
 * through a bounce buffer (paged memory may refuse read(2)/write(2) into it). */
#include "bench.h"
#include "loci.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIECE (8 * MiB)

static void die(const char *what, const char *path)
{
    perror(path);
    fprintf(stderr, "bench_ckpt: %s failed\n", what);
    exit(1);
}

static void put(int fd, const char *p, size_t len, off_t *off, char *buf, const char *path)
{
    for (size_t done = 0; done < len;) {
        size_t n = len - done < PIECE ? len - done : PIECE;
        memcpy(buf, p + done, n);
        if (pwrite(fd, buf, n, *off) != (ssize_t)n)
            die("write", path);
        done += n, *off += (off_t)n;
    }
}

static void get(int fd, char *p, size_t len, off_t *off, char *buf, const char *path)
{
    for (size_t done = 0; done < len;) {
        size_t n = len - done < PIECE ? len - done : PIECE;
        if (pread(fd, buf, n, *off) != (ssize_t)n)
            die("read", path);
        memcpy(p + done, buf, n);
        done += n, *off += (off_t)n;
    }
}

void copy_save(const vars_t *v, const char *path)
{
    char *buf = malloc(PIECE);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || !buf)
        die("create", path);
    off_t off = 0;
    put(fd, v->dram, v->dram_size, &off, buf, path);
    put(fd, v->ssd, v->ssd_size, &off, buf, path);
    if (fsync(fd) != 0)
        die("fsync", path);
    close(fd);
    free(buf);
}

void copy_restore(const vars_t *v, const char *path)
{
    char *buf = malloc(PIECE);
    int fd = open(path, O_RDONLY);
    if (fd < 0 || !buf)
        die("open", path);
    off_t off = 0;
    get(fd, v->dram, v->dram_size, &off, buf, path);
    get(fd, v->ssd, v->ssd_size, &off, buf, path);
    close(fd);
    free(buf);
    check(loci_region_sync(v->ssd), "sync of the restored region");
}
