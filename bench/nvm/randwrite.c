/*
 * (a) NVMalloc Table VII: 128 Ki single-byte writes at random addresses of a
 * 2 GiB paged region with a 64 MiB cache. Bytes written to the store, with
 * page-granular dirty tracking (loci) and without (a first write dirties its
 * whole chunk: NVMalloc without its write optimisation), against the pages
 * the writes dirtied. The region is filled with data first, so that the
 * chunk reads are real reads.
 *
 * On the aggregate store (--store) the "pages" variant also counts the bytes
 * the OSDs received (their op_w_in_bytes perf counters, summed by the
 * --osd-bytes command) against the pages dirtied. The region is not filled
 * there (a fill of 2 GiB through synchronous chunk writes would take minutes
 * on this machine): a chunk never written reads as zeros after one OSD
 * round trip, which does not change what is written back.
 */
#include "paged/paged.h"
#include "bench.h"
#include "provider/provider.h" /* paged_whole_chunks: the "off" column */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    double seconds;
    uint64_t distinct_pages, dirtied, written, read, faults;
    double osd_bytes; /* received by the OSDs (store only), -1 = not measured */
    uint64_t kernel_written; /* ssd0: what the kernel counted this process writing (/proc/self/io) */
} rw_result_t;

static uint64_t next(uint64_t *s)
{
    uint64_t x = (*s += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static rw_result_t run(const bench_opts_t *o, const char *intent, size_t size, unsigned writes, bool whole_chunks)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    bool was = paged_whole_chunks(whole_chunks); /* the cache made below takes it */
    loci_allocator_t *a = bench_check(loci_allocator_create(intent), intent);
    unsigned char *p = bench_check(loci_alloc(a, size), "loci_alloc");
    paged_whole_chunks(was);
    for (size_t off = 0; off < size && !o->store; off += page) /* data on the store, not holes */
        memset(p + off, (int)(off / page), page);
    loci_range_evict(p, size);
    uint64_t *seen = calloc(size / page / 64 + 1, 8);
    rw_result_t r = {.osd_bytes = -1};
    double osd0 = o->osd_bytes_cmd ? bench_cmd_number(o->osd_bytes_cmd) : -1;
    loci_cache_stats_t s0 = bench_nvm();
    uint64_t io_read0, io_written0, io_read1, io_written1;
    bench_io(&io_read0, &io_written0);
    uint64_t rng = 2012;
    double t = clock_mono_s();
    for (unsigned i = 0; i < writes; i++) {
        size_t addr = next(&rng) % size, pg = addr / page;
        p[addr] = (unsigned char)i;
        if (!(seen[pg / 64] >> (pg % 64) & 1)) {
            seen[pg / 64] |= 1ull << (pg % 64);
            r.distinct_pages++;
        }
    }
    loci_range_flush(p, size); /* what is still cached and dirty counts too */
    r.seconds = clock_mono_s() - t;
    loci_cache_stats_t s1 = bench_nvm();
    bench_io(&io_read1, &io_written1);
    r.kernel_written = io_written1 - io_written0;
    double osd1 = osd0 >= 0 ? bench_cmd_number(o->osd_bytes_cmd) : -1;
    if (osd1 >= 0)
        r.osd_bytes = osd1 - osd0;
    r.dirtied = whole_chunks ? r.distinct_pages : s1.pages_dirtied - s0.pages_dirtied;
    r.written = s1.bytes_written - s0.bytes_written;
    r.read = s1.bytes_read - s0.bytes_read;
    r.faults = s1.faults - s0.faults;
    free(seen);
    loci_free(p);
    return r;
}

int bench_randwrite(const bench_opts_t *o)
{
    size_t size = o->quick ? 256 * MiB : 2 * GiB, cache = o->quick ? 8 * MiB : 64 * MiB;
    unsigned writes = o->writes ? o->writes : o->quick ? 4096 : 131072;
    char intent[128];
    if (o->store)
        snprintf(intent, sizeof intent, "target=%s,cache=%zu,chunk=256KiB,fallback=null%s", o->store, cache,
                 o->object);
    else
        snprintf(intent, sizeof intent, "kind=ssd!,mode=paged!,cache=%zu,chunk=256KiB,fallback=null", cache);
    printf("\n(a) random single-byte writes (NVMalloc Table VII): %u writes over a %zu MiB paged region%s, "
           "%zu MiB cache, 256 KiB chunks\n", writes, size / MiB, o->store ? " on the store" : "", cache / MiB);
    printf("  %-22s %10s %10s %14s %14s %10s %10s %9s\n", "dirty tracking", "distinct", "dirtied", "written",
           "read", "/distinct", "/dirtied", "seconds");
    const char *names[] = {"pages (loci)", "whole chunks"};
    for (int k = 0; k < (o->store ? 1 : 2); k++) { /* the store: loci's tracking only */
        bench_progress("randwrite: %s, %u writes", names[k], writes);
        rw_result_t r = run(o, intent, size, writes, k == 1);
        double page = (double)sysconf(_SC_PAGESIZE);
        double per_distinct = (double)r.written / ((double)r.distinct_pages * page);
        double per_dirtied = (double)r.written / ((double)r.dirtied * page);
        printf("  %-22s %10llu %10llu %11.1f MB %11.1f MB %9.3fx %9.3fx %9.1f\n", names[k],
               (unsigned long long)r.distinct_pages, (unsigned long long)r.dirtied, r.written / 1e6, r.read / 1e6,
               per_distinct, per_dirtied, r.seconds);
        bench_json_row(o->json, "\"bench\": \"randwrite\", \"tracking\": \"%s\", \"writes\": %u, \"region\": %zu, "
                       "\"cache\": %zu, \"distinct_pages\": %llu, \"dirtied_pages\": %llu, \"bytes_written\": %llu, "
                       "\"bytes_read\": %llu, \"faults\": %llu, \"seconds\": %.3f, \"osd_bytes\": %.0f, "
                       "\"kernel_written\": %llu",
                       k ? "chunk" : "page", writes, size, cache, (unsigned long long)r.distinct_pages,
                       (unsigned long long)r.dirtied, (unsigned long long)r.written, (unsigned long long)r.read,
                       (unsigned long long)r.faults, r.seconds, r.osd_bytes,
                       (unsigned long long)r.kernel_written);
        if (r.osd_bytes >= 0)
            printf("  %-22s %10s %10s %11.1f MB %14s %10s %9.3fx\n", "  received by the OSDs", "", "",
                   r.osd_bytes / 1e6, "", "", r.osd_bytes / ((double)r.dirtied * page));
        else if (!o->store)
            printf("  %-22s %10s %10s %11.1f MB %14s %10s %9.3fx\n", "  counted by the kernel", "", "",
                   r.kernel_written / 1e6, "", "", r.kernel_written / ((double)r.dirtied * page));
    }
    printf("  distinct: pages the writes touched; dirtied: clean pages made dirty (a page written again after its\n"
           "  chunk was evicted is dirtied, and written back, once more). Goal: written <= 1.01x dirtied x 4 KiB.\n");
    return 0;
}
