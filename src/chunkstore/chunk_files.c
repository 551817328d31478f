/*
 * Chunk store: a persistent region kept as one file per chunk in its
 * directory (paged/paged.h, NVMalloc §III-E: benefactors store chunks as
 * individual files, so that a checkpoint can link them instead of copying).
 *
 *  - read: a missing chunk file reads as zeros (sparse regions stay sparse);
 *  - write: creates the chunk file on its first write-back. A file with
 *    another link (st_nlink > 1: a checkpoint holds it) is never written in
 *    place: its contents are copied to "c<idx>.cow.<pid>.<tid>", the new
 *    pages written there, and that file renamed over the region's name —
 *    the other link keeps the old inode untouched (e -> e');
 *  - sync: fdatasync of every chunk file written since the last sync, then
 *    fsync of the directory (creations, renames, removals);
 *  - discard: whole chunks are unlinked, parts are overwritten with zeros.
 *
 * Files are opened for each access (no descriptor table to bound); I/O goes
 * through fd_io.c (O_DIRECT where the file system allows). The cache
 * above writes a chunk from one thread at a time (its slot is busy), so two
 * copies of the same chunk never race.
 */
#include "chunkstore/chunkstore.h"
#include "chunkstore/chunkstore.h"
#include "filetier/filetier.h"
#include "os/vm.h"
#include "random_id.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    chunkstore_t base;
    int dirfd;
    size_t chunk;
    bool readonly, in_memory;
    _Atomic bool direct;    /* O_DIRECT, until the file system refuses it */
    pthread_mutex_t lock;   /* guards what follows */
    uint64_t *written;      /* bit per chunk written since the last sync */
    size_t words;           /* of written */
    bool dir_changed;       /* files made, renamed or removed since the last sync */
    uint64_t version;       /* new at open and at every change of a chunk file (chunkstore_chunks_version) */
    char path[4096];        /* the directory, for messages */
} chunk_files_t;

static chunk_files_t *cs_of(chunkstore_t *s) { return (chunk_files_t *)s; }

/* Versions are unique in the process (a counter) and between processes (it
 * starts at a random number): equal versions mean the same open store, not
 * changed in between. */
static _Atomic uint64_t version_counter;

static void seed_versions(void)
{
    atomic_store(&version_counter, random_id() | 1); /* never 0: "no version" in a manifest */
}

static uint64_t next_version(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, seed_versions);
    return atomic_fetch_add_explicit(&version_counter, 2, memory_order_relaxed);
}

/* A chunk file is about to change (or did: a restore relinked it). */
static void touch(chunk_files_t *s)
{
    uint64_t v = next_version();
    pthread_mutex_lock(&s->lock);
    s->version = v;
    pthread_mutex_unlock(&s->lock);
}

void chunkstore_chunk_name(uint64_t index, char *out) { snprintf(out, 24, "c%016llx", (unsigned long long)index); }

/* A file of the region's directory as fd_io.c takes it, named "<dir>/<name>". */
typedef struct {
    chunkstore_fd_t io;
    char what[4200];
} chunk_fd_t;

static void chunk_fd_name(chunk_files_t *s, chunk_fd_t *c, const char *name)
{
    snprintf(c->what, sizeof c->what, "%s/%s", s->path, name);
    c->io = (chunkstore_fd_t){-1, false, s->in_memory, c->what};
}

/* openat(2) of file `name` of the region's directory into c, O_DIRECT where
 * it works: the fd, or -1 with errno. */
static int open_chunk(chunk_files_t *s, chunk_fd_t *c, const char *name, int flags)
{
    chunk_fd_name(s, c, name);
    flags |= O_CLOEXEC | O_NOFOLLOW;
    if (atomic_load(&s->direct)) {
        c->io.fd = openat(s->dirfd, name, flags | O_DIRECT, 0600);
        c->io.direct = c->io.fd >= 0;
        if (c->io.fd >= 0 || errno != EINVAL)
            return c->io.fd;
        atomic_store(&s->direct, false); /* the file system has no O_DIRECT */
    }
    return c->io.fd = openat(s->dirfd, name, flags, 0600);
}

