/* Device-DAX without the hardware: discovery from a sysfs tree built here
 * (an NVDIMM instance is pmem, a soft-reserved one cxl, a kmem one none),
 * config paths that are no device refused, and the devdax provider carving
 * align units from one mapping of a file standing in for the device. The
 * VM suite devdax (tests/vm) runs the same on an emulated NVDIMM. A fork
 * child carves nothing from its parent's mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "provider/provider.h"
#include "topo/topo_internal.h"
#include "support/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void test_discovery(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "%s/sysfs", scratch_dir);
    assert_int_equal(mkdir(root, 0700), 0);
    dirs("sys/bus/dax/devices sys/bus/dax/drivers/device_dax sys/bus/dax/drivers/kmem dev");
    instance("dax0.0", "LNXSYSTM:00/ndbus0/region0/dax0.0/dax0.0", "device_dax", "1073741824\n");
    instance("dax1.0", "platform/hmem.0/dax1.0", "device_dax", "3146752\n"); /* 3 MiB + 4 KiB */
    instance("dax2.0", "LNXSYSTM:00/ndbus0/region1/dax2.0/dax2.0", "kmem", "1073741824\n");
    topo_t *t = empty_topology();
    char sys[600], dev[600];
    snprintf(sys, sizeof sys, "%s/sys", root);
    snprintf(dev, sizeof dev, "%s/dev", root);
    assert_int_equal(topo_source_devdax(t, sys, dev), 0);
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
    char where[] = "test.conf:1", file[700], link[700];
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

/* A file stands in for the device: the carving is the same. */
/* A pmem target over `path` (a file standing in for the device), align
 * 2 MiB, and a placement on it, as discovery and the allocators make them. */
static void fake_devdax(struct loci_target *tg, place_t *place, const char *name, const char *path, uint64_t capacity)
{
    memset(tg, 0, sizeof *tg);
    snprintf(tg->name, sizeof tg->name, "%s", name);
    tg->kind = KIND_PMEM;
    tg->numa_node = -1;
    tg->path = (char *)path;
    tg->dax_align = 2 * MB;
    tg->capacity.value = capacity;
    memset(place, 0, sizeof *place);
    place->target = tg;
}

static void test_provider_carves(void **state)
{
    (void)state;
    char path[600];
    snprintf(root, sizeof root, "%s", scratch_dir);
    snprintf(path, sizeof path, "%s/dax", root);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 8 * MB), 0);
    close(fd);
    struct loci_target tg;
    place_t place;
    fake_devdax(&tg, &place, "pmem0", path, 8 * MB);
    assert_ptr_equal(provider_for(&tg, false), &provider_devdax);
    assert_null(provider_for(&tg, true));

    char *a = provider_devdax.alloc(&place, 4096, 4096);
    assert_non_null(a);
    assert_int_equal((uintptr_t)a % (2 * MB), 0);
    memset(a, 0xab, 2 * MB);
    char *b = provider_devdax.alloc(&place, 4 * MB, 4096);
    char *c = provider_devdax.alloc(&place, 2 * MB, 4096);
    assert_non_null(b);
    assert_non_null(c);
    uint64_t avail;
    assert_int_equal(provider_devdax.available(&place, &avail), 0);
    assert_int_equal(avail, 0);
    assert_null(provider_devdax.alloc(&place, 2 * MB, 4096));
    assert_non_null(strstr(loci_last_error(), "no free 2.0 MiB"));
    assert_null(provider_devdax.alloc(&place, 16 * MB, 4096));
    assert_non_null(strstr(loci_last_error(), "holds only 8.0 MiB"));

    assert_int_equal(provider_devdax.free(a, 4096), 0);
    char *again = provider_devdax.alloc(&place, 2 * MB, 4096);
    assert_ptr_equal(again, a);
    for (size_t i = 0; i < 2 * MB; i += 4096)
        assert_int_equal(again[i], 0); /* zeroed: the device keeps old contents */
    assert_int_equal(provider_devdax.free(again, 2 * MB), 0);
    assert_int_equal(provider_devdax.free(b, 4 * MB), 0);
    assert_int_equal(provider_devdax.free(c, 2 * MB), 0);
    assert_int_equal(provider_devdax.available(&place, &avail), 0);
    assert_int_equal(avail, 8 * MB);
    char *whole = provider_devdax.alloc(&place, 8 * MB, 4096); /* the spans merged again */
    assert_non_null(whole);
    assert_int_equal(provider_devdax.free(whole, 8 * MB), 0);

    /* a fork child shares the mapping: it carves nothing, lest both hand out the same memory */
    pid_t pid = fork(); /* loci's fork handlers (core/fork.c) run the providers' */
    assert_true(pid >= 0);
    if (pid == 0) {
        void *p = provider_devdax.alloc(&place, 2 * MB, 4096);
        _exit(p == NULL && strstr(loci_last_error(), "the parent's to carve") ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    whole = provider_devdax.alloc(&place, 8 * MB, 4096); /* the parent still carves */
    assert_non_null(whole);
    assert_int_equal(provider_devdax.free(whole, 8 * MB), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_discovery),
        cmocka_unit_test(test_provider_carves),
        cmocka_unit_test(test_provider_no_permission),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
