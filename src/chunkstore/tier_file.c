/*
 * File store: one file of a tier (an extent's nameless file, or a flat
 * persistent region), read and written through fd_io.c, so that the
 * chunk cache holds the only DRAM copy.
 */
#include "chunkstore/chunkstore.h"
#include "filetier/filetier.h"
#include "os/file_space.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    chunkstore_t base;
    chunkstore_fd_t io;
    char what[256];
} file_store_t;

static file_store_t *fs_of(chunkstore_t *s) { return (file_store_t *)s; }

static int file_read(chunkstore_t *s, uint64_t off, void *buf, size_t len)
{
    return chunkstore_fd_read(&fs_of(s)->io, off, buf, len);
}

static int file_write(chunkstore_t *s, uint64_t off, const void *buf, size_t len)
{
    return chunkstore_fd_write(&fs_of(s)->io, off, buf, len);
}

static int file_sync(chunkstore_t *s)
{
    file_store_t *f = fs_of(s);
    return fdatasync(f->io.fd) == 0 ? 0 : chunkstore_fd_fail(&f->io, "fdatasync", 0, 0, errno);
}

static int file_discard(chunkstore_t *s, uint64_t off, size_t len)
{
    file_store_t *f = fs_of(s);
    /* the blocks reserved again so that writing there cannot hit ENOSPC */
    int e = file_zero_range(f->io.fd, off, len, !f->io.in_memory);
    return e == 0 ? 0 : chunkstore_fd_fail(&f->io, "punching a hole", off, len, e);
}

static void file_close(chunkstore_t *s)
{
    file_store_t *f = fs_of(s);
    close(f->io.fd);
    free(f);
}

static const chunkstore_ops_t file_store_ops = {
    .name = "file",
    .read = file_read,
    .write = file_write,
    .spans_chunks = true,
    .sync = file_sync,
    .discard = file_discard,
    .close = file_close,
};

chunkstore_t *chunkstore_file_open(int fd, uint64_t size, const char *what)
{
    file_store_t *f = calloc(1, sizeof *f);
    if (!f) {
        close(fd);
        return loci__fail_null(LOCI_ENOMEM, "out of memory opening the store %s", what);
    }
    f->base = (chunkstore_t){&file_store_ops, size, false, CHUNKSTORE_FILE_PATIENCE_S, 0};
    snprintf(f->what, sizeof f->what, "%s", what);
    f->io = (chunkstore_fd_t){fd, (fcntl(fd, F_GETFL) & O_DIRECT) != 0, filetier_in_memory(fd), f->what};
    return &f->base;
}