/* The failure of `op` on file `name` with errno e. */
static int chunk_fail(chunk_files_t *s, const char *name, const char *op, int e)
{
    chunk_fd_t c;
    chunk_fd_name(s, &c, name);
    return chunkstore_fd_fail(&c.io, op, 0, 0, e);
}

#define NO_CHUNK UINT64_MAX

/* Chunk `idx` was written (NO_CHUNK: none), the directory changed: for the next sync. */
static void note_written(chunk_files_t *s, uint64_t idx, bool dir_changed)
{
    pthread_mutex_lock(&s->lock);
    if (idx != NO_CHUNK)
        s->written[idx / 64] |= 1ull << (idx % 64);
    s->dir_changed |= dir_changed;
    pthread_mutex_unlock(&s->lock);
}

/* The first part of [at, at+left) inside one chunk: its length, the chunk's
 * index and the offset in it. */
static size_t piece(const chunk_files_t *s, uint64_t at, size_t left, uint64_t *idx, uint64_t *in)
{
    *idx = at / s->chunk;
    *in = at % s->chunk;
    return s->chunk - *in < left ? (size_t)(s->chunk - *in) : left;
}

static size_t chunk_len(const chunk_files_t *s, uint64_t idx)
{
    uint64_t left = s->base.size - idx * s->chunk;
    return left < s->chunk ? (size_t)left : s->chunk;
}

/* Copy the `size` bytes of `from` to `to`: copy_file_range (extents shared
 * where the file system can), else through a buffer. */
static int copy_contents(chunk_fd_t *from, chunk_fd_t *to, uint64_t size)
{
    loff_t in = 0, out = 0;
    while ((uint64_t)in < size) {
        ssize_t n = copy_file_range(from->io.fd, &in, to->io.fd, &out, (size_t)(size - (uint64_t)in), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0)
            continue;
        if (n == 0 || (errno != EINVAL && errno != EXDEV && errno != EOPNOTSUPP && errno != ENOSYS))
            return chunkstore_fd_fail(&to->io, "copy_file_range", (uint64_t)out, (size_t)(size - (uint64_t)in),
                                 n == 0 ? EIO : errno);
        break; /* not between these files (O_DIRECT, old kernel): by hand */
    }
    size_t len = (size_t)(size - (uint64_t)in);
    if (len == 0)
        return 0;
    size_t page = vm_page_size();
    void *buf = aligned_alloc(page, (len + page - 1) & ~(page - 1));
    if (!buf)
        return loci__fail(LOCI_ENOMEM, "out of memory copying %s", from->what);
    int rc = chunkstore_fd_read(&from->io, (uint64_t)in, buf, len);
    if (rc == 0)
        rc = chunkstore_fd_write(&to->io, (uint64_t)in, buf, len);
    free(buf);
    return rc;
}

/* Copy-on-write of chunk `idx` (file `name`, open as `old`, st its stat):
 * the old contents and the new pages go to a new file that replaces the
 * region's name; the other links keep the old inode. The new file is durable
 * before the rename, so that a crash cannot trade synced data for a hole. */
static int cow_write(chunk_files_t *s, const char *name, chunk_fd_t *old, const struct stat *st, uint64_t off,
                     const void *buf, size_t len)
{
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%s.cow.%ld.%ld", name, (long)getpid(), (long)gettid());
    chunk_fd_t new;
    int fd = open_chunk(s, &new, tmp, O_RDWR | O_CREAT | O_TRUNC);
    if (fd < 0)
        return chunkstore_fd_fail(&new.io, "creating", 0, 0, errno);
    bool covered = off == 0 && len >= (uint64_t)st->st_size; /* nothing of the old contents stays */
    int rc = covered ? 0 : copy_contents(old, &new, (uint64_t)st->st_size);
    if (rc == 0)
        rc = chunkstore_fd_write(&new.io, off, buf, len);
    if (rc == 0 && fdatasync(fd) != 0)
        rc = chunkstore_fd_fail(&new.io, "fdatasync", 0, 0, errno);
    if (rc == 0 && renameat(s->dirfd, tmp, s->dirfd, name) != 0)
        rc = chunkstore_fd_fail(&new.io, "renaming it over the shared chunk", 0, 0, errno);
    if (rc != 0)
        unlinkat(s->dirfd, tmp, 0);
    close(fd);
    return rc;
}

