/*
 * Checkpoint and restart (loci.h "checkpoint"; docs/CHECKPOINT.md), the
 * layer above the regions (src/region). Three places hold chunks, each with
 * one name: the checkpoint directory (ckpt_dir_t: this node's level 1, its
 * manifests and chunk pool), the job store (ckpt_store_*: a store target's
 * RADOS pool, level 2 and the home of access=job regions), and a paged
 * region's chunk store (src/chunkstore: what its cache writes back to).
 *
 * The files call each other one way (no circle), each only files listed
 * before it:
 *
 *   ckpt_progress.c  progress of long operations, reported to the calling thread's hook
 *   ckpt_ids.c       pool ids: their names (16 hex digits), read and written, and sets of them
 *   ckpt_file.c      file work every step shares: error codes, whole writes,
 *                    copies, checksums, a region directory's chunk inodes
 *   ckpt_manifest.c  one checkpoint's manifest: written atomically, read back
 *                    with its checksum checked
 *   ckpt_dir.c       the checkpoint directory: where, its lock, its manifests,
 *                    the chunk pool (files, links, checksums)
 *   ckpt_register.c  the registered variables (name, range), the check of a
 *                    checkpoint's name, and what a save or restore works on:
 *                    them plus the regions open here
 *   ckpt_store.c     the job store: store targets (a manifest's, the drain's,
 *                    level 2's) and the manifests kept there
 *   ckpt_level1.c    the job store's records of checkpoints whole only at one node's level 1
 *   ckpt_snap.c      regions in the job store: finding a checkpoint there, GC of snapshots
 *   ckpt_store_gc.c  drained chunks in the job store: their guard and GC
 *   ckpt_drain.c     level 2: the drain to the job store, loci_ckpt_wait, loci_ckpt_drain
 *   ckpt_save.c      loci_ckpt_save and its counters; ckpt_fini, the layer's one fini
 *   ckpt_restore.c   loci_ckpt_restore, loci_ckpt_verify
 *   ckpt_gc.c        loci_ckpt_list, loci_ckpt_remove, loci_ckpt_gc
 */
#ifndef LOCI_CKPT_H
#define LOCI_CKPT_H

#include "region/region.h"

#include <stdint.h>
#include <xxhash.h>

/** Chunk size of memory variables (and mode=mmap regions) in the pool. */
#define CKPT_CHUNK ((size_t)1 << 20)

/** Pool id of a chunk that is all zeros and has no file. */
#define CKPT_ZERO 0

typedef XXH128_hash_t ckpt_sum_t;

/* ---------------------------------------------------------- what is saved -- */

typedef enum { CKPT_MEMORY, CKPT_REGION } ckpt_kind_t;

/** A variable a save or restore works on. */
typedef struct {
    char name[NVM_NAME_MAX + 1];
    ckpt_kind_t kind;
    void *base;
    size_t size;
    bool paged; /* a mode=paged region: maybe in chunk layout */
} ckpt_item_t;

/** The check at the entry of every operation on checkpoint `ckpt`: the
 *  topology discovered, the name checked (LOCI_EINVAL naming the rule). */
int ckpt_entry_check(const char *ckpt);

/** What saving or restoring checkpoint `ckpt` works on: its name checked,
 *  then the registered variables and the persistent regions open read-write
 *  in this process, as they are now (malloc'd; free it). LOCI_ENOENT
 *  ("nothing to <what>") when there are none. */
int ckpt_begin(const char *ckpt, const char *what, ckpt_item_t **out, size_t *n);

/** Forget the registered variables (ckpt_fini). */
void ckpt_register_fini(void);

/* --------------------------------------------------------------- manifest -- */

typedef struct {
    uint64_t id;    /* pool id, CKPT_ZERO for a chunk of zeros */
    ckpt_sum_t sum; /* of the pool file's bytes */
    uint64_t ino;   /* linked chunks: the file's inode (0: a copy), so that the next save knows
                     * an unchanged chunk file by its directory entry alone */
} ckpt_chunk_t;

typedef struct {
    char name[NVM_NAME_MAX + 1];
    ckpt_kind_t kind;
    bool linked;      /* the chunks are a region's chunk files, linked; else copies of memory */
    uint64_t size;    /* bytes */
    uint64_t chunk;   /* chunk size: the last chunk may be shorter */
    uint64_t nchunks; /* ceil(size / chunk) */
    uint64_t version; /* linked: the region's version when saved (region_chunks_t), 0 unknown */
    uint64_t snap;    /* a region on the store: the RADOS snapshot holding its chunks (0: none);
                       * its chunks' ids are then CKPT_IN_SNAP or CKPT_ZERO */
    char target[16];  /* then the store target */
    ckpt_chunk_t *chunks;
} ckpt_var_t;

