/* Device-DAX without the hardware: discovery from a sysfs tree built here
 * (an NVDIMM instance is pmem, a soft-reserved one cxl, a kmem one none),
 * config paths that are no device refused, and the devdax provider carving
 * align units from one mapping of a file standing in for the device. The
 * VM suite devdax (tests/vm) runs the same on an emulated NVDIMM. A fork
 * child carves nothing from its parent's mapping. Persistent regions on
 * such a stand-in: bytes written by one process read bit-exact by another,
 * plain allocations kept off their space, an update cut short read as the
 * directory before it, a damaged directory refused and left as it is, a
 * region larger than the free space or another uid's refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "provider/devdax_dir.h"
#include "provider/provider.h"
#include "topo/topo_internal.h"
#include "support/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB (1u << 20)

static char root[512];

static void put(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void link_to(const char *target, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    assert_int_equal(symlink(target, path), 0);
}

static void dirs(const char *rels)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p %s", root, rels);
    assert_int_equal(system(cmd), 0);
}

/* One instance: its device directory `devdir` under sys/devices, bound to
 * `driver`, with size, align and node. */
static void instance(const char *name, const char *devdir, const char *driver, const char *size)
{
    char rel[512], target[1200];
    snprintf(rel, sizeof rel, "sys/devices/%s", devdir);
    dirs(rel);
    snprintf(rel, sizeof rel, "sys/devices/%s/size", devdir);
    put(rel, size);
    snprintf(rel, sizeof rel, "sys/devices/%s/align", devdir);
    put(rel, "2097152\n");
    snprintf(rel, sizeof rel, "sys/devices/%s/target_node", devdir);
    put(rel, "1\n");
    snprintf(rel, sizeof rel, "sys/devices/%s/driver", devdir);
    snprintf(target, sizeof target, "%s/sys/bus/dax/drivers/%s", root, driver);
    link_to(target, rel);
    snprintf(rel, sizeof rel, "sys/bus/dax/devices/%s", name);
    snprintf(target, sizeof target, "%s/sys/devices/%s", root, devdir);
    link_to(target, rel);
    snprintf(rel, sizeof rel, "dev/%s", name);
    link_to("/dev/null", rel); /* a character device anyone may open */
}

static topo_t *empty_topology(void)
{
    topo_t *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->targets = calloc(TOPO_MAX_EXTRA_TARGETS, sizeof *t->targets);
    t->node_span = 1;
    return t;
}

static void free_topology(topo_t *t)
{
    for (int i = 0; i < t->ntargets; i++) {
        free(t->targets[i].path);
        free(t->targets[i].unreachable);
        free(t->targets[i].bandwidth);
        free(t->targets[i].latency);
    }
    free(t->targets);
    free(t);
}

/* An empty sysfs tree `name` in the scratch directory, with the dax bus and its drivers. */
static void sysfs_tree(const char *name)
{
    snprintf(root, sizeof root, "%s/%s", scratch_dir, name);
    assert_int_equal(mkdir(root, 0700), 0);
    dirs("sys/bus/dax/devices sys/bus/dax/drivers/device_dax sys/bus/dax/drivers/kmem dev");
}

/* The devdax source over the tree at `root`. */
static int discover_devdax(topo_t *t)
{
    char sys[600], dev[600];
    snprintf(sys, sizeof sys, "%s/sys", root);
    snprintf(dev, sizeof dev, "%s/dev", root);
    return topo_source_devdax(t, sys, dev);
}

