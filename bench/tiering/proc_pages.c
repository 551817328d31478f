/* Where another process's data is (proc_pages.h). */
#include "proc_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (4u << 20)
#define TAIL 27    /* the longest tag: "value:", 20 digits, a zero byte */
#define OVERLAP 64 /* TAIL and the longest sds header before it (17), with room to spare */

#define TAG "value:"
#define TAG_BYTES 6

void proc_pages_value(char *value, size_t len, uint64_t id)
{
    memset(value, 0, len);
    snprintf(value, len, TAG "%llu", (unsigned long long)id);
    value[strlen(value)] = '\0';
}

uint64_t proc_pages_id(const char *value, size_t len)
{
    if (len < TAG_BYTES + 2 || memcmp(value, TAG, TAG_BYTES) != 0)
        return UINT64_MAX;
    uint64_t id = 0;
    size_t i = TAG_BYTES;
    for (; i < len && i < TAG_BYTES + 20 && value[i] >= '0' && value[i] <= '9'; i++)
        id = id * 10 + (uint64_t)(value[i] - '0');
    return i > TAG_BYTES && i < len && value[i] == '\0' ? id : UINT64_MAX;
}

/* The length an sds header right before p says (Redis's sds.h: flags last, the type in
 * its low 3 bits; types 1-4 store len first in 1, 2, 4, 8 bytes). UINT64_MAX: no header
 * (type 0, sds5, holds only strings under 32 bytes). */
