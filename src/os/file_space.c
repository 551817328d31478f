#include "os/file_space.h"

#include <errno.h>
#include <fcntl.h>

int file_reserve(int fd, uint64_t size) { return posix_fallocate(fd, 0, (off_t)size); }

int file_zero_range(int fd, uint64_t off, uint64_t len, bool reserve)
{
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) != 0)
        return errno;
    if (reserve)
        (void)fallocate(fd, 0, (off_t)off, (off_t)len); /* (best effort: the hole reads as zeros either way) */
    return 0;
}

void file_writeback_start(int fd, uint64_t off, uint64_t len)
{
    (void)sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
}

int file_writeback_wait(int fd, uint64_t off, uint64_t len)
{
    unsigned all = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    return sync_file_range(fd, (off_t)off, (off_t)len, all) == 0 ? 0 : errno;
}

void file_drop_cache(int fd, uint64_t off, uint64_t len)
{
    (void)posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
}
