/*
 * The region directory at the start of a device-DAX device: its on-device
 * format, checks and crash-consistent update (devdax_dir.h says the layout
 * and the protocol). Written through the device's own mapping, made durable
 * by os/durable.c; nothing read from the device is believed before its
 * checksum verifies.
 */
#include "provider/devdax_dir.h"
#include "os/durable.h"
#include "units.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#define MAGIC "loci devdax dir"
#define VERSION 1
#define COMMIT_OFF 128
#define TABLE0_OFF 4096
#define COMMIT_SEED 0x6c6f6369646178ULL /* "locidax" */

typedef struct {
    char magic[16];
    uint32_t version, entries;
    uint64_t device_bytes, align;
    uint64_t table_off[2];
    uint64_t table_bytes;
    uint64_t sum; /* XXH3-64 of everything above */
} super_t;

typedef struct {
    char name[136]; /* DAXDIR_NAME_MAX + 1, padded */
    uint64_t offset, length, generation;
    uint32_t uid, reserved;
} disk_entry_t;

typedef struct {
    uint64_t generation;
    uint32_t count, reserved;
    uint64_t sum; /* XXH3-64 of the first count entries, seeded by that of generation and count */
    uint64_t reserved2;
    disk_entry_t entries[DAXDIR_ENTRIES];
} disk_table_t;

_Static_assert(sizeof(super_t) <= COMMIT_OFF, "the superblock ends before the commit word");
_Static_assert(sizeof(disk_entry_t) == 168, "entries have no hidden padding");

static size_t page_round(size_t n) { return (n + 4095) & ~(size_t)4095; }

static size_t table_bytes(void) { return page_round(sizeof(disk_table_t)); }

size_t daxdir_area(size_t align)
{
    size_t end = TABLE0_OFF + 2 * table_bytes();
    return (end + align - 1) / align * align;
}

static super_t *super_of(const daxdir_dev_t *dev) { return (super_t *)dev->base; }

static _Atomic uint64_t *commit_of(const daxdir_dev_t *dev) { return (_Atomic uint64_t *)(dev->base + COMMIT_OFF); }

static disk_table_t *table_of(const daxdir_dev_t *dev, uint64_t generation)
{
    return (disk_table_t *)(dev->base + TABLE0_OFF + (generation & 1) * table_bytes());
}

static uint64_t super_sum(const super_t *s) { return XXH3_64bits(s, offsetof(super_t, sum)); }

static uint32_t commit_check(uint64_t generation)
{
    return (uint32_t)XXH3_64bits_withSeed(&generation, sizeof generation, COMMIT_SEED);
}

/* The table's head (generation, count) seeds the sum of its entries. */
static uint64_t table_sum(const disk_table_t *t, uint32_t count)
{
    uint64_t head = XXH3_64bits(t, offsetof(disk_table_t, reserved));
    return XXH3_64bits_withSeed(t->entries, count * sizeof *t->entries, head);
}

/* The refusal every failed check ends in: what failed, and the way out. */
static int corrupt(const daxdir_dev_t *dev, const char *what)
{
    return loci__fail(LOCI_EIO, "%s: the region directory at the start of %s %s: loci neither trusts nor overwrites "
                                "it. If nothing on the device is needed any more, wipe it with `loci devdax wipe "
                                "%s --yes` (every region on it is lost)",
                      dev->name, dev->path, what, dev->path);
}

uint64_t daxdir_generation(const daxdir_dev_t *dev)
{
    uint64_t word = atomic_load_explicit(commit_of(dev), memory_order_acquire);
    uint64_t generation = word >> 32;
    return generation && (uint32_t)word == commit_check(generation) ? generation : 0;
}

static bool valid_name(const char *s)
{
    size_t n = strnlen(s, DAXDIR_NAME_MAX + 1);
    if (n == 0 || n > DAXDIR_NAME_MAX || s[0] == '.' || s[0] == '-' || strstr(s, ".."))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '.' || s[i] == '_' || s[i] == '-'))
            return false;
    return true;
}

/* Each region where a region can be: inside the device, past the
 * directory, in align units, apart from every other. */
static int check_entries(const daxdir_dev_t *dev, const daxdir_t *d)
{
    char what[DAXDIR_NAME_MAX + 96];
    uint64_t first = daxdir_area(dev->align);
    for (size_t i = 0; i < d->n; i++) {
        const daxdir_entry_t *e = &d->entries[i];
        uint64_t taken = (e->length + dev->align - 1) / dev->align * dev->align;
        const char *bad = !valid_name(e->name) ? "has an invalid name"
                          : e->offset % dev->align || e->offset < first ? "starts where no region can"
                          : !e->length || e->length > dev->size || e->offset > dev->size - taken ? "lies past the device's end"
                          : e->generation > d->generation ? "is newer than its directory"
                                                           : NULL;
        for (size_t j = 0; !bad && j < i; j++) {
            const daxdir_entry_t *o = &d->entries[j];
            uint64_t otaken = (o->length + dev->align - 1) / dev->align * dev->align;
            if (e->offset < o->offset + otaken && o->offset < e->offset + taken)
                bad = "overlaps another region";
            else if (strcmp(e->name, o->name) == 0)
                bad = "is named twice";
        }
        if (bad) {
            snprintf(what, sizeof what, "is damaged (region %zu %s)", i, bad);
            return corrupt(dev, what);
        }
    }
    return 0;
}