static void test_discovery(void **state)
{
    (void)state;
    sysfs_tree("sysfs");
    instance("dax0.0", "LNXSYSTM:00/ndbus0/region0/dax0.0/dax0.0", "device_dax", "1073741824\n");
    instance("dax1.0", "platform/hmem.0/dax1.0", "device_dax", "3146752\n"); /* 3 MiB + 4 KiB */
    instance("dax2.0", "LNXSYSTM:00/ndbus0/region1/dax2.0/dax2.0", "kmem", "1073741824\n");
    topo_t *t = empty_topology();
    assert_int_equal(discover_devdax(t), 0);
    assert_int_equal(t->ntargets, 2);
    const struct loci_target *pmem = strcmp(t->targets[0].name, "pmem0") == 0 ? &t->targets[0] : &t->targets[1];
    const struct loci_target *cxl = pmem == &t->targets[0] ? &t->targets[1] : &t->targets[0];
    assert_string_equal(pmem->name, "pmem0");
    assert_int_equal(pmem->kind, KIND_PMEM);
    assert_true(pmem->flags & LOCI_TARGET_PERSISTENT);
    assert_int_equal(pmem->capacity.value, 1u << 30);
    assert_int_equal(pmem->dax_align, 2 * MB);
    assert_int_equal(pmem->dax_node, 1);
    assert_non_null(strstr(pmem->path, "/dev/dax0.0"));
    assert_null(pmem->unreachable);
    assert_string_equal(cxl->name, "cxl0");
    assert_int_equal(cxl->kind, KIND_CXL);
    assert_false(cxl->flags & LOCI_TARGET_PERSISTENT);
    assert_int_equal(cxl->capacity.value, 2 * MB); /* whole align units only */

    /* the config may name a discovered device, and refuses files and links out of /dev */
    char where[] = "test.conf:1", file[700], link[700], sys[600];
    snprintf(sys, sizeof sys, "%s/sys", root);
    snprintf(file, sizeof file, "%s/plain", root);
    put("plain", "not a device\n");
    assert_int_equal(topo_config_devdax(t, where, "pmem9", KIND_PMEM, file, sys, SRC_CONFIG), LOCI_ECONFIG);
    assert_non_null(strstr(loci_last_error(), "is a regular file, not a device-DAX node"));
    snprintf(link, sizeof link, "%s/link", root);
    link_to(file, "link");
    assert_int_equal(topo_config_devdax(t, where, "pmem9", KIND_PMEM, link, sys, SRC_CONFIG), LOCI_ECONFIG);
    assert_non_null(strstr(loci_last_error(), "is a symbolic link to"));
    assert_non_null(strstr(loci_last_error(), "outside /dev"));
    assert_int_equal(topo_config_devdax(t, where, "pmem9", KIND_PMEM, "/dev/null", "/sys", SRC_CONFIG), LOCI_ECONFIG);
    assert_non_null(strstr(loci_last_error(), "no device-DAX instance"));
    assert_int_equal(topo_devdax_check_capacity(pmem, 3 * MB, where), LOCI_ECONFIG);
    assert_non_null(strstr(loci_last_error(), "not a multiple of"));
    assert_int_equal(topo_devdax_check_capacity(pmem, 2048u * MB, where), LOCI_ECONFIG);
    assert_non_null(strstr(loci_last_error(), "is larger than"));
    assert_int_equal(topo_devdax_check_capacity(pmem, 512 * MB, where), 0);
    free_topology(t);
}

/* Names that stay put (issue 37.5): an NVDIMM onlined as system RAM is a
 * NUMA node of kind pmem, volatile; it must never take a name persistent
 * memory has in another process. The node is kmem0, and each persistent
 * device is named after itself — /dev/dax1.0 pmem1, /dev/dax1.1 pmem1-1 —
 * whichever other device was onlined (here dax0.0, bound to kmem) or came
 * first. */
static void test_names_stay_put(void **state)
{
    (void)state;
    sysfs_tree("sysfs-names");
    instance("dax0.0", "LNXSYSTM:00/ndbus0/region0/dax0.0/dax0.0", "kmem", "1073741824\n");
    instance("dax1.1", "LNXSYSTM:00/ndbus0/region1/dax1.1/dax1.1", "device_dax", "4194304\n");
    instance("dax1.0", "LNXSYSTM:00/ndbus0/region1/dax1.0/dax1.0", "device_dax", "4194304\n");
    topo_t *t = empty_topology();
    t->node_span = 2;
    struct loci_target *node = &t->targets[t->ntargets++]; /* dax0.0's memory, as sysfs_source.c classifies it */
    node->numa_node = 1;
    node->kind = KIND_PMEM;
    topo_name(t);
    assert_string_equal(node->name, "kmem0");
    assert_int_equal(discover_devdax(t), 0);
    assert_int_equal(t->ntargets, 3);
    for (int i = 1; i < 3; i++) {
        const struct loci_target *tg = &t->targets[i];
        assert_true(tg->flags & LOCI_TARGET_PERSISTENT);
        assert_string_equal(tg->name, strstr(tg->path, "/dax1.0") ? "pmem1" : "pmem1-1");
    }
    free_topology(t);
}

