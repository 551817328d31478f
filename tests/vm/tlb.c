#include "tlb.h"

#include <stddef.h>
#include <sys/mman.h>

/* mprotect of 64 pages: more than the kernel's 33-page ceiling for flushing page by page, so it
 * flushes the whole process's TLB. */
void refresh_tlb(void)
{
    static char *scratch;
    if (!scratch)
        scratch = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (scratch != MAP_FAILED) {
        mprotect(scratch, 64 * 4096, PROT_READ);
        mprotect(scratch, 64 * 4096, PROT_READ | PROT_WRITE);
    }
}
