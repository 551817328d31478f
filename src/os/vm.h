/*
 * Virtual-memory primitives shared by the providers: aligned mappings, NUMA
 * policy (mbind with one-time kernel probes), advice and protection, pinning,
 * population, node free memory. The layers above reach the kernel only
 * through src/os (shared and file mappings: shared_map.h); the pool never
 * makes kernel calls.
 */
#ifndef LOCI_OS_VM_H
#define LOCI_OS_VM_H

#include "os/place.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h> /* MAP_FAILED and the MAP_* flags vm_map_aligned takes */

/** The system page size (cached). */
size_t vm_page_size(void);

/** Map `size` bytes aligned to `align` (power of two): anonymous private
 *  memory when fd < 0, else `fd` from offset 0 with `flags` (MAP_SHARED...).
 *  Over-maps and trims; never maps over memory it does not own, even when
 *  the file system refuses `flags` late. Returns MAP_FAILED with errno set. */
void *vm_map_aligned(size_t size, size_t align, int fd, int flags);

/** Tell vm_map_aligned that [addr, addr+size) was unmapped (its space may
 *  be reused by the next aligned mapping). */
void vm_unmapped(void *addr, size_t size);

/** Anonymous private read-write memory that reserves no swap
 *  (MAP_NORESERVE), paged in on first use: buffers. MAP_FAILED with errno set. */
void *vm_map_lazy(size_t size);

/** munmap [addr, addr+size): 0, or -1 with errno set. Tell vm_unmapped
 *  afterwards where the space may serve the next aligned mapping. */
int vm_unmap(void *addr, size_t size);

/** Apply place->policy to [addr, addr+size) with mbind; `mflags` are
 *  MPOL_MF_* flags (0 when mapping, MOVE|STRICT when moving). No-op for
 *  PLACE_LOCAL and simulated places. place->base_pages: MADV_NOHUGEPAGE
 *  first (pages already huge stay so). 0 or LOCI_E* with loci__fail. */
int vm_apply_policy(void *addr, size_t size, const place_t *place, unsigned mflags);

/** Apply `to` to the range and move the pages already there
 *  (vm_apply_policy with MPOL_MF_MOVE | MPOL_MF_STRICT): LOCI_EIO when some
 *  could not be moved. */
int vm_migrate(void *addr, size_t size, const place_t *to);

/** Give the range back to the task's policy (mbind MPOL_DEFAULT: first
 *  touch); its pages stay where they are. 0, or -1 with errno set. */
int vm_reset_policy(void *addr, size_t size);

/** Give [to, to+size) the NUMA policy the mapping at `from` has (a shared
 *  memory mapping: its file's policy at that offset), so that its pages are
 *  placed like from's. 0, or -1 with errno set. */
int vm_copy_policy(const void *from, void *to, size_t size);

#define VM_MASK_LONGS (PLACE_MAX_NODES / (8 * sizeof(unsigned long)))

/** The MPOL_* mode, node mask (VM_MASK_LONGS longs) and maxnode argument the
 *  kernel gets for `place` (probed once: PREFERRED_MANY, WEIGHTED_INTERLEAVE;
 *  preferred one node: MPOL_PREFERRED, whose huge pages stay on it). */
int vm_kernel_policy(const place_t *place, int *mode, unsigned long *mask, unsigned long *maxnode);

/** "MPOL_BIND"... for messages. */
const char *vm_mode_name(int mode);

/** After a move: LOCI_EIO, naming how many, when pages of the range are
 *  resident outside place->nodemask (move_pages reports each page's node;
 *  pages not faulted in yet count as placed: the policy will place them).
 *  0 for PLACE_LOCAL and simulated places. */
int vm_check_placed(void *addr, size_t size, const place_t *place);

/** The lowest node of a node mask (PLACE_MAX_NODES bits), -1 when empty. */
int vm_mask_first(const uint64_t *mask);

/** Whether node (any int: negative or past PLACE_MAX_NODES is in no mask) is in the mask. */
bool vm_mask_has(const uint64_t *mask, int node);