/* A pmem target over `path` (a file standing in for the device), align
 * 2 MiB, and a placement on it, as discovery and the allocators make them. */
static void fake_devdax(struct loci_target *tg, place_t *place, const char *name, const char *path, uint64_t capacity)
{
    memset(tg, 0, sizeof *tg);
    snprintf(tg->name, sizeof tg->name, "%s", name);
    tg->kind = KIND_PMEM;
    tg->flags = LOCI_TARGET_PERSISTENT;
    tg->numa_node = -1;
    tg->path = (char *)path;
    tg->dax_align = 2 * MB;
    tg->capacity.value = capacity;
    memset(place, 0, sizeof *place);
    place->target = tg;
}

/* A file of `bytes` in the scratch directory standing in for the device,
 * and a placement on a pmem target `name` over it. Each test has its own:
 * the provider knows a device by its target and keeps it mapped until the
 * process exits. */
static const place_t *stand_in(const char *name, uint64_t bytes)
{
    static struct {
        struct loci_target tg;
        place_t place;
        char path[600];
    } devs[8];
    static int n;
    assert_true(n < 8);
    snprintf(devs[n].path, sizeof devs[n].path, "%s/dax-%s", scratch_dir, name);
    int fd = open(devs[n].path, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)bytes), 0);
    close(fd);
    fake_devdax(&devs[n].tg, &devs[n].place, name, devs[n].path, bytes);
    return &devs[n++].place;
}

/* A file stands in for the device: the carving is the same. */
static void test_provider_carves(void **state)
{
    (void)state;
    const place_t *pl = stand_in("pmem0", 8 * MB);
    assert_ptr_equal(provider_for(pl->target, false), &provider_devdax);
    assert_null(provider_for(pl->target, true));

    uint64_t avail;
    assert_int_equal(provider_devdax.available(pl, &avail), 0);
    assert_int_equal(avail, 6 * MB); /* the first align unit is the region directory's, always */
    char *a = provider_devdax.alloc(pl, 4096, 4096);
    assert_non_null(a);
    assert_int_equal((uintptr_t)a % (2 * MB), 0);
    memset(a, 0xab, 2 * MB);
    char *b = provider_devdax.alloc(pl, 2 * MB, 4096);
    char *c = provider_devdax.alloc(pl, 2 * MB, 4096);
    assert_non_null(b);
    assert_non_null(c);
    assert_true(b - a == 2 * MB && c - b == 2 * MB); /* first fit */
    assert_int_equal(provider_devdax.available(pl, &avail), 0);
    assert_int_equal(avail, 0);
    assert_null(provider_devdax.alloc(pl, 2 * MB, 4096));
    assert_non_null(strstr(loci_last_error(), "no free 2.0 MiB"));
    assert_null(provider_devdax.alloc(pl, 16 * MB, 4096));
    assert_non_null(strstr(loci_last_error(), "holds only 8.0 MiB"));

    assert_int_equal(provider_devdax.free(a, 4096), 0);
    char *again = provider_devdax.alloc(pl, 2 * MB, 4096);
    assert_ptr_equal(again, a);
    for (size_t i = 0; i < 2 * MB; i += 4096)
        assert_int_equal(again[i], 0); /* zeroed: the device keeps old contents */
    assert_int_equal(provider_devdax.free(again, 2 * MB), 0);
    assert_int_equal(provider_devdax.free(b, 2 * MB), 0);
    assert_int_equal(provider_devdax.free(c, 2 * MB), 0);
    assert_int_equal(provider_devdax.available(pl, &avail), 0);
    assert_int_equal(avail, 6 * MB);
    char *whole = provider_devdax.alloc(pl, 6 * MB, 4096); /* the spans merged again */
    assert_non_null(whole);
    assert_int_equal(provider_devdax.free(whole, 6 * MB), 0);

    /* a fork child shares the mapping: it carves nothing, lest both hand out the same memory */
    pid_t pid = fork(); /* loci's fork handlers (core/fork.c) run the providers' */
    assert_true(pid >= 0);
    if (pid == 0) {
        void *p = provider_devdax.alloc(pl, 2 * MB, 4096);
        _exit(p == NULL && strstr(loci_last_error(), "the parent's to carve") ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    whole = provider_devdax.alloc(pl, 6 * MB, 4096); /* the parent still carves */
    assert_non_null(whole);
    assert_int_equal(provider_devdax.free(whole, 6 * MB), 0);
    assert_int_equal(provider_devdax.free(&avail, 4096), LOCI_EINVAL);
}

/* No permission: a clear message naming the device and its mode. */
static void test_provider_no_permission(void **state)
{
    (void)state;
    if (geteuid() == 0) { /* root opens anything; the VM suite drops privileges instead */
        printf("skipped: as root every device opens (vm.devdax.no_permission runs this as nobody)\n");
        skip();
    }
    char path[600];
    snprintf(root, sizeof root, "%s", scratch_dir);
    snprintf(path, sizeof path, "%s/dax-locked", root);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0);
    assert_true(fd >= 0);
    close(fd);
    struct loci_target tg;
    place_t place;
    fake_devdax(&tg, &place, "pmem1", path, 2 * MB);
    assert_null(provider_devdax.alloc(&place, 4096, 4096));
    assert_non_null(strstr(loci_last_error(), "cannot open"));
    assert_non_null(strstr(loci_last_error(), "loci never changes them"));
}

/* ---- persistent regions on the device (devdax_region.c, devdax_dir.c) ---- */

static const provider_file_ops_t *regions(void) { return provider_devdax_region.file; }

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131 + seed + (i >> 12));
}

