/*
 * Device-DAX targets under the real kernel (issue 28.1), on the emulated NVDIMM of topology
 * devdax made into /dev/dax0.0 by devdax-setup.sh.
 *
 *   vm_devdax info DEV        a pmem target has path DEV, its capacity is the device's size in
 *                             whole align units (sysfs), it is persistent
 *   vm_devdax place DEV       allocations of 8 B, 4 KiB, 1 MiB and 64 MiB by "kind=pmem" and
 *                             "target=<its name>" lie in this process's mapping of DEV
 *                             (/proc/self/maps) and read back what was written
 *   vm_devdax too_large DEV   a request larger than the device fails with a message naming it
 *   vm_devdax noperm DEV      as user nobody: the target is listed, unreachable, with the
 *                             reason; "kind=pmem!" and "target=<its name>!" are refused with
 *                             it and errno EPERM (loci_allocator_create, loci_region_open, as
 *                             loci.h documents); plain memory still works
 *   vm_devdax config KIND     LOCI_CONFIG naming a regular file (file), a symbolic link out of
 *                             /dev (link), a capacity that is no multiple of align (align) or a
 *                             kind no device is (kind): loci_init refuses it with a clear
 *                             message citing the line of the key at fault
 *   vm_devdax region_write DEV     a persistent region made with kind=pmem lies in DEV's
 *                             mapping (made MAP_SYNC), names the pmem target; a pattern
 *                             written, synced, closed
 *   vm_devdax region_check DEV     (a new process) the region reopened by name: in DEV's
 *                             mapping, the pattern bit-exact; a checkpoint of it saved, the
 *                             region scribbled on, the checkpoint restored: bit-exact again
 *   vm_devdax region_refusals DEV  more than the device holds, then more than it has free:
 *                             refused with messages that say so
 *   vm_devdax region_remove DEV    removed: reopening it is ENOENT, and a region of nearly
 *                             the device's size fits again
 *
 * Exit 0 ok, 1 a check failed, 2 setup error.
 */
#include <loci.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "vm_devdax: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 1;
}

static uint64_t sysfs_u64(const char *dev, const char *attr)
{
    char path[256];
    unsigned long long v = 0;
    snprintf(path, sizeof path, "/sys/bus/dax/devices/%s/%s", strrchr(dev, '/') + 1, attr);
    FILE *f = fopen(path, "r");
    if (!f || fscanf(f, "%llu", &v) != 1) {
        fprintf(stderr, "vm_devdax: cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    return v;
}

static const loci_target_t *target_of(const char *dev)
{
    for (int i = 0; i < loci_target_count(); i++) {
        const char *path = loci_target_path(loci_target_at(i));
        if (path && strcmp(path, dev) == 0)
            return loci_target_at(i);
    }
    return NULL;
}

/* True when [p, p+size) lies in one mapping of dev in /proc/self/maps. */
static int in_mapping(const void *p, size_t size, const char *dev)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2 && strstr(line, dev) &&
            (uintptr_t)p >= lo && (uintptr_t)p + size <= hi)
            found = 1;
    }
    if (f)
        fclose(f);
    return found;
}

static int info(const char *dev)
{
    const loci_target_t *t = target_of(dev);
    if (!t)
        return fail("no target has path %s%s", dev, "");
    loci_target_info_t in;
    loci_target_info(t, &in);
    uint64_t size = sysfs_u64(dev, "size"), align = sysfs_u64(dev, "align");
    printf("%s: kind %s, capacity %" PRIu64 " (device %" PRIu64 ", align %" PRIu64 ")\n", in.name, in.kind,
           in.capacity, size, align);
    if (strcmp(in.kind, "pmem") != 0 || !(in.flags & LOCI_TARGET_PERSISTENT))
        return fail("%s should be persistent memory (kind pmem), is %s", in.name, in.kind);
    if (in.capacity != size / align * align || in.capacity == 0)
        return fail("%s: capacity is not the device's size in whole align units%s", in.name, "");
    return 0;
}

