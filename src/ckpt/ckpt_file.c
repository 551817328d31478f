/*
 * File work every checkpoint step shares, wherever the files are (the
 * checkpoint directory, a region's chunk files, copies on the way to the
 * job store): an errno as a LOCI_E* code, a callee's message with context
 * in front, whole writes, copies where no hard link can be made, XXH3
 * checksums of whole files, and a region directory's chunk inodes.
 */
#include "ckpt/ckpt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ckpt_code_of(int e)
{
    switch (e) {
    case ENOSPC:
    case EDQUOT: return LOCI_ENOSPC;
    case ENOENT: return LOCI_ENOENT;
    case EACCES:
    case EPERM:
    case EROFS: return LOCI_EPERM;
    default: return LOCI_EIO;
    }
}

int ckpt_sum_fd(int fd, void *buf, size_t buflen, ckpt_sum_t *sum, uint64_t *bytes, const char *what)
{
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        return loci__fail(LOCI_ENOMEM, "out of memory checksumming %s", what);
    XXH3_128bits_reset(st);
    uint64_t n = 0;
    ssize_t got;
    while ((got = pread(fd, buf, buflen, (off_t)n)) > 0 || (got < 0 && errno == EINTR))
        if (got > 0) {
            XXH3_128bits_update(st, buf, (size_t)got);
            n += (uint64_t)got;
        }
    int e = errno;
    *sum = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    *bytes = n;
    return got < 0 ? loci__fail(LOCI_EIO, "cannot read %s: %s", what, strerror(e)) : 0;
}

int ckpt_write_all(int fd, const void *buf, size_t len, off_t off, const char *what)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            return loci__fail(ckpt_code_of(e), "cannot write %s: %s", what, strerror(e));
        }
        p += n, len -= (size_t)n, off += n;
    }
    return 0;
}

int ckpt_copy_file(int src, const char *from, int out, void *buf, size_t buflen, uint64_t *bytes)
{
    int in = openat(src, from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return loci__fail(ckpt_code_of(errno), "cannot open %s to copy it: %s", from, strerror(errno));
    int rc = 0;
    ssize_t got = 0;
    *bytes = 0;
    while (rc == 0 && ((got = pread(in, buf, buflen, (off_t)*bytes)) > 0 || (got < 0 && errno == EINTR)))
        if (got > 0 && (rc = ckpt_write_all(out, buf, (size_t)got, (off_t)*bytes, "a copy of a chunk file")) == 0)
            *bytes += (uint64_t)got;
    if (rc == 0 && got < 0)
        rc = loci__fail(LOCI_EIO, "cannot read %s: %s", from, strerror(errno));
    close(in);
    return rc;
}

int ckpt_fail_in(int code, const char *fmt, ...)
{
    char what[512], inner[1024];
    snprintf(inner, sizeof inner, "%s", loci_last_error());
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return loci__fail(code, "%s: %s", what, inner);
}

int ckpt_chunk_inodes(int dirfd, uint64_t nchunks, uint64_t **out)
{
    uint64_t *ino = calloc(nchunks ? nchunks : 1, sizeof *ino);
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* its own offset */
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!ino || !d) {
        free(ino);
        if (fd >= 0 && !d)
            close(fd);
        return loci__fail(ino ? LOCI_EIO : LOCI_ENOMEM, "cannot list a region's chunk files: %s", strerror(errno));
    }
    for (struct dirent *e; (e = readdir(d));) { /* "c<16 hex>" exactly: not a copy-on-write temporary */
        uint64_t i;
        if (e->d_name[0] == 'c' && strlen(e->d_name) == 17 && ckpt_hex64(e->d_name + 1, &i) && i < nchunks)
            ino[i] = e->d_ino;
    }
    closedir(d);
    *out = ino;
    return 0;
}
