/*
 * perf_event_open: hardware sampling of the process's own memory accesses
 * for the heat layer's perf source (src/heat/perf.c), which chooses the
 * event and reads the samples. Each call returns what the kernel call does
 * (-1 or MAP_FAILED with errno set): the caller words the message.
 */
#ifndef LOCI_OS_PERF_H
#define LOCI_OS_PERF_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <sys/types.h>

/** perf_event_open(attr, tid, cpu, no group, close-on-exec): the fd. */
int perf_open(struct perf_event_attr *attr, pid_t tid, int cpu);

/** Map the event's ring buffer: its control page and `data_pages` (a power
 *  of two) pages of samples, read-write (the reader moves data_tail). */
struct perf_event_mmap_page *perf_map_ring(int fd, size_t data_pages);

/** Unmap a ring perf_map_ring mapped. */
void perf_unmap_ring(struct perf_event_mmap_page *ring, size_t data_pages);

/** Send fd's samples to target's ring buffer (same CPU). 0 or -1, errno set. */
int perf_set_output(int fd, int target);

#endif