/* Write [off, off+len) of chunk `idx` (inside it) from buf. `create`: make
 * the file when missing (else a missing chunk stays zeros: nothing to do). */
static int write_piece(chunk_files_t *s, uint64_t idx, uint64_t off, const void *buf, size_t len, bool create)
{
    char name[24];
    chunkstore_chunk_name(idx, name);
    chunk_fd_t c;
    int fd = open_chunk(s, &c, name, O_RDWR | (create ? O_CREAT : 0));
    if (fd < 0)
        return !create && errno == ENOENT ? 0 : chunkstore_fd_fail(&c.io, "opening", 0, 0, errno);
    struct stat st;
    int rc = fstat(fd, &st) == 0 ? 0 : chunkstore_fd_fail(&c.io, "fstat", 0, 0, errno);
    bool shared = rc == 0 && st.st_nlink > 1;
    if (shared)
        rc = cow_write(s, name, &c, &st, off, buf, len);
    else if (rc == 0)
        rc = chunkstore_fd_write(&c.io, off, buf, len);
    close(fd);
    if (rc == 0) /* a copy renamed, or an empty file made by this open: the directory changed too */
        note_written(s, idx, shared || st.st_size == 0);
    return rc;
}

#define READ_FILES 16 /* chunk files open and read at once */

/* The chunk files of a read are opened first and then read all at once
 * (chunkstore_fd_read_pieces), so that a readahead batch has all its chunks in
 * flight; a missing file reads as zeros. */
static int chunks_read(chunkstore_t *base, uint64_t off, void *buf, size_t len)
{
    chunk_files_t *s = cs_of(base);
    chunk_fd_t *c = malloc(READ_FILES * sizeof *c);
    if (!c)
        return loci__fail(LOCI_ENOMEM, "out of memory reading %s", s->path);
    chunkstore_piece_t p[READ_FILES];
    int rc = 0;
    for (size_t done = 0; rc == 0 && done < len;) {
        unsigned k = 0;
        while (k < READ_FILES && done < len && rc == 0) {
            uint64_t idx, in;
            size_t n = piece(s, off + done, len - done, &idx, &in);
            char name[24];
            chunkstore_chunk_name(idx, name);
            p[k] = (chunkstore_piece_t){&c[k].io, in, (char *)buf + done, n};
            done += n;
            if (open_chunk(s, &c[k], name, O_RDONLY) >= 0)
                k++;
            else if (errno == ENOENT)
                memset(p[k].buf, 0, n); /* never written */
            else
                rc = chunkstore_fd_fail(&c[k].io, "opening", 0, 0, errno);
        }
        if (rc == 0)
            rc = chunkstore_fd_read_pieces(p, k);
        for (unsigned i = 0; i < k; i++)
            close(c[i].io.fd);
    }
    free(c);
    return rc;
}

static int check_writable(chunk_files_t *s)
{
    return s->readonly ? loci__fail(LOCI_EPERM, "%s is open read-only: nothing may be written to it", s->path) : 0;
}

static int chunks_write(chunkstore_t *base, uint64_t off, const void *buf, size_t len)
{
    chunk_files_t *s = cs_of(base);
    int rc = check_writable(s);
    if (rc == 0) /* before: a write that fails halfway has changed the file too */
        touch(s);
    for (size_t done = 0; rc == 0 && done < len;) {
        uint64_t idx, in;
        size_t n = piece(s, off + done, len - done, &idx, &in);
        rc = write_piece(s, idx, in, (const char *)buf + done, n, true);
        done += n;
    }
    return rc;
}

static int chunks_discard(chunkstore_t *base, uint64_t off, size_t len)
{
    chunk_files_t *s = cs_of(base);
    int rc = check_writable(s);
    if (rc == 0)
        touch(s);
    void *zeros = NULL;
    for (size_t done = 0; rc == 0 && done < len;) {
        uint64_t idx, in;
        size_t n = piece(s, off + done, len - done, &idx, &in);
        char name[24];
        chunkstore_chunk_name(idx, name);
        if (in == 0 && n == chunk_len(s, idx)) { /* the whole chunk: its file goes (a checkpoint keeps its link) */
            if (unlinkat(s->dirfd, name, 0) == 0)
                note_written(s, NO_CHUNK, true);
            else if (errno != ENOENT)
                rc = chunk_fail(s, name, "unlinking", errno);
        } else {
            if (!zeros && (zeros = aligned_alloc(vm_page_size(), s->chunk)))
                memset(zeros, 0, s->chunk);
            rc = zeros ? write_piece(s, idx, in, zeros, n, false)
                       : loci__fail(LOCI_ENOMEM, "out of memory discarding part of %s", s->path);
        }
        done += n;
    }
    free(zeros);
    return rc;
}

