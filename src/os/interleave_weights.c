/*
 * The kernel's weighted-interleave weights (Linux 6.9 and later): one
 * number per node in /sys/kernel/mm/mempolicy/weighted_interleave/nodeN.
 * MPOL_WEIGHTED_INTERLEAVE gives each node of a mask `weight` consecutive
 * pages in turn. The weights are the system's, not the process's: Linux has
 * no per-process or per-range weights (a set_mempolicy2/mbind2 with them
 * was proposed and never merged), and writing them needs root. loci reads
 * them; only `loci weights --set`, an administrator's explicit step,
 * writes them (docs/INTENTS.md says why).
 */
#include "os/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif

#define WEIGHTS_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"

static void weight_path(int node, char *buf, size_t len)
{
    snprintf(buf, len, WEIGHTS_DIR "/node%d", node);
}

int vm_interleave_weight(int node, unsigned *weight)
{
    char path[96], buf[16];
    weight_path(node, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return loci__fail(LOCI_ENOTSUP, "%s: %s (weighted interleave needs Linux 6.9 or later)", path,
                          strerror(errno));
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return loci__fail(LOCI_ENOTSUP, "%s: unreadable", path);
    buf[n] = '\0';
    char *end;
    unsigned long v = strtoul(buf, &end, 10);
    if (end == buf || v == 0 || v > VM_MAX_WEIGHT)
        return loci__fail(LOCI_ENOTSUP, "%s: unexpected content \"%.*s\"", path, (int)strcspn(buf, "\n"), buf);
    *weight = (unsigned)v;
    return 0;
}

int vm_set_interleave_weight(int node, unsigned weight)
{
    char path[96], text[16];
    weight_path(node, path, sizeof path);
    if (weight < 1 || weight > VM_MAX_WEIGHT)
        return loci__fail(LOCI_EINVAL, "%s: weight %u outside 1..%d", path, weight, VM_MAX_WEIGHT);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EACCES || e == EPERM || e == EROFS)
            return loci__fail(LOCI_EPERM, "%s: %s (the weights are the whole system's: only root sets them)", path,
                              strerror(e));
        return loci__fail(LOCI_ENOTSUP, "%s: %s (weighted interleave needs Linux 6.9 or later)", path, strerror(e));
    }
    int len = snprintf(text, sizeof text, "%u\n", weight);
    ssize_t n = write(fd, text, (size_t)len);
    int e = errno;
    close(fd);
    if (n != len)
        return loci__fail(LOCI_EIO, "%s: writing %u: %s", path, weight, n < 0 ? strerror(e) : "short write");
    return 0;
}

bool vm_has_weighted_interleave(void)
{
    return vm_kernel_mode(PLACE_WEIGHTED_INTERLEAVE) == MPOL_WEIGHTED_INTERLEAVE;
}