/** Pool id of a chunk held by the variable's store snapshot, not by a pool file. */
#define CKPT_IN_SNAP 1

typedef struct {
    char name[NVM_NAME_MAX + 1];
    uint64_t seq;        /* save number in the directory */
    int64_t saved_s;     /* when, seconds and nanoseconds since the Epoch */
    long saved_ns;
    size_t nvars;
    ckpt_var_t *vars;
    ckpt_sum_t sum;      /* of the manifest's text: set by ckpt_manifest_write and _read */
} ckpt_manifest_t;

/** Whether a was saved after b. */
static inline bool ckpt_manifest_newer(const ckpt_manifest_t *a, const ckpt_manifest_t *b)
{
    return a->saved_s != b->saved_s ? a->saved_s > b->saved_s : a->saved_ns > b->saved_ns;
}

/** The variable (kind, name) of m, or NULL. */
const ckpt_var_t *ckpt_manifest_find(const ckpt_manifest_t *m, ckpt_kind_t kind, const char *name);

/** Length of chunk i of v: the chunk size, or less for the last one. */
static inline size_t ckpt_chunk_len(const ckpt_var_t *v, uint64_t i)
{
    uint64_t off = i * v->chunk;
    return (size_t)(v->size - off < v->chunk ? v->size - off : v->chunk);
}

/** Add a variable to m (its chunks array allocated, zeroed). NULL + LOCI_ENOMEM. */
ckpt_var_t *ckpt_manifest_add(ckpt_manifest_t *m, const char *name, ckpt_kind_t kind, bool linked, uint64_t size,
                              uint64_t chunk);

void ckpt_manifest_free(ckpt_manifest_t *m);

/** The text of m, its last line the checksum of the rest (m->sum set): malloc'd. */
int ckpt_manifest_text(ckpt_manifest_t *m, char **text, size_t *len);

/** Parse and check manifest text of checkpoint `name` (from a file or the store). */
int ckpt_manifest_parse(const char *name, const char *text, size_t len, ckpt_manifest_t *m);

/** Write m as "<name>.manifest" in directory dirfd: to a temporary file,
 *  fsync'd, renamed over the old one, directory fsync'd; m->sum set. *bytes: its size;
 *  *renamed: whether it got its name (then its chunks are in use, even if
 *  the directory's fsync failed after). */
int ckpt_manifest_write(int dirfd, ckpt_manifest_t *m, uint64_t *bytes, bool *renamed);

/** Read "<name>.manifest" of dirfd and check its checksum and syntax:
 *  LOCI_ENOENT when there is none, LOCI_EIO when it is corrupt. */
int ckpt_manifest_read(int dirfd, const char *name, ckpt_manifest_t *m);

/** Just the save number of "<name>.manifest" (its header), 0 if unreadable. */
uint64_t ckpt_manifest_seq(int dirfd, const char *name);

/** Whether "<name>.manifest" of dirfd ends with the checksum `sum` (its last
 *  line only is read): then it is the manifest that had that checksum. */
bool ckpt_manifest_has_sum(int dirfd, const char *name, ckpt_sum_t sum);

/** "NAME" when file is "NAME.manifest" (a checkpoint's), into out; else false. */
bool ckpt_manifest_name(const char *file, char out[NVM_NAME_MAX + 1]);

/* ----------------------------------------------------------- pool ids (ckpt_ids.c) -- */

/** "%016llx": the file name of pool id `id` (and its drained chunk's object). */
void ckpt_id_name(uint64_t id, char out[17]);

/** The 16 lowercase hex digits at s (no more needed) as a number; false when
 *  they are not that. */
bool ckpt_hex64(const char *s, uint64_t *out);

/** The pool id of file (or object) `name`: written exactly as ckpt_id_name
 *  writes it, else false. */
bool ckpt_id_of(const char *name, uint64_t *id);

/** A set of pool ids: the chunks some manifests refer to, or a save created. */
typedef struct {
    uint64_t *v;
    size_t n, cap;
} ckpt_ids_t;

/** Add the pool ids of m's stored chunks (not its zero chunks, not those a
 *  store snapshot keeps). Sort before asking. */