/** fn(page, node, arg) for each page of [addr, addr+size), node a negative
 *  errno for one not faulted in (move_pages' query, in batches of 1,024):
 *  0, or LOCI_EIO when the query fails. */
int vm_each_page_node(void *addr, size_t size, void (*fn)(void *page, int node, void *arg), void *arg);

/** (move_stragglers.c) A last pass after vm_migrate left pages outside to->nodemask: each one
 *  moved by move_pages to the mask's first node, which says per page why
 *  one cannot move. 0 when all are placed; else LOCI_EIO naming how many
 *  stayed and why (no memory the kernel would give there, busy, mapped by
 *  another process). */
int vm_move_stragglers(void *addr, size_t size, const place_t *to);

/** The NUMA node holding most of the resident pages of [addr, addr+size)
 *  (*node -1: none resident): 0, or LOCI_EIO / LOCI_ENOMEM. */
int vm_range_node(void *addr, size_t size, int *node);

/** Put the mapping at `from` (size bytes, one mapping) in place of
 *  [to, to+size), keeping to's contents: copy them, then mremap over the
 *  range. On failure `to` keeps its contents (as plain memory should mremap
 *  have dropped it first) and `from` is still mapped. */
int vm_replace(void *to, void *from, size_t size);

/** The second half of vm_replace: move the mapping at `from`, which already
 *  holds the contents, over [to, to+size). Same guarantees on failure. */
int vm_remap_over(void *to, void *from, size_t size);

/** Move [addr, addr+size) of private anonymous memory to `to` by copying,
 *  addresses kept (move_copy.c): fresh memory placed per `to` gets a copy of
 *  every resident page and is then mremapped over the range. Writers wait
 *  meanwhile (userfaultfd write-protection), readers read on. 0 when moved;
 *  1, with nothing done and no message, where this path does not apply (no
 *  write-protecting userfaultfd, pinned memory, LOCI_ARENA_MOVE=migrate):
 *  the caller then migrates the pages with mbind; LOCI_E* on failure (the
 *  range as it was), LOCI_ENOTSUP when LOCI_ARENA_MOVE=copy cannot be done. */
int vm_move_copy(void *addr, size_t size, const place_t *to);

/** Put `dst` — a mapping of `size` bytes elsewhere, of any kind (fresh
 *  anonymous memory, a new file of a file tier), zero-filled — over [addr,
 *  addr+size), holding its contents, while other threads may read and write
 *  the range: they store nowhere until it is done (userfaultfd
 *  write-protection; move_copy.c), so no store is lost. `anonymous`: addr is
 *  private anonymous memory (its pages never touched stay so), else shared
 *  memory (a memfd, a tmpfs file: read whole). 0 when done; 1, with the
 *  reason in loci_last_error() and nothing changed, where the range cannot be
 *  write-protected (no userfaultfd with write-protection for it, another
 *  userfaultfd watching it, LOCI_ARENA_MOVE=migrate); LOCI_E* on failure (the
 *  range as it was). dst stays the caller's unless done. */
int vm_copy_over(void *addr, void *dst, size_t size, bool anonymous);

/** NULL when vm_copy_over can write-protect memory of that kind in this
 *  process (probed once), else why not. */
const char *vm_copy_over_refusal(bool anonymous);

/** NULL when LOCI_ARENA_MOVE (auto, copy, migrate: read at each call) lets
 *  moves copy under userfaultfd, else why not. */
const char *vm_copies_refused(void);

/** Put `dst` — fresh anonymous or shared memory (a memfd) mapped elsewhere,
 *  empty, `size` bytes — over [addr, addr+size), a MAP_SHARED mapping of
 *  `file` from `offset`, and fill it from the file (move_fill.c), while other
 *  threads may read and write the range: a thread touching a page not filled
 *  yet waits until it is, and the file holds every store made before, so none
 *  is lost and none is read stale. Pages the file holds no data for are left
 *  to be zero-filled on first touch. `to`: where dst is placed; a strict place
 *  is filled under its preferred form (a full node sends pages elsewhere
 *  rather than wake the OOM killer), then bound and checked: pages left
 *  elsewhere fail the move (LOCI_ENOMEM). 0; 1, with the reason in
 *  loci_last_error() and nothing changed, where this cannot be done here
 *  (userfaultfd cannot watch dst); LOCI_E* on failure, the range as it was
 *  (mapped from the file again with `map_flags`, MAP_SHARED...). dst stays the
 *  caller's unless done. */