static uint64_t sds_len(const unsigned char *p, size_t before)
{
    static const size_t field[] = {0, 1, 2, 4, 8};
    if (before < 1)
        return UINT64_MAX;
    unsigned type = p[-1] & 7u;
    if (type < 1 || type > 4 || before < 1 + 2 * field[type])
        return UINT64_MAX;
    const unsigned char *len = p - 1 - 2 * field[type]; /* len, then alloc, then flags */
    uint64_t v = 0;
    for (size_t i = 0; i < field[type]; i++)
        v |= (uint64_t)len[i] << (8 * i);
    return v;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Takes the tags starting at [from, to) of buf, whose byte 0 is at address `at`. */
static void scan_buf(const unsigned char *buf, size_t n, size_t from, size_t to, uintptr_t at, size_t value_bytes,
                     uint64_t nkeys, uintptr_t *addr, proc_scan_t *scan)
{
    const unsigned char *p = buf + from, *end = buf + n;
    while (p < buf + to && (p = memmem(p, (size_t)(end - p), TAG, TAG_BYTES)) != NULL && p < buf + to) {
        size_t off = (size_t)(p - buf);
        if (sds_len(p, off) == value_bytes) {
            uint64_t id = proc_pages_id((const char *)p, (size_t)(end - p));
            if (id < nkeys && addr[id] == 0) {
                addr[id] = at + off;
                scan->found++;
            } else if (id < nkeys && addr[id] != at + off)
                scan->duplicates++;
        }
        p++;
    }
}

/* Scans [lo, hi) of the process, which is resident there (pagemap said so). A read's last
 * TAIL bytes are left for the next, which gets OVERLAP bytes of it in front: a tag whose
 * digits the read cut is taken whole there, with the header before it. */
static void scan_range(pid_t pid, unsigned long lo, unsigned long hi, unsigned char *buf, size_t value_bytes,
                       uint64_t nkeys, uintptr_t *addr, proc_scan_t *scan)
{
    size_t carried = 0, from = 0; /* bytes of the previous read at the front of buf; where the untaken start */
    for (unsigned long at = lo; at < hi;) {
        size_t want = hi - at < CHUNK ? hi - at : CHUNK;
        struct iovec local = {buf + carried, want}, remote = {(void *)at, want};
        ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (got <= 0) { /* unmapped meanwhile: skip a page */
            at += 4096;
            carried = from = 0;
            continue;
        }
        scan->mib += (double)got / (1 << 20);
        size_t n = carried + (size_t)got;
        size_t to = at + (unsigned long)got >= hi || n < TAIL ? n : n - TAIL;
        scan_buf(buf, n, from, to, at - carried, value_bytes, nkeys, addr, scan);
        size_t keep = n < OVERLAP ? n : OVERLAP;
        memmove(buf, buf + n - keep, keep);
        from = n - to < keep ? keep - (n - to) : 0;
        carried = keep;
        at += (unsigned long)got;
    }
}

int proc_pages_find(pid_t pid, size_t value_bytes, uint64_t nkeys, uintptr_t *addr, proc_scan_t *scan)
{
    enum { BATCH = 4096 };
    char path[64], line[512];
    *scan = (proc_scan_t){0};
    memset(addr, 0, nkeys * sizeof *addr);
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *maps = fopen(path, "r");
    snprintf(path, sizeof path, "/proc/%d/pagemap", (int)pid);
    int pagemap = open(path, O_RDONLY);
    unsigned char *buf = malloc(CHUNK + OVERLAP);
    uint64_t *pm = malloc(BATCH * sizeof *pm);
    int rc = maps && pagemap >= 0 && buf && pm ? 0 : -1;
    double t0 = now_s();
    /* only resident pages: reading the rest would fault each in (memory that loci or the
     * allocator reserved and never touched, shared memory a sampler unmapped). A page the kernel
     * is migrating (DAMOS, NUMA balancing) reads as swapped meanwhile (its migration entry) and
     * is resident: the read waits for the migration (a page swapped out is read back in: the scan
     * runs once, before the phases). Left out, the values on it went unfound (vm.redis-bpo.smoke:
     * 970 of 1024 under DAMOS, once). */
    while (rc == 0 && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[8] = "";
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' || perms[1] != 'w' ||
            strstr(line, "[vvar") || strstr(line, "[vsyscall]"))
            continue;
        unsigned long run = 0; /* start of the resident run being gathered, 0: none */
        for (unsigned long at = lo; at < hi;) {
            size_t n = (hi - at) / 4096 < BATCH ? (hi - at) / 4096 : BATCH;
            ssize_t got = pread(pagemap, pm, n * sizeof *pm, (off_t)(at / 4096 * sizeof *pm));
            size_t have = got > 0 ? (size_t)got / sizeof *pm : 0;
            for (size_t i = 0; i < n; i++, at += 4096) {
                int present = i < have && (pm[i] >> 62 & 3); /* present, or swapped: migrating */
                if (present && !run)
                    run = at;
                else if (!present && run) {
                    scan_range(pid, run, at, buf, value_bytes, nkeys, addr, scan);
                    run = 0;
                }
            }
        }
        if (run)
            scan_range(pid, run, hi, buf, value_bytes, nkeys, addr, scan);
    }
    scan->seconds = now_s() - t0;
    if (maps)
        fclose(maps);
    if (pagemap >= 0)
        close(pagemap);
    free(buf);
    free(pm);
    return rc;
}

int proc_pages_nodes(pid_t pid, size_t n, const uintptr_t *addr, int *node)
{
    enum { BATCH = 4096 };
    void *pages[BATCH];
    int status[BATCH];
    size_t idx[BATCH];
    for (size_t i = 0; i < n; i++)
        node[i] = -1;
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        for (; i < n && k < BATCH; i++)
            if (addr[i]) {
                pages[k] = (void *)(addr[i] & ~(uintptr_t)4095);
                idx[k++] = i;
            }
        if (k && move_pages(pid, (unsigned long)k, pages, NULL, status, 0) != 0)
            return -1;
        for (size_t j = 0; j < k; j++)
            node[idx[j]] = status[j] >= 0 ? status[j] : -1;
    }
    return 0;
}

int proc_pages_per_node(pid_t pid, double *mib)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/numa_maps", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    for (int i = 0; i < PROC_PAGES_MAX_NODES; i++)
        mib[i] = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        double kb = 4;
        char *s = strstr(line, "kernelpagesize_kB=");
        if (s)
            kb = atof(s + 18);
        for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n")) {
            int nd;
            unsigned long pages;
            if (sscanf(tok, "N%d=%lu", &nd, &pages) == 2 && nd >= 0 && nd < PROC_PAGES_MAX_NODES)
                mib[nd] += (double)pages * kb / 1024;
        }
    }
    free(line);
    fclose(f);
    return 0;
}