static int chunks_sync(chunkstore_t *base)
{
    chunk_files_t *s = cs_of(base);
    if (s->readonly)
        return 0;
    pthread_mutex_lock(&s->lock);
    uint64_t *todo = malloc(s->words * sizeof *todo);
    bool dir = s->dir_changed;
    if (todo) { /* writes from now on are the next sync's */
        memcpy(todo, s->written, s->words * sizeof *todo);
        memset(s->written, 0, s->words * sizeof *todo);
        s->dir_changed = false;
    }
    pthread_mutex_unlock(&s->lock);
    if (!todo)
        return loci__fail(LOCI_ENOMEM, "out of memory syncing %s", s->path);
    int rc = 0;
    for (size_t w = 0; w < s->words; w++)
        for (uint64_t bits = todo[w]; bits; bits &= bits - 1) {
            char name[24];
            chunkstore_chunk_name(w * 64 + (uint64_t)__builtin_ctzll(bits), name);
            int fd = openat(s->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
            int e = fd < 0 ? (errno == ENOENT ? 0 : chunk_fail(s, name, "opening", errno)) /* discarded since */
                    : fdatasync(fd) == 0 ? 0 : chunk_fail(s, name, "fdatasync", errno);
            rc = rc ? rc : e;
            if (fd >= 0)
                close(fd);
        }
    if (dir && fsync(s->dirfd) != 0) {
        int e = loci__fail(errno == ENOSPC ? LOCI_ENOSPC : LOCI_EIO, "%s: fsync of the directory: %s", s->path,
                           strerror(errno));
        rc = rc ? rc : e;
    }
    free(todo);
    return rc;
}

static void chunks_close(chunkstore_t *base)
{
    chunk_files_t *s = cs_of(base);
    close(s->dirfd);
    pthread_mutex_destroy(&s->lock);
    free(s->written);
    free(s);
}

static const chunkstore_ops_t chunk_files_ops = {
    .name = "chunks",
    .read = chunks_read,
    .write = chunks_write,
    .sync = chunks_sync,
    .discard = chunks_discard,
    .close = chunks_close,
};

chunkstore_t *chunkstore_chunks_open(int dirfd, const char *path, uint64_t size, size_t chunk, bool readonly)
{
    chunk_files_t *s = calloc(1, sizeof *s);
    size_t words = (size_t)(((size + chunk - 1) / chunk + 63) / 64);
    uint64_t *written = s ? calloc(words ? words : 1, sizeof *written) : NULL;
    if (!written) {
        free(s);
        close(dirfd);
        return loci__fail_null(LOCI_ENOMEM, "out of memory opening the chunks of %s", path);
    }
    s->base = (chunkstore_t){&chunk_files_ops, size, false, CHUNKSTORE_FILE_PATIENCE_S, 0};
    s->dirfd = dirfd;
    s->chunk = chunk;
    s->written = written;
    s->words = words;
    s->readonly = readonly;
    s->version = next_version();
    s->in_memory = filetier_in_memory(dirfd);
    atomic_init(&s->direct, true);
    pthread_mutex_init(&s->lock, NULL);
    snprintf(s->path, sizeof s->path, "%s", path);
    return &s->base;
}

int chunkstore_chunks_dir(const chunkstore_t *s) { return s->ops == &chunk_files_ops ? ((const chunk_files_t *)s)->dirfd : -1; }

uint64_t chunkstore_chunks_version(chunkstore_t *s)
{
    chunk_files_t *cs = cs_of(s);
    pthread_mutex_lock(&cs->lock);
    uint64_t v = cs->version;
    pthread_mutex_unlock(&cs->lock);
    return v;
}

void chunkstore_chunks_changed(chunkstore_t *s) { touch(cs_of(s)); }