int vm_fill_over(void *addr, void *dst, size_t size, int file, uint64_t offset, int map_flags, const place_t *to);

/** NULL when vm_fill_over can run in this process (probed once), else why
 *  not. */
const char *vm_fill_over_refusal(void);

/** mlock the range; on failure the message names RLIMIT_MEMLOCK. */
int vm_pin(void *addr, size_t size);

/** Fault the range in for writing (MADV_POPULATE_WRITE). 0 when the kernel
 *  lacks it (nothing to do then), LOCI_ENOMEM when the memory is not there.
 *  Bound memory (MPOL_BIND) is faulted in under the preferred form of its
 *  policy, then bound again, the pages a full node sent elsewhere migrated
 *  back (the kernel's migration gives up where a bound fault would wake the
 *  OOM killer): pages left elsewhere are LOCI_ENOMEM. */
int vm_populate(void *addr, size_t size);

/** vm_populate in parts, for runs of one mapping (a copy's pages holding
 *  data): the range's policy loosened once to its preferred form, the runs
 *  faulted in with vm_populate_pages, the policy tightened once again. A
 *  policy change per run would split the mapping into a VMA per run, and
 *  mremap moves one VMA only (EFAULT). */
typedef struct {
    int mode; /* the range's MPOL_* mode, with its flags */
    unsigned long mask[VM_MASK_LONGS];
    bool bound; /* MPOL_BIND, loosened to its preferred form */
} vm_loosened_t;
void vm_loosen(void *addr, size_t size, vm_loosened_t *l);
/** MADV_POPULATE_WRITE of (part of) a loosened range: 0 (also when the
 *  kernel lacks it), LOCI_ENOMEM, LOCI_EIO. */
int vm_populate_pages(void *addr, size_t size);
/** The policy back; populated: the pages a full node sent elsewhere
 *  migrated to it (LOCI_ENOMEM where they cannot be). */
int vm_tighten(void *addr, size_t size, const vm_loosened_t *l, bool populated);

/* --- advice and protection (advice.c) -------------------------------------
 * 0, or -1 with errno set: the callers word the message. */

/** Drop the range's pages (MADV_DONTNEED): private anonymous memory reads
 *  zeros afterwards (its policy stays with the mapping), a file mapping
 *  reads its file again; shared memory (memfd, shmem) keeps its pages in the
 *  page cache and only loses the mapping (the next access is a minor fault:
 *  what the heat layer's faults source samples). */
int vm_drop(void *addr, size_t size);

/** Start reading the range's pages in (MADV_WILLNEED). */
int vm_prefetch(void *addr, size_t size);

/** Keep the range out of a fork's child (MADV_DONTFORK) and in base pages
 *  (MADV_NOHUGEPAGE), as userfaultfd copies and moves pages. Best effort:
 *  a kernel without them leaves the range as it is. */
void vm_advise_no_fork_no_huge(void *addr, size_t size);

/** Make the range read-only (mprotect PROT_READ). */
int vm_protect_readonly(void *addr, size_t size);

/** Make the range readable and writable again (mprotect PROT_READ|PROT_WRITE). */
int vm_protect_readwrite(void *addr, size_t size);

/** Make the range inaccessible, kept mapped (mprotect PROT_NONE): a closed
 *  region inside a mapping that stays, whose stale pointers should fault. */
int vm_protect_none(void *addr, size_t size);

/** Which pages of [addr, addr+size) (page-aligned) are in memory (mincore):
 *  vec[i] & 1 for page i. For shared memory a page counts while it is in the
 *  page cache, mapped here or not. 0, or -1 with errno set. */
int vm_residency(const void *addr, size_t size, unsigned char *vec);