static int place(const char *dev)
{
    static const size_t sizes[] = {8, 4096, 1 << 20, 64 << 20};
    const loci_target_t *t = target_of(dev);
    if (!t)
        return fail("no target has path %s%s", dev, "");
    loci_target_info_t in;
    loci_target_info(t, &in);
    char by_name[64];
    snprintf(by_name, sizeof by_name, "target=%s", in.name);
    const char *intents[] = {"kind=pmem", by_name};
    int bad = 0;
    for (int i = 0; i < 2; i++) {
        loci_allocator_t *a = loci_allocator_create(intents[i]);
        if (!a)
            return fail("intent %s refused: %s", intents[i], loci_last_error());
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            unsigned char *p = loci_alloc(a, sizes[s]);
            if (!p) {
                bad |= fail("%s: %s", intents[i], loci_last_error());
                continue;
            }
            for (size_t j = 0; j < sizes[s]; j++)
                p[j] = (unsigned char)(j * 7 + s);
            size_t wrong = 0;
            for (size_t j = 0; j < sizes[s]; j++)
                wrong += p[j] != (unsigned char)(j * 7 + s);
            int mapped = in_mapping(p, sizes[s], dev);
            if (wrong || !mapped || loci_ptr_target(p) != t) {
                fprintf(stderr, "vm_devdax: %s, %zu B at %p: %s%s%s\n", intents[i], sizes[s], (void *)p,
                        mapped ? "" : "not in the device's mapping ", wrong ? "data read back wrong " : "",
                        loci_ptr_target(p) != t ? "loci names another target" : "");
                bad = 1;
            } else {
                printf("ok   %-16s %9zu B in %s's mapping, read back\n", intents[i], sizes[s], dev);
            }
            loci_free(p);
        }
        loci_allocator_destroy(a);
    }
    return bad;
}

static int too_large(const char *dev)
{
    const loci_target_t *t = target_of(dev);
    if (!t)
        return fail("no target has path %s%s", dev, "");
    loci_target_info_t in;
    loci_target_info(t, &in);
    char intent[64];
    snprintf(intent, sizeof intent, "target=%s!", in.name);
    loci_allocator_t *a = loci_allocator_create(intent);
    void *p = a ? loci_alloc(a, (size_t)in.capacity * 2) : NULL;
    if (p)
        return fail("%s: twice the device's size was granted%s", intent, "");
    printf("refused: %s\n", loci_last_error());
    return strstr(loci_last_error(), "holds only") ? 0 : fail("unclear message: %s%s", loci_last_error(), "");
}

static int noperm(const char *dev)
{
    if (setgid(65534) != 0 || setuid(65534) != 0) {
        perror("vm_devdax: setuid(nobody)");
        return 2;
    }
    if (loci_init() != 0)
        return fail("loci_init as nobody: %s%s", loci_last_error(), "");
    const loci_target_t *t = target_of(dev);
    const char *why = t ? loci_target_unreachable(t) : NULL;
    if (!why)
        return fail("%s: %s", dev, t ? "listed as reachable without permission" : "not listed");
    printf("unreachable: %s\n", why);
    if (!strstr(why, "Permission denied") || !strstr(why, "loci never changes them"))
        return fail("unclear reason: %s%s", why, "");
    loci_target_info_t in;
    loci_target_info(t, &in);
    char strict[48];
    snprintf(strict, sizeof strict, "target=%s!", in.name);
    const char *intents[] = {"kind=pmem!", strict};
    for (int i = 0; i < 2; i++) {
        errno = 0;
        if (loci_allocator_create(intents[i]) || errno != EPERM || !strstr(loci_last_error(), "Permission denied")) {
            fprintf(stderr, "vm_devdax: loci_allocator_create(\"%s\") without permission: expected NULL, EPERM "
                            "and the reason; got %s: %s\n", intents[i], strerror(errno), loci_last_error());
            return 1;
        }
        printf("refused (EPERM): %s\n", loci_last_error());
        errno = 0;
        if (loci_region_open("vm-devdax-noperm", 1 << 20, intents[i], LOCI_REGION_CREATE) || errno != EPERM) {
            fprintf(stderr, "vm_devdax: loci_region_open(..., \"%s\") without permission: expected NULL and EPERM; "
                            "got %s: %s\n", intents[i], strerror(errno), loci_last_error());
            return 1;
        }
    }
    printf("loci_region_open refused both with EPERM\n");
    loci_allocator_t *d = loci_allocator_create("");
    char *q = d ? loci_alloc(d, 1 << 20) : NULL;
    if (!q)
        return fail("plain memory refused: %s%s", loci_last_error(), "");
    memset(q, 1, 1 << 20);
    loci_free(q);
    printf("ok   other targets still usable\n");
    return 0;
}