int ckpt_ids_add(ckpt_ids_t *ids, const ckpt_manifest_t *m);
int ckpt_ids_push(ckpt_ids_t *ids, uint64_t id);
void ckpt_ids_sort(ckpt_ids_t *ids);
bool ckpt_ids_has(const ckpt_ids_t *ids, uint64_t id);
void ckpt_ids_free(ckpt_ids_t *ids);

/* ------------------------------------------ the checkpoint directory (ckpt_dir.c) -- */

/** This node's checkpoint directory (level 1): manifests and the chunk pool. */
typedef struct {
    char path[4096]; /* where it is */
    int fd;          /* it, flock'ed */
    int pool;        /* its chunks/ */
} ckpt_dir_t;

/** Open the checkpoint directory (LOCI_CKPT_DIR, else "<persist tier>/ckpt"),
 *  creating it and chunks/ when `create`, and lock it: exclusively for those
 *  that add or delete files (save, remove, gc), shared for readers.
 *  LOCI_ENOENT when it does not exist and !create. */
int ckpt_dir_open(ckpt_dir_t *d, bool exclusive, bool create);
void ckpt_dir_close(ckpt_dir_t *d);

/** Call fn(name, arg) for each checkpoint whose manifest "<name>.manifest" is
 *  in the checkpoint directory, stopping at the first nonzero return (returned). */
int ckpt_dir_manifest_each(const ckpt_dir_t *d, int (*fn)(const char *name, void *arg), void *arg);

/** Create a new pool file under a fresh random id: fd (write-only) or LOCI_E*. */
int ckpt_pool_create(ckpt_dir_t *d, uint64_t *id);

/** Hard-link file `name` of dirfd into the pool under a fresh id. 0,
 *  LOCI_ENOTSUP when they are on different file systems, or LOCI_E*. */
int ckpt_pool_link(ckpt_dir_t *d, int dirfd, const char *name, uint64_t *id);

/** Checksum and length of pool file `id`: LOCI_EIO (naming `what`) when it
 *  is missing or unreadable. */
int ckpt_sum_pool(const ckpt_dir_t *d, uint64_t id, void *buf, size_t buflen, ckpt_sum_t *sum, uint64_t *bytes,
                  const char *what);

/* ------------------------------------------ file work every step shares (ckpt_file.c) -- */

/** Checksum the whole file fd (from offset 0), reading it through buf
 *  (buflen bytes); its length goes to *bytes. `what` names it in errors. */
int ckpt_sum_fd(int fd, void *buf, size_t buflen, ckpt_sum_t *sum, uint64_t *bytes, const char *what);

/** Copy file `from` of dirfd `src` into the new, empty file `out` through
 *  buf, where no hard link can be made; *bytes: its size. Not synced. */
int ckpt_copy_file(int src, const char *from, int out, void *buf, size_t buflen, uint64_t *bytes);

/** Write all of buf to fd at offset off; LOCI_ENOSPC / LOCI_EIO naming `what`. */
int ckpt_write_all(int fd, const void *buf, size_t len, off_t off, const char *what);

/** LOCI_E* for errno e (ENOSPC, EDQUOT: LOCI_ENOSPC; ENOENT; EACCES,
 *  EPERM: LOCI_EPERM; else LOCI_EIO). */
int ckpt_code_of(int e);

/** loci__fail(code, "<fmt>: <the current last error>"): context added in
 *  front of what a callee said. Returns code. */
int ckpt_fail_in(int code, const char *fmt, ...) LOCI_PRINTF(2, 3);

/** The inode of each chunk file "c<index>" of a region's directory dirfd,
 *  index < nchunks (0: no file, zeros), from one pass over the directory
 *  instead of a lookup per chunk. *out: malloc'd. 0 or LOCI_E*. */
int ckpt_chunk_inodes(int dirfd, uint64_t nchunks, uint64_t **out);

/* ------------------------------------------------------ the job store (ckpt_store.c) -- */

struct jobstore;

/** Objects of checkpoints in a job store: "loci-ckpt/<name>" (manifests of
 *  checkpoints whole there), CKPT_STORE_CHUNKS "<pool id>" (drained chunks) and
 *  CKPT_STORE_LEVEL1 "<name>/<node id>" (records of checkpoints whole only at
 *  one node's level 1, ckpt_level1.c). */
#define CKPT_STORE_MANIFESTS "loci-ckpt/"
#define CKPT_STORE_CHUNKS "loci-ckpt/chunks/"
#define CKPT_STORE_LEVEL1 "loci-ckpt/level1/"

