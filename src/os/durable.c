/*
 * Durable stores to persistent memory (durable.h). On device-DAX there is
 * no page cache: a store is in the device once it leaves the CPU caches, so
 * the cache lines are written back by hand; msync has nothing to write there
 * but is what a mapping of a file without MAP_SYNC needs.
 */
#include "os/durable.h"
#include "os/vm.h"

#include <stdint.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include <cpuid.h>

enum { LINE = 64 };

typedef enum { WB_UNKNOWN, WB_CLWB, WB_CLFLUSHOPT, WB_CLFLUSH } writeback_t;

static writeback_t writeback_kind(void)
{
    static _Atomic writeback_t kind = WB_UNKNOWN;
    writeback_t k = kind;
    if (k != WB_UNKNOWN)
        return k;
    unsigned a, b = 0, c, d;
    k = WB_CLFLUSH;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
        k = b & (1u << 24) ? WB_CLWB : b & (1u << 23) ? WB_CLFLUSHOPT : WB_CLFLUSH;
    kind = k;
    return k;
}

/* Encoded by hand (as PMDK does), so that no -mclwb is needed to build. */
static void write_back(const void *addr, size_t size)
{
    writeback_t k = writeback_kind();
    for (uintptr_t p = (uintptr_t)addr & ~(uintptr_t)(LINE - 1); p < (uintptr_t)addr + size; p += LINE) {
        volatile char *line = (volatile char *)p;
        if (k == WB_CLWB)
            __asm__ volatile(".byte 0x66; xsaveopt %0" : "+m"(*line));
        else if (k == WB_CLFLUSHOPT)
            __asm__ volatile(".byte 0x66; clflush %0" : "+m"(*line));
        else
            __asm__ volatile("clflush %0" : "+m"(*line));
    }
    __asm__ volatile("sfence" ::: "memory");
}
#elif defined(__aarch64__)
enum { LINE = 64 };

static void write_back(const void *addr, size_t size)
{
    for (uintptr_t p = (uintptr_t)addr & ~(uintptr_t)(LINE - 1); p < (uintptr_t)addr + size; p += LINE)
        __asm__ volatile("dc cvac, %0" ::"r"(p) : "memory");
    __asm__ volatile("dsb ish" ::: "memory");
}
#else
static void write_back(const void *addr, size_t size)
{
    (void)addr;
    (void)size;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* msync below does the rest */
}
#endif

int durable_range(const void *addr, size_t size, bool map_sync)
{
    if (size == 0)
        return 0;
    write_back(addr, size);
#if !defined(__x86_64__) && !defined(__aarch64__)
    map_sync = false;
#endif
    if (map_sync)
        return 0;
    uintptr_t page = vm_page_size(), from = (uintptr_t)addr & ~(page - 1);
    return msync((void *)from, (uintptr_t)addr + size - from, MS_SYNC);
}