static size_t wrong(const unsigned char *p, size_t n, unsigned seed)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += p[i] != (unsigned char)(i * 131 + seed + (i >> 12));
    return bad;
}

/* Run fn in a child process (a new one as far as the device is concerned
 * when this process has not mapped it yet) and assert it exits 0. */
static void in_child(int (*fn)(const place_t *), const place_t *place)
{
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn(place));
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

#define REGION_BYTES (3 * MB + 4096) /* takes two align units */

static int write_matrix(const place_t *place)
{
    size_t size = REGION_BYTES;
    unsigned char *p = regions()->open(place, "matrix", &size, LOCI_CREATE);
    if (!p || size != REGION_BYTES) {
        fprintf(stderr, "create: %s\n", loci_last_error());
        return 1;
    }
    fill(p, size, 7);
    return regions()->flush(p, size) || provider_devdax_region.free(p, size) ? 2 : 0;
}

/* Written by one process, read bit-exact by another at the same offset;
 * plain allocations never get the region's space; removal frees it. */
static void test_region_survives_process(void **state)
{
    (void)state;
    const place_t *pl = stand_in("pmem2", 16 * MB);
    in_child(write_matrix, pl);

    size_t size = 0;
    unsigned char *p = regions()->open(pl, "matrix", &size, 0);
    assert_non_null(p);
    assert_int_equal(size, REGION_BYTES);
    assert_int_equal(wrong(p, size, 7), 0);
    assert_int_equal((uintptr_t)p % (2 * MB), 0);
    size_t again = 0;
    assert_null(regions()->open(pl, "matrix", &again, 0));
    assert_non_null(strstr(loci_last_error(), "open in this process already"));
    size_t other = 4 * MB;
    assert_null(regions()->open(pl, "matrix", &other, 0));
    assert_non_null(strstr(loci_last_error(), "not the 4.0 MiB asked"));

    uint64_t avail;
    assert_int_equal(provider_devdax.available(pl, &avail), 0);
    assert_int_equal(avail, 10 * MB); /* 16 MiB less the directory's unit and the region's two */
    char *blocks[8];
    int n = 0;
    while (n < 8 && (blocks[n] = provider_devdax.alloc(pl, 2 * MB, 4096)))
        n++;
    assert_int_equal(n, 5);
    for (int i = 0; i < n; i++) {
        assert_true(blocks[i] + 2 * MB <= (char *)p || blocks[i] >= (char *)p + 4 * MB);
        memset(blocks[i], 0x5a, 2 * MB);
    }
    assert_int_equal(wrong(p, size, 7), 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(provider_devdax.free(blocks[i], 2 * MB), 0);

    assert_int_equal(regions()->remove(pl, "matrix"), LOCI_EBUSY); /* still open here */
    assert_int_equal(provider_devdax_region.free(p, size), 0);
    assert_int_equal(regions()->remove(pl, "matrix"), 0);
    assert_int_equal(provider_devdax.available(pl, &avail), 0);
    assert_int_equal(avail, 14 * MB);
    size = 0;
    assert_null(regions()->open(pl, "matrix", &size, 0));
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(loci_last_error(), "does not exist on pmem2"));
}

