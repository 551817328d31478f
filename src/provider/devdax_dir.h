/*
 * The region directory of a device-DAX device (devdax_dir.c): the named
 * persistent regions of a device that has no file system to name them, kept
 * in a small checksummed directory at the device's start. Only the format
 * and its crash-consistent update live here; the device's mapping, its space
 * map and the regions' locks are devdax.c's and devdax_region.c's.
 *
 * Layout (native byte order; docs/NVM.md "Regions on devdax"):
 *   offset 0      superblock: magic, version, entries per table, the
 *                 device's size and align when formatted, where the two
 *                 tables are; its XXH3-64 checksum
 *   offset 128    commit word (8 bytes, one store): generation << 32 | a
 *                 32-bit check of the generation
 *   offset 4096   table 0, then table 1: generation, count, checksum, and
 *                 the regions (name, offset, length, owner uid, generation
 *                 that created it)
 * The table of generation g is table g % 2. An update writes the whole new
 * table (generation g + 1) into the other copy and makes it durable, then
 * stores the commit word and makes it durable: a crash before that store
 * leaves generation g, untouched, as the directory.
 */
#ifndef LOCI_DEVDAX_DIR_H
#define LOCI_DEVDAX_DIR_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Longest region name (as nvm's names: a plain file name). */
#define DAXDIR_NAME_MAX 128
/** Regions per device. */
#define DAXDIR_ENTRIES 256

/** The device as mapped: the directory is read and written through it. */
typedef struct {
    char *base;        /* the mapping of the whole device */
    size_t size;       /* of the mapping: whole align units */
    size_t align;
    bool map_sync;     /* a cache write-back makes stores durable (MAP_SYNC, or a device node: no
                        * page cache); false: msync too (a file standing in for a device) */
    const char *name;  /* "pmem0", for messages */
    const char *path;  /* "/dev/dax0.0" */
} daxdir_dev_t;

typedef struct {
    char name[DAXDIR_NAME_MAX + 1];
    uint64_t offset;     /* from the device's start, whole align units */
    uint64_t length;     /* bytes, as created (whole pages); it takes whole align units */
    uint64_t generation; /* of the table that created it */
    uint32_t uid;        /* its owner */
} daxdir_entry_t;

/** The directory in DRAM: generation 0 when the device has none yet. */
typedef struct {
    uint64_t generation;
    size_t n;
    daxdir_entry_t entries[DAXDIR_ENTRIES];
} daxdir_t;

/** Bytes at the device's start the directory takes: whole align units, also
 *  on a device without one yet (never handed to allocations). */
size_t daxdir_area(size_t align);

/** The directory of dev into *out (out->generation 0: none, or a format cut
 *  short). Everything is checked before it is believed: superblock and table
 *  checksums, the commit word's check, every region inside the device, in
 *  align units, past the directory, apart from the others, with a valid name.
 *  LOCI_EIO when it fails, with a message saying so and how to wipe the
 *  directory; nothing is written then. */
int daxdir_read(const daxdir_dev_t *dev, daxdir_t *out);

/** The committed generation, read without checking the tables: 0 when there
 *  is none or its check fails (daxdir_read then says why). Cheap: for
 *  noticing another process's update. */
uint64_t daxdir_generation(const daxdir_dev_t *dev);

/** First half of an update: next (next->generation must be the committed
 *  generation + 1) written to the table copy not in use, durable; the
 *  superblock written first when next->generation is 1 (formatting). Until
 *  daxdir_commit the directory reads as before. */
int daxdir_stage(const daxdir_dev_t *dev, const daxdir_t *next);

/** Second half: the commit word set to next->generation, durable. */
int daxdir_commit(const daxdir_dev_t *dev, const daxdir_t *next);

/** daxdir_stage then daxdir_commit. */
int daxdir_write(const daxdir_dev_t *dev, const daxdir_t *next);

/** Index of the region `name` in d, or -1. */
int daxdir_find(const daxdir_t *d, const char *name);

/** Zero the superblock and commit word: the device has no directory any
 *  more, its regions are forgotten (`loci devdax wipe`). */
int daxdir_wipe(const daxdir_dev_t *dev);

#endif