static int config(const char *what, const char *dev)
{
    const char *conf = "/tmp/devdax.conf", *expect;
    FILE *f = fopen(conf, "w");
    if (!f)
        return 2;
    if (strcmp(what, "file") == 0) {
        FILE *g = fopen("/tmp/not-a-device", "w");
        if (g)
            fclose(g);
        fprintf(f, "[target pmem7]\n# not a device\npath = /tmp/not-a-device\n");
        expect = "devdax.conf:3: [target pmem7]: path = /tmp/not-a-device is a regular file, not a device-DAX node";
    } else if (strcmp(what, "link") == 0) {
        unlink("/tmp/dax-link");
        if (symlink("/tmp/devdax.conf", "/tmp/dax-link") != 0)
            return 2;
        fprintf(f, "[target pmem7]\n\npath = /tmp/dax-link\n");
        expect = "outside /dev: refused";
    } else if (strcmp(what, "kind") == 0) {
        fprintf(f, "[target pmem7]\npath = %s\nkind = ssd\n", dev);
        expect = "devdax.conf:3: [target pmem7]: a device-DAX target is kind pmem or cxl, not ssd";
    } else {
        fprintf(f, "[target pmem7]\npath = %s\n# 3 MiB is no whole number of 2 MiB units\ncapacity = 3M\n", dev);
        expect = "devdax.conf:4: [target pmem7]: capacity = 3.0 MiB is not a multiple of";
    }
    fclose(f);
    setenv("LOCI_CONFIG", conf, 1);
    if (loci_init() == 0)
        return fail("config naming %s accepted%s", what, "");
    printf("refused: %s\n", loci_last_error());
    return strstr(loci_last_error(), expect) ? 0 : fail("expected \"%s\" in: %s", expect, loci_last_error());
}

#define REGION "vm-devdax-region"
#define REGION_BYTES ((size_t)(24 << 20) + 4096) /* not whole align units */
#define CKPT "vm-devdax-ckpt"

static void fill(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131 + (i >> 12) + 17);
}

static size_t wrong(const unsigned char *p, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += p[i] != (unsigned char)(i * 131 + (i >> 12) + 17);
    return bad;
}

/* True when the mapping holding p was made MAP_SYNC (VmFlags "sf" in /proc/self/smaps). */
static int map_sync(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0, sync = 0;
    while (f && fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        char dash;
        if (sscanf(line, "%" SCNxPTR "%c%" SCNxPTR, &lo, &dash, &hi) == 3 && dash == '-')
            inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0)
            sync = strstr(line, " sf") != NULL;
    }
    if (f)
        fclose(f);
    return sync;
}

/* The region, open, inside DEV's mapping and named as the pmem target's. */
static int placed(const unsigned char *p, size_t size, const char *dev)
{
    const loci_target_t *t = target_of(dev);
    if (!in_mapping(p, size, dev))
        return fail("region at %p is not inside the mapping of %s", (const char *)p, dev);
    if (!t || loci_ptr_target(p) != t)
        return fail("region's pointer names another target than %s%s", dev, "");
    if (loci_region_size(p) != size)
        return fail("loci_region_size disagrees with the size asked%s%s", "", "");
    if (!map_sync(p))
        return fail("%s is not mapped MAP_SYNC (VmFlags without sf)%s", dev, "");
    printf("ok   region of %zu B at %p inside %s's mapping, MAP_SYNC\n", size, (const void *)p, dev);
    return 0;
}

static int region_write(const char *dev)
{
    unsigned char *p = loci_region_open(REGION, REGION_BYTES, "kind=pmem", LOCI_REGION_CREATE);
    if (!p)
        return fail("creating region: %s%s", loci_last_error(), "");
    if (placed(p, REGION_BYTES, dev) != 0)
        return 1;
    fill(p, REGION_BYTES);
    if (loci_region_sync(p) != 0 || loci_region_close(p) != 0)
        return fail("sync/close: %s%s", loci_last_error(), "");
    printf("ok   pattern written and synced\n");
    return 0;
}

