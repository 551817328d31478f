#include "os/raw_write.h"

#include <sys/syscall.h>
#include <unistd.h>

long raw_pwrite(int fd, const void *buf, size_t len, uint64_t off) { return syscall(SYS_pwrite64, fd, buf, len, (off_t)off); }
