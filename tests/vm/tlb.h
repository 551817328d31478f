/* A VM test's stand-in for a real CPU's TLB misses (tlb.c). */
#ifndef LOCI_VM_TLB_H
#define LOCI_VM_TLB_H

/* Flush this process's TLB: under QEMU TCG the software TLB keeps every page of a working set,
 * and DAMON clears a page's accessed bit without a flush (x86), so without this a page the test
 * keeps touching is seen accessed again only after some unrelated flush (docs/TIERING.md, "What
 * each kernel and CPU gives"). A real CPU's TLB (some 1,500 entries) loses the pages of a large
 * working set within microseconds by itself. */
void refresh_tlb(void);

#endif
