/*
 * Advice and protection on mappings (vm.h): madvise, mprotect and mincore
 * for the layers above, which reach the kernel only through src/os.
 */
#include "os/vm.h"

int vm_drop(void *addr, size_t size) { return madvise(addr, size, MADV_DONTNEED); }

int vm_prefetch(void *addr, size_t size) { return madvise(addr, size, MADV_WILLNEED); }

void vm_advise_no_fork_no_huge(void *addr, size_t size)
{
    madvise(addr, size, MADV_DONTFORK);
    madvise(addr, size, MADV_NOHUGEPAGE);
}

int vm_protect_readonly(void *addr, size_t size) { return mprotect(addr, size, PROT_READ); }

int vm_residency(const void *addr, size_t size, unsigned char *vec) { return mincore((void *)addr, size, vec); }

int vm_protect_readwrite(void *addr, size_t size) { return mprotect(addr, size, PROT_READ | PROT_WRITE); }

int vm_protect_none(void *addr, size_t size) { return mprotect(addr, size, PROT_NONE); }

bool vm_page_absent(const void *page)
{
    unsigned char resident = 0;
    return mincore((void *)page, vm_page_size(), &resident) == 0 && !(resident & 1);
}