/** Is the page at `page` (page-aligned) absent from memory (mincore)?
 *  False when it is there or mincore cannot tell. */
bool vm_page_absent(const void *page);

/** Flush this process's TLB on every CPU that runs it (a protection change
 *  of a scratch mapping large enough that the kernel flushes everything):
 *  the next access to each page walks the page table again, which sets the
 *  page's accessed bit again where someone cleared it without a flush
 *  (DAMON on x86). Best effort: nothing happens when the scratch mapping
 *  cannot be made. */
void vm_flush_tlb(void);

/** The room of the nodes in place->nodemask (node_room.c): what an
 *  allocation bound there can still get without reclaiming into the
 *  kernel's reserve — free, clean file and reclaimable slab pages, less the
 *  high watermark, boost and lowmem protection of each zone (the kernel's
 *  MemAvailable, per node), plus the free pages on the CPUs' lists
 *  (which MemFree leaves out). LOCI_ENOTSUP when sysfs cannot say. */
int vm_nodes_free(const place_t *place, uint64_t *bytes);
/** fork() handler of vm_nodes_free's locks (core/fork.c: innermost, as the
 *  pool's charge and tiering's room reach it under their own locks). */
void vm_room_fork(loci_fork_phase_t phase);

/** "0,2-3" for a node mask, into buf. Returns buf. */
const char *vm_nodemask_str(const uint64_t *mask, char *buf, size_t len);

/** Which policy the kernel really got for `policy` with several nodes (after
 *  probing), for tests and diagnostics: an MPOL_* mode. */
int vm_kernel_mode(place_policy_t policy);

/* --- used above the providers too ----------------------------------- */

/** Is every byte of [addr, addr+size) mapped readable, and writable too
 *  when `write` (as /proc/self/maps has it)? Without touching it: false for
 *  PROT_NONE, holes, unmapped. */
bool vm_accessible(const void *addr, size_t size, bool write);

/** Is every byte of [addr, addr+size) mapped read-write and MAP_SHARED (as
 *  /proc/self/maps has it; false when there is no /proc to tell)? */
bool vm_mapped_shared(const void *addr, size_t size);

/** The line of /proc/self/maps that overlaps [at, at+size) (what holds an
 *  address loci wanted), into buf; "(unknown)" when none or unreadable. */
const char *vm_occupant(uintptr_t at, size_t size, char *buf, size_t len);

/** Apply `place` as the calling task's memory policy (set_mempolicy): what
 *  `loci run` does before exec. LOCI_ENOTSUP for simulated places. */
int vm_set_task_policy(const place_t *place);

/** Apply `place` to memory mapped by someone else (loci_range_place): mbind
 *  [addr, addr+size) rounded out to whole pages, moving the pages already
 *  there (those other processes map too only with CAP_SYS_NICE), and mlock
 *  it when pinned. No-op for simulated and PLACE_LOCAL places. 0 or LOCI_E*
 *  with loci__fail. */
int vm_place_range(void *addr, size_t size, const place_t *place);

/* --- weighted-interleave weights (interleave_weights.c) --------------------
 * The kernel's system-wide weights MPOL_WEIGHTED_INTERLEAVE follows. */

#define VM_MAX_WEIGHT 255 /* the kernel's limit (a u8, 0 = "default") */

/** Does this kernel have MPOL_WEIGHTED_INTERLEAVE (probed once)? Without it
 *  PLACE_WEIGHTED_INTERLEAVE is plain MPOL_INTERLEAVE. */
bool vm_has_weighted_interleave(void);

/** The weight node `node` gets from MPOL_WEIGHTED_INTERLEAVE now (1..255).
 *  LOCI_ENOTSUP when the kernel has no weights (before 6.9). */
int vm_interleave_weight(int node, unsigned *weight);

/** Set node `node`'s weight for the whole system (root only: LOCI_EPERM
 *  otherwise; LOCI_ENOTSUP before 6.9). New allocations follow it; pages
 *  already placed stay where they are. */
int vm_set_interleave_weight(int node, unsigned weight);

#endif