/** The [checkpoint] drain target of LOCI_CONFIG, or NULL. */
const char *ckpt_drain_target(void);

/** The connection of store target `target` (named in a manifest), or NULL + loci__fail. */
struct jobstore *ckpt_target_pool(const char *target);

/** The stores where level 2 is looked for: the [checkpoint] drain target's,
 *  or with none configured every reachable store target's (at most max, into
 *  out). How many, or LOCI_EIO when the drain target cannot be used (said why). */
#define CKPT_LEVEL2_MAX 64
int ckpt_level2_stores(struct jobstore **out, int max);

/** Call fn(target, m, arg) once per distinct store target of m's snapshots. */
int ckpt_snap_targets_each(const ckpt_manifest_t *m,
                           int (*fn)(const char *target, const ckpt_manifest_t *m, void *arg), void *arg);

/** Put manifest text of checkpoint `name` in the store of rp (atomically). */
int ckpt_store_manifest_put_to(struct jobstore *rp, const char *name, const char *text, size_t len);

/** Put the manifest text of m also in the store of each target its snapshots
 *  are on, as object "loci-ckpt/<name>" (replaced atomically). */
int ckpt_store_manifest_put(const ckpt_manifest_t *m, const char *text, size_t len);

/** Manifest of checkpoint `name` in the store of rp, checked (LOCI_ENOENT: none). */
int ckpt_store_manifest_get(struct jobstore *rp, const char *name, ckpt_manifest_t *m);

/** Remove checkpoint `name` from the stores of m's snapshots and from the
 *  drain target's if the one there is m (same checksum): another node's
 *  checkpoint of that name stays. */
int ckpt_store_manifest_remove(const ckpt_manifest_t *m);

/** Remove the manifest of checkpoint `name` from the store of rp (0 when none). */
int ckpt_store_manifest_remove_from(struct jobstore *rp, const char *name);

/** Call fn(name, arg) for each checkpoint whose manifest is in the store of rp. */
int ckpt_store_manifest_each(struct jobstore *rp, int (*fn)(const char *name, void *arg), void *arg);

/* ------------- checkpoints whole only at one node's level 1, in the store (ckpt_level1.c) -- */

#define CKPT_LEVEL1_OID 200 /* bytes of a record's object name, '\0' included */

/** The store's record that one node holds checkpoint m whole at level 1. */
typedef struct {
    char node[256];           /* the node's host name */
    char dir[4096];           /* its checkpoint directory there */
    char drain[64];           /* the drain target when it was saved, "" for none */
    ckpt_manifest_t m;
    struct jobstore *rp;    /* the store holding the record */
    char oid[CKPT_LEVEL1_OID]; /* and its object there */
} ckpt_level1_t;

/** Record in each store of m's snapshots that checkpoint m (its manifest
 *  text) is whole in directory d of this node only; `drain`: the drain
 *  target that will make it whole in the store, or NULL. */
int ckpt_level1_put(const ckpt_dir_t *d, const ckpt_manifest_t *m, const char *text, size_t len, const char *drain);

/** Remove this node's record of checkpoint m->name (directory d): from rp
 *  when it is m (the same checksum: m is whole there now), or, rp NULL, from
 *  each store of m's snapshots whatever it holds. */
int ckpt_level1_forget(const ckpt_dir_t *d, const ckpt_manifest_t *m, struct jobstore *rp);

/** Call fn(record, arg) for each record in the store of rp (of checkpoint
 *  `name`, or NULL: of every one); fn may take r->m (leaving it zeroed). A
 *  record that cannot be read stops it when `strict` (a GC's mark), else is
 *  warned about and left out. */
int ckpt_level1_each(struct jobstore *rp, const char *name, bool strict, int (*fn)(ckpt_level1_t *r, void *arg),
                     void *arg);

/** ckpt_level1_each, not strict, over every reachable store target. */
int ckpt_level1_all(const char *name, int (*fn)(ckpt_level1_t *r, void *arg), void *arg);

/** LOCI_ENOENT saying where checkpoint `name` is (the newest record of it in
 *  any store), or 0 when no store records it. */
int ckpt_level1_elsewhere(const char *name);

/** Remove every record of checkpoint `name` from every reachable store
 *  (the nodes that held it are lost); *removed: how many. */
int ckpt_level1_remove_all(const char *name, unsigned *removed);

/* ------------------------------ regions in the job store: finding, GC (ckpt_snap.c) -- */