/* The directory as the test sees it, through a mapping of its own. */
static daxdir_dev_t map_directory(const char *path, const char *name, size_t bytes)
{
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    char *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    assert_true(base != MAP_FAILED);
    return (daxdir_dev_t){.base = base, .size = bytes, .align = 2 * MB, .name = name, .path = path};
}

static int write_kept(const place_t *place)
{
    size_t size = 2 * MB;
    unsigned char *p = regions()->open(place, "kept", &size, LOCI_CREATE);
    if (!p)
        return 1;
    fill(p, size, 3);
    return regions()->flush(p, size) || provider_devdax_region.free(p, size) ? 2 : 0;
}

static int kept_only(const place_t *place)
{
    size_t size = 0;
    unsigned char *p = regions()->open(place, "kept", &size, LOCI_READONLY);
    if (!p || wrong(p, size, 3) != 0)
        return 1;
    size = 0;
    return regions()->open(place, "torn", &size, 0) == NULL && errno == ENOENT ? 0 : 2;
}

/* An update cut short before its commit, torn or whole, reads as the
 * directory before it: in this process and in a new one. */
static void test_torn_update_reads_old(void **state)
{
    (void)state;
    const place_t *pl = stand_in("pmem3", 16 * MB);
    in_child(write_kept, pl); /* this process never maps it: its children are new processes to it */

    daxdir_dev_t dev = map_directory(pl->target->path, "pmem3", 16 * MB);
    daxdir_t *dir = malloc(sizeof *dir), *next = malloc(sizeof *next);
    assert_int_equal(daxdir_read(&dev, dir), 0);
    assert_int_equal(dir->n, 1);
    *next = *dir;
    next->generation++;
    next->entries[next->n++] = (daxdir_entry_t){.name = "torn", .offset = 4 * MB, .length = 2 * MB,
                                                .generation = next->generation, .uid = (uint32_t)geteuid()};
    assert_int_equal(daxdir_stage(&dev, next), 0); /* the crash comes before the commit */
    assert_int_equal(daxdir_read(&dev, dir), 0);
    assert_int_equal(dir->generation, next->generation - 1);
    assert_int_equal(daxdir_find(dir, "torn"), -1);
    in_child(kept_only, pl);

    /* torn: half the staged table written over */
    assert_int_equal(daxdir_stage(&dev, next), 0);
    memset(dev.base + 4096 + (next->generation & 1) * 45056 + 64, 0xee, 100);
    assert_int_equal(daxdir_read(&dev, dir), 0);
    assert_int_equal(daxdir_find(dir, "torn"), -1);
    in_child(kept_only, pl);

    /* the same update, staged whole and committed, is the new directory */
    assert_int_equal(daxdir_write(&dev, next), 0);
    assert_int_equal(daxdir_read(&dev, dir), 0);
    assert_true(daxdir_find(dir, "torn") >= 0);
    free(dir);
    free(next);
    munmap(dev.base, dev.size);
}

