/*
 * What the two device-DAX tables share (devdax.c: the devices and their
 * space map, plain allocations; devdax_region.c: persistent regions). One
 * space map per device and process: the region directory's area, the
 * regions of the directory (persistent, devdax_dir.c) and this process's
 * plain allocations (volatile: a new process finds their space free).
 */
#ifndef LOCI_DEVDAX_IMPL_H
#define LOCI_DEVDAX_IMPL_H

#include "provider/devdax_dir.h"
#include "provider/provider.h"

#include <pthread.h>

/* A free range of a device, as offsets into its mapping. */
typedef struct {
    size_t off, len;
} span_t;

/* A region open in this process: its place on the device. */
typedef struct {
    uint64_t offset, taken; /* taken: whole align units */
    unsigned flags;
} devdax_open_t;

typedef struct {
    const struct loci_target *target;
    int fd;
    daxdir_dev_t dev;  /* its mapping: base, size, align, MAP_SYNC */
    span_t *free;      /* sorted by offset, never adjacent */
    size_t nfree, cap;
    bool parents;      /* mapped before this process was forked: the parent carves it */
    daxdir_t *dir;     /* the directory as this process last read it (the regions' space is taken) */
    int dir_error;     /* 0, or why the directory is not to be trusted (LOCI_EIO): nothing is carved */
    devdax_open_t *opens; /* regions open in this process */
    size_t nopens, capopens;
} devdax_device_t;

/* The devices and their space maps, under devdax_lock. */
extern pthread_mutex_t devdax_lock;

/** The device of tg, opened and mapped now if it was not (its directory
 *  read then). Under devdax_lock. 0 or LOCI_E* with a message. */
int devdax_device_of(const struct loci_target *tg, devdax_device_t **out);

/** The device whose mapping holds addr, or NULL. Under devdax_lock. */
devdax_device_t *devdax_device_at(const void *addr);

/** Whole align units of len bytes. */
size_t devdax_taken(const devdax_device_t *d, size_t len);

/** Take `len` bytes (whole align units) at an address aligned to `align`
 *  (at least the device's) from the free spans: first fit from the device's
 *  start (`from_top` false: plain allocations) or last fit from its end
 *  (regions, which so stay apart from the plain allocations of other
 *  processes). False when nothing fits, or out of memory. */
bool devdax_carve(devdax_device_t *d, size_t len, size_t align, bool from_top, size_t *off);

/** Give [off, off+len) back to the free spans. False: out of memory. */
bool devdax_give_back(devdax_device_t *d, size_t off, size_t len);

/** Free bytes of the device, in pieces or not. */
size_t devdax_free_bytes(const devdax_device_t *d);

/** The refusal of a fork child on a device its parent mapped. */
int devdax_parents_refusal(const devdax_device_t *d);

/** Lock byte `byte` of the device (fcntl OFD lock: per process, dropped
 *  when it exits): F_RDLCK, F_WRLCK or F_UNLCK; `wait`: block until it is
 *  granted. 0, LOCI_EBUSY when held elsewhere and not waiting, else LOCI_EIO. */
int devdax_lock_byte(const devdax_device_t *d, uint64_t byte, short type, bool wait);

/** The byte of the device's directory lock (writers of the directory
 *  exclusive, readers shared); regions lock the byte of their offset. */
#define DEVDAX_DIR_LOCK_BYTE 0

/** Read the directory (under its lock, held by the caller) and bring the
 *  space map in line with it: regions another process made are taken,
 *  those it removed given back. 0 or LOCI_EIO (d->dir_error set). */
int devdax_sync_directory(devdax_device_t *d);

#endif
