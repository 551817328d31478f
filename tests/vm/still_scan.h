/* A scan of where a tiered program's pages are that no tiering move of the program overtook: a scan
 * that a demotion and then a promotion overtook counts the demoted range from before its move and the
 * promoted one from after its own — more on the fast node than it ever held (1.75 MiB over the budget
 * once in a CI run of vm_parts). */
#ifndef LOCI_VM_STILL_SCAN_H
#define LOCI_VM_STILL_SCAN_H

#include <loci.h>

#include <stdbool.h>
#include <stdint.h>

static inline uint64_t still_scan_moves(void)
{
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    return tot.moves;
}

/* scan(arg) made again while a move of this process's tiering ended during it, 10 times at most.
 * false: scan returned false. */
static inline bool still_scan(bool (*scan)(void *arg), void *arg)
{
    for (int tries = 0; tries < 10; tries++) {
        uint64_t before = still_scan_moves();
        if (!scan(arg))
            return false;
        if (still_scan_moves() == before)
            break;
    }
    return true;
}

#endif