static int region_check(const char *dev)
{
    unsigned char *p = loci_region_open(REGION, 0, "kind=pmem", 0);
    if (!p)
        return fail("reopening region: %s%s", loci_last_error(), "");
    size_t size = loci_region_size(p), bad;
    if (size != REGION_BYTES)
        return fail("reopened with another size%s%s", "", "");
    if (placed(p, size, dev) != 0)
        return 1;
    if ((bad = wrong(p, size)) != 0) {
        fprintf(stderr, "vm_devdax: %zu bytes differ after the reopening\n", bad);
        return 1;
    }
    printf("ok   %zu B bit-exact in a new process\n", size);
    if (loci_ckpt_save(CKPT) != 0)
        return fail("checkpoint save: %s%s", loci_last_error(), "");
    memset(p, 0xff, 1 << 20);
    memset(p + size - 4096, 0, 4096);
    if (loci_ckpt_restore(CKPT) != 0)
        return fail("checkpoint restore: %s%s", loci_last_error(), "");
    if ((bad = wrong(p, size)) != 0) {
        fprintf(stderr, "vm_devdax: %zu bytes differ after the restore\n", bad);
        return 1;
    }
    printf("ok   checkpoint saved, region scribbled on, restored bit-exact\n");
    if (loci_ckpt_remove(CKPT) != 0 || loci_region_close(p) != 0)
        return fail("checkpoint remove / close: %s%s", loci_last_error(), "");
    return 0;
}

static int region_refusals(const char *dev)
{
    const loci_target_t *t = target_of(dev);
    loci_target_info_t in;
    if (!t || loci_target_info(t, &in) != 0)
        return fail("no target has path %s%s", dev, "");
    if (loci_region_open("vm-devdax-huge", (size_t)in.capacity * 2, "kind=pmem", LOCI_REGION_CREATE))
        return fail("a region twice the device's size was made%s%s", "", "");
    printf("refused: %s\n", loci_last_error());
    if (!strstr(loci_last_error(), "holds in all"))
        return fail("unclear message: %s%s", loci_last_error(), "");
    size_t most = (size_t)in.capacity - (4 << 20); /* less than it holds, more than it has free */
    void *big = loci_region_open("vm-devdax-big", most, "kind=pmem", LOCI_REGION_CREATE);
    if (big)
        return fail("a region larger than the free space was made%s%s", "", "");
    printf("refused: %s\n", loci_last_error());
    return errno == ENOSPC && strstr(loci_last_error(), "free") ? 0 : fail("unclear: %s%s", loci_last_error(), "");
}

static int region_remove(const char *dev)
{
    loci_target_info_t in;
    const loci_target_t *t = target_of(dev);
    if (!t || loci_target_info(t, &in) != 0)
        return fail("no target has path %s%s", dev, "");
    if (loci_region_remove(REGION, "kind=pmem") != 0)
        return fail("remove: %s%s", loci_last_error(), "");
    if (loci_region_open(REGION, 0, "kind=pmem", 0) || errno != ENOENT)
        return fail("a removed region reopened%s%s", "", "");
    printf("ok   removed: %s\n", loci_last_error());
    size_t most = (size_t)in.capacity - (4 << 20); /* fits only with the removed region's space free */
    void *big = loci_region_open("vm-devdax-big", most, "kind=pmem", LOCI_REGION_CREATE);
    if (!big)
        return fail("its space did not come back: %s%s", loci_last_error(), "");
    printf("ok   a region of %zu B fits again\n", most);
    return loci_region_close(big) || loci_region_remove("vm-devdax-big", "kind=pmem")
               ? fail("close/remove: %s%s", loci_last_error(), "")
               : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: vm_devdax info|place|too_large|noperm|region_write|region_check|region_refusals|"
                        "region_remove DEV | vm_devdax config file|link|align|kind\n");
        return 2;
    }
    const char *mode = argv[1];
    if (strcmp(mode, "config") == 0)
        return config(argv[2], "/dev/dax0.0");
    if (strcmp(mode, "noperm") == 0)
        return noperm(argv[2]);
    if (loci_init() != 0) {
        fprintf(stderr, "vm_devdax: loci_init: %s\n", loci_last_error());
        return 2;
    }
    if (strcmp(mode, "info") == 0)
        return info(argv[2]);
    if (strcmp(mode, "place") == 0)
        return place(argv[2]);
    if (strcmp(mode, "too_large") == 0)
        return too_large(argv[2]);
    if (strcmp(mode, "region_write") == 0)
        return region_write(argv[2]);
    if (strcmp(mode, "region_check") == 0)
        return region_check(argv[2]);
    if (strcmp(mode, "region_refusals") == 0)
        return region_refusals(argv[2]);
    if (strcmp(mode, "region_remove") == 0)
        return region_remove(argv[2]);
    return fail("unknown mode %s%s", mode, "");
}
