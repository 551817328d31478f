/*
 * Advice and protection on mappings (vm.h): madvise, mprotect and mincore
 * for the layers above, which reach the kernel only through src/os; and the
 * flush of the process's TLB that a protection change brings.
 */
#include "os/vm.h"

#include <pthread.h>

int vm_drop(void *addr, size_t size) { return madvise(addr, size, MADV_DONTNEED); }

int vm_prefetch(void *addr, size_t size) { return madvise(addr, size, MADV_WILLNEED); }

void vm_advise_no_fork_no_huge(void *addr, size_t size)
{
    madvise(addr, size, MADV_DONTFORK);
    madvise(addr, size, MADV_NOHUGEPAGE);
}

int vm_protect_readonly(void *addr, size_t size) { return mprotect(addr, size, PROT_READ); }

int vm_protect_readwrite(void *addr, size_t size) { return mprotect(addr, size, PROT_READ | PROT_WRITE); }

int vm_protect_none(void *addr, size_t size) { return mprotect(addr, size, PROT_NONE); }

int vm_residency(const void *addr, size_t size, unsigned char *vec) { return mincore((void *)addr, size, vec); }

bool vm_page_absent(const void *page)
{
    unsigned char resident = 0;
    return mincore((void *)page, vm_page_size(), &resident) == 0 && !(resident & 1);
}

/* Pages whose protection change makes Linux flush the whole TLB of the
 * process rather than page by page: more than x86's ceiling (33) and
 * arm64's (512). Mapped read-only to the zero page: page tables only. */
#define FLUSH_PAGES 1024

static char *scratch = MAP_FAILED;

static void map_scratch(void)
{
    size_t size = FLUSH_PAGES * vm_page_size();
    char *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p != MAP_FAILED)
        madvise(p, size, MADV_DONTFORK);
    scratch = p;
}

void vm_flush_tlb(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, map_scratch);
    if (scratch == MAP_FAILED)
        return;
    size_t size = FLUSH_PAGES * vm_page_size();
    (void)mprotect(scratch, size, PROT_NONE);
    (void)mprotect(scratch, size, PROT_READ);
}