static int refused_as_corrupt(const place_t *place)
{
    size_t size = 2 * MB;
    if (regions()->open(place, "r", &size, 0) || errno != EIO || !strstr(loci_last_error(), "loci devdax wipe"))
        return 1;
    printf("refused: %s\n", loci_last_error());
    size = 2 * MB;
    if (regions()->open(place, "new", &size, LOCI_CREATE) || !strstr(loci_last_error(), "neither trusts nor overwrites"))
        return 2;
    return provider_devdax.alloc(place, 2 * MB, 4096) == NULL && strstr(loci_last_error(), "fails its checksum") ? 0 : 3;
}

static int creates(const place_t *place)
{
    size_t size = 2 * MB;
    return regions()->open(place, "after-wipe", &size, LOCI_CREATE) ? 0 : 1;
}

/* A directory failing its checksum is refused, never rewritten; a wiped
 * device is formatted again by the next region made on it. */
static void test_corrupt_directory_refused(void **state)
{
    (void)state;
    const place_t *pl = stand_in("pmem4", 16 * MB);
    in_child(creates, pl); /* a directory, made by another process */
    daxdir_dev_t dev = map_directory(pl->target->path, "pmem4", 16 * MB);
    size_t area = daxdir_area(2 * MB);
    char *before = malloc(area);
    dev.base[24] ^= 1; /* a bit of the superblock */
    memcpy(before, dev.base, area);
    in_child(refused_as_corrupt, pl);
    assert_memory_equal(before, dev.base, area);
    dev.base[24] ^= 1;
    dev.base[128 + 1] ^= 1; /* the commit word's check */
    memcpy(before, dev.base, area);
    in_child(refused_as_corrupt, pl);
    assert_memory_equal(before, dev.base, area);
    assert_int_equal(daxdir_wipe(&dev), 0);
    daxdir_t *dir = malloc(sizeof *dir);
    assert_int_equal(daxdir_read(&dev, dir), 0);
    assert_int_equal(dir->generation, 0); /* no directory: the next region formats it */
    in_child(creates, pl);
    assert_int_equal(daxdir_read(&dev, dir), 0);
    assert_int_equal(dir->n, 1);
    free(dir);
    free(before);
    munmap(dev.base, dev.size);
}

/* More than the free space: refused, saying what is free. Another uid's
 * region: refused. */
static void test_region_refusals(void **state)
{
    (void)state;
    const place_t *pl = stand_in("pmem5", 16 * MB);
    size_t size = 15 * MB;
    assert_null(regions()->open(pl, "big", &size, LOCI_CREATE));
    assert_int_equal(errno, ENOSPC);
    assert_non_null(strstr(loci_last_error(), "has 14.0 MiB free"));
    size = 8 * MB;
    void *a = regions()->open(pl, "a", &size, LOCI_CREATE);
    assert_non_null(a);
    assert_null(regions()->open(pl, "b", &size, LOCI_CREATE));
    assert_non_null(strstr(loci_last_error(), "has 6.0 MiB free"));
    assert_int_equal(provider_devdax_region.free(a, size), 0);

    daxdir_dev_t dev = map_directory(pl->target->path, "pmem5", 16 * MB);
    daxdir_t *dir = malloc(sizeof *dir);
    assert_int_equal(daxdir_read(&dev, dir), 0);
    dir->generation++;
    dir->entries[dir->n++] = (daxdir_entry_t){.name = "theirs", .offset = 2 * MB, .length = 2 * MB,
                                              .generation = dir->generation, .uid = (uint32_t)geteuid() + 1};
    assert_int_equal(daxdir_write(&dev, dir), 0);
    size = 0;
    assert_null(regions()->open(pl, "theirs", &size, 0));
    assert_int_equal(errno, EPERM);
    assert_non_null(strstr(loci_last_error(), "belongs to uid"));
    assert_int_equal(regions()->remove(pl, "theirs"), LOCI_EPERM);
    free(dir);
    munmap(dev.base, dev.size);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_discovery),
        cmocka_unit_test(test_names_stay_put),
        cmocka_unit_test(test_provider_carves),
        cmocka_unit_test(test_provider_no_permission),
        cmocka_unit_test(test_region_survives_process),
        cmocka_unit_test(test_torn_update_reads_old),
        cmocka_unit_test(test_corrupt_directory_refused),
        cmocka_unit_test(test_region_refusals),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