int daxdir_read(const daxdir_dev_t *dev, daxdir_t *out)
{
    const super_t *s = super_of(dev);
    out->generation = 0;
    out->n = 0;
    if (memcmp(s->magic, MAGIC, sizeof MAGIC) != 0)
        return 0; /* never formatted (or wiped) */
    if (s->sum != super_sum(s))
        return corrupt(dev, "fails its checksum (superblock)");
    if (s->version != VERSION) {
        char what[64];
        snprintf(what, sizeof what, "is of format version %u, this loci reads %u", s->version, VERSION);
        return corrupt(dev, what);
    }
    if (s->entries != DAXDIR_ENTRIES || s->table_bytes != table_bytes() || s->table_off[0] != TABLE0_OFF ||
        s->table_off[1] != TABLE0_OFF + table_bytes())
        return corrupt(dev, "has a layout this loci does not know");
    if (s->align != dev->align) {
        char was[32], now[32], what[128];
        snprintf(what, sizeof what, "was made for align %s, the device's align is now %s",
                 units_format_size(s->align, was, sizeof was), units_format_size(dev->align, now, sizeof now));
        return corrupt(dev, what);
    }
    uint64_t word = atomic_load_explicit(commit_of(dev), memory_order_acquire);
    if (word == 0)
        return 0; /* formatting cut short before its first commit: nothing committed */
    uint64_t generation = daxdir_generation(dev);
    if (!generation)
        return corrupt(dev, "fails its checksum (commit word)");
    const disk_table_t *t = table_of(dev, generation);
    if (t->generation != generation || t->count > DAXDIR_ENTRIES || t->sum != table_sum(t, t->count))
        return corrupt(dev, "fails its checksum (region table)");
    out->generation = generation;
    out->n = t->count;
    for (size_t i = 0; i < out->n; i++) {
        const disk_entry_t *e = &t->entries[i];
        daxdir_entry_t *o = &out->entries[i];
        memcpy(o->name, e->name, DAXDIR_NAME_MAX);
        o->name[DAXDIR_NAME_MAX] = '\0';
        o->offset = e->offset;
        o->length = e->length;
        o->generation = e->generation;
        o->uid = e->uid;
    }
    int rc = check_entries(dev, out);
    if (rc != 0)
        out->generation = out->n = 0;
    return rc;
}

static int durable(const daxdir_dev_t *dev, const void *addr, size_t size)
{
    if (durable_range(addr, size, dev->map_sync) != 0)
        return loci__fail(LOCI_EIO, "%s: cannot make the region directory of %s durable: %s", dev->name, dev->path,
                          strerror(errno));
    return 0;
}

static int format(const daxdir_dev_t *dev)
{
    super_t *s = super_of(dev);
    memset(dev->base, 0, TABLE0_OFF); /* the commit word too: nothing committed yet */
    int rc = durable(dev, dev->base, TABLE0_OFF);
    if (rc != 0)
        return rc;
    super_t fresh = {.version = VERSION, .entries = DAXDIR_ENTRIES, .device_bytes = dev->size, .align = dev->align,
                     .table_off = {TABLE0_OFF, TABLE0_OFF + table_bytes()}, .table_bytes = table_bytes()};
    memcpy(fresh.magic, MAGIC, sizeof MAGIC);
    fresh.sum = super_sum(&fresh);
    *s = fresh;
    return durable(dev, s, sizeof *s);
}

int daxdir_stage(const daxdir_dev_t *dev, const daxdir_t *next)
{
    if (next->n > DAXDIR_ENTRIES || next->generation > UINT32_MAX)
        return loci__fail(LOCI_ENOSPC, "%s: the region directory of %s is full", dev->name, dev->path);
    if (next->generation == 1) {
        int rc = format(dev);
        if (rc != 0)
            return rc;
    }
    disk_table_t *t = table_of(dev, next->generation);
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < next->n; i++) {
        const daxdir_entry_t *e = &next->entries[i];
        snprintf(t->entries[i].name, sizeof t->entries[i].name, "%s", e->name);
        t->entries[i].offset = e->offset;
        t->entries[i].length = e->length;
        t->entries[i].generation = e->generation;
        t->entries[i].uid = e->uid;
    }
    t->generation = next->generation;
    t->count = (uint32_t)next->n;
    t->sum = table_sum(t, t->count);
    return durable(dev, t, sizeof *t);
}

int daxdir_commit(const daxdir_dev_t *dev, const daxdir_t *next)
{
    uint64_t word = next->generation << 32 | commit_check(next->generation);
    atomic_store_explicit(commit_of(dev), word, memory_order_release); /* one aligned 8-byte store: all or nothing */
    return durable(dev, commit_of(dev), sizeof word);
}

int daxdir_write(const daxdir_dev_t *dev, const daxdir_t *next)
{
    int rc = daxdir_stage(dev, next);
    return rc ? rc : daxdir_commit(dev, next);
}

int daxdir_find(const daxdir_t *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->entries[i].name, name) == 0)
            return (int)i;
    return -1;
}

int daxdir_wipe(const daxdir_dev_t *dev)
{
    memset(dev->base, 0, TABLE0_OFF);
    return durable(dev, dev->base, TABLE0_OFF);
}
