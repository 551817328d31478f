/* perf_event_open and its ring buffers, for the heat layer's perf source (see perf.h). */
#include "os/perf.h"
#include "os/vm.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int perf_open(struct perf_event_attr *attr, pid_t tid, int cpu)
{
    return (int)syscall(SYS_perf_event_open, attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

struct perf_event_mmap_page *perf_map_ring(int fd, size_t data_pages)
{
    return mmap(NULL, (1 + data_pages) * vm_page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

void perf_unmap_ring(struct perf_event_mmap_page *ring, size_t data_pages)
{
    munmap(ring, (1 + data_pages) * vm_page_size());
}

int perf_set_output(int fd, int target) { return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, target); }