/** Checkpoint `name` at level 2: in the drain target's store (or, with
 *  none configured, the first store target holding it): its manifest and
 *  that store. LOCI_ENOENT saying where it looked, or where the checkpoint
 *  is when a store records it whole at another node's level 1
 *  (ckpt_level1_elsewhere). */
int ckpt_store_find(const char *name, ckpt_manifest_t *m, struct jobstore **rp);

/** Call fn(manifest, arg) for each checkpoint whose manifest or level-1
 *  record is in the store of rp, for a GC's mark: one that cannot be read
 *  stops it (LOCI_EIO: what it refers to cannot be told). */
int ckpt_store_manifest_mark(struct jobstore *rp, int (*fn)(const ckpt_manifest_t *m, void *arg), void *arg);

/** References to store snapshots, for the GC. */
typedef struct {
    struct ckpt_snap_ref *v;
    size_t n, cap;
} ckpt_snap_refs_t;

/** Add the snapshots of m to refs. */
int ckpt_snap_refs_add(ckpt_snap_refs_t *refs, const ckpt_manifest_t *m);

/** refs: the snapshots this directory's checkpoints refer to. Add those of
 *  the checkpoints kept in their stores (any node's), then remove every
 *  snapshot of refs' regions that none refers to — except for regions open
 *  for writing anywhere (a save may be under way: skipped, said at level info). */
int ckpt_snap_sweep(ckpt_snap_refs_t *refs, loci_ckpt_gc_stats_t *out);
void ckpt_snap_refs_free(ckpt_snap_refs_t *refs);

/* ---------------- drained chunks in the job store: guard and GC (ckpt_store_gc.c) -- */

typedef struct ckpt_guard ckpt_guard_t;

/** Hold the guard of the drained chunks in the store of rp: shared by drains
 *  (from their first look at the store to their manifest's put; waits at
 *  most the target's timeout while a GC holds it), exclusive for the GC
 *  (LOCI_EBUSY at once while a drain runs anywhere). */
int ckpt_store_guard(struct jobstore *rp, bool exclusive, ckpt_guard_t **out);
void ckpt_store_unguard(ckpt_guard_t *g);

/** Remove the drained chunk objects of the drain target's store that no
 *  manifest names: neither one in the store (any node's, added to `ids`) nor
 *  one of `ids` (this directory's; maybe not drained yet). Nothing to do
 *  without a drain target; skipped (said at level info) while a drain runs. */
int ckpt_store_chunks_sweep(ckpt_ids_t *ids, loci_ckpt_gc_stats_t *out);

/* ------------------------------- level 2: drain to the job store (ckpt_drain.c) -- */

/** Queue checkpoint `name` for the background drain. */
int ckpt_drain_queue(const char *name);

/** Whether this process has `name` queued or draining. */
bool ckpt_drain_pending(const char *name);

/** Bytes drained so far of checkpoint `name` while this process drains it
 *  (0 when it is queued or not here). */
uint64_t ckpt_drain_done(const char *name);

/* --------------------------------------------- progress (ckpt_progress.c) -- */

/** Told how far a long operation of checkpoint `ckpt` is: `done` of `total`
 *  bytes, `what` says which ("drain", "verify"); called in the operating
 *  thread after each chunk (a chunk the store holds already counts as done). */
typedef void (*ckpt_progress_fn)(const char *ckpt, const char *what, uint64_t done, uint64_t total, void *arg);

/** Report the calling thread's drains and verifies to fn (NULL: stop). */
void ckpt_progress_set(ckpt_progress_fn fn, void *arg);

/** Tell the calling thread's hook, if any. */
void ckpt_progress(const char *ckpt, const char *what, uint64_t done, uint64_t total);

/** Bytes of m's stored chunks (not zero), with or without those kept by store snapshots. */
uint64_t ckpt_stored_bytes(const ckpt_manifest_t *m, bool snaps);

static inline bool ckpt_sum_equal(ckpt_sum_t a, ckpt_sum_t b) { return a.low64 == b.low64 && a.high64 == b.high64; }

/* ------------------------------------------------ the entry points' own -- */

/** What loci_ckpt_list says of checkpoint m, but its levels and drain (ckpt_gc.c). */
void ckpt_info_of(const ckpt_manifest_t *m, loci_ckpt_info_t *out);

/** Forget the last save's manifest and the registered checkpoint variables
 *  (loci_fini; ckpt_save.c). */
void ckpt_fini(void);

#endif
