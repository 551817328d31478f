/*
 * Memory that appears and goes away at run time (loci_topology_refresh,
 * docs/DISCOVERY.md), on the reference machine cxl-expander.xml: loci
 * starts on it without its CXL node (the XML restricted to node 0, written
 * into the scratch directory and named by LOCI_TOPOLOGY), then the file
 * becomes the whole machine and back, as if the node were onlined and
 * offlined. Checked: pointers handed out stay valid, the new target is
 * named, classified and ranked, allocator objects and arenas follow, what
 * went away is refused with a message naming it, refreshes run while other
 * threads allocate; and on this machine, the watcher thread that refreshes
 * by itself exists once per process (none in a fork child, which can still
 * refresh), can be turned off, and goes with loci_fini.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "support/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char machine[600], without_cxl[600], with_cxl[600];

/* The reference machine restricted to node 0 (its CXL node removed), as an
 * XML file: what hwloc would have said before the node was onlined, node 1
 * still among the machine's complete (possible) nodes, as the kernel's
 * possible nodes list a node that memory can be hot-added to. */
static void write_without_cxl(void)
{
    hwloc_topology_t h;
    assert_int_equal(hwloc_topology_init(&h), 0);
    assert_int_equal(hwloc_topology_set_xml(h, with_cxl), 0);
    assert_int_equal(hwloc_topology_load(h), 0);
    hwloc_bitmap_t node0 = hwloc_bitmap_alloc();
    hwloc_bitmap_set(node0, 0);
    assert_int_equal(hwloc_topology_restrict(h, node0, HWLOC_RESTRICT_FLAG_BYNODESET), 0);
    assert_int_equal(hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE), 1);
    char *xml;
    int len;
    assert_int_equal(hwloc_topology_export_xmlbuffer(h, &xml, &len, 0), 0);
    hwloc_bitmap_free(node0);
    const char *restricted = "complete_nodeset=\"0x00000001\"";
    char *machine_nodes = strstr(xml, restricted); /* the first object's: the machine's */
    assert_non_null(machine_nodes);
    FILE *f = fopen(without_cxl, "w");
    assert_non_null(f);
    fprintf(f, "%.*scomplete_nodeset=\"0x00000003\"%s", (int)(machine_nodes - xml), xml,
            machine_nodes + strlen(restricted));
    fclose(f);
    hwloc_free_xmlbuffer(h, xml);
    hwloc_topology_destroy(h);
}

/* The machine LOCI_TOPOLOGY names becomes `xml`. */
static void machine_is(const char *xml)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", xml, machine);
    assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
    scratch_setup(state);
    snprintf(machine, sizeof machine, "%s/machine.xml", scratch_dir);
    snprintf(without_cxl, sizeof without_cxl, "%s/without-cxl.xml", scratch_dir);
    snprintf(with_cxl, sizeof with_cxl, "%s/cxl-expander.xml", getenv("LOCI_TEST_TOPOLOGIES"));
    write_without_cxl();
    return 0;
}

/* loci on the machine without its CXL node. */
static void start_without_cxl(void)
{
    loci_fini();
    machine_is(without_cxl);
    setenv("LOCI_TOPOLOGY", machine, 1);
    unsetenv("LOCI_CONFIG");
    assert_int_equal(loci_init(), 0);
}

static const loci_target_t *best_of(const loci_allocator_t *a)
{
    const loci_target_t *best = NULL;
    assert_true(loci_allocator_targets(a, &best, 1) >= 1);
    return best;
}

static void node_appears_and_goes(void **state)
{
    (void)state;
    start_without_cxl();
    int before = loci_target_count();
    const loci_target_t *dram0 = loci_target_by_name("dram0");
    assert_non_null(dram0);
    assert_null(loci_target_by_name("cxl0"));
    assert_int_equal(loci_topology_refresh(), 0); /* nothing changed */
    loci_allocator_t *large = loci_allocator_create("capacity=large");
    assert_non_null(large);
    assert_ptr_equal(best_of(large), dram0);

    /* the CXL node is onlined */
    machine_is(with_cxl);
    assert_int_equal(loci_topology_refresh(), 1);
    assert_int_equal(loci_target_count(), before + 1);
    assert_ptr_equal(loci_target_by_name("dram0"), dram0); /* pointers stay */
    const loci_target_t *cxl0 = loci_target_by_name("cxl0");
    assert_non_null(cxl0);
    assert_ptr_equal(loci_target_at(before), cxl0); /* appended */
    loci_target_info_t info;
    assert_int_equal(loci_target_info(cxl0, &info), 0);
    assert_string_equal(info.kind, "cxl"); /* from its figures (HMAT), not "dram" for being a node */
    assert_int_equal(info.numa_node, 1);
    assert_int_equal(info.capacity, 256ull << 30);
    assert_null(loci_target_gone(cxl0));
    assert_ptr_equal(best_of(large), cxl0); /* the same allocator object, resolved again */
    void *p = loci_alloc(large, 1000);
    assert_non_null(p);
    assert_ptr_equal(loci_ptr_target(p), cxl0);
    loci_allocator_t *only_cxl = loci_allocator_create("kind=cxl!");
    assert_non_null(only_cxl);
    loci_arena_t *ar = loci_arena_create("kind=cxl", 0);
    assert_non_null(ar);
    assert_ptr_equal(loci_arena_target(ar), cxl0);
    char *block = loci_arena_alloc(ar, 4096);
    assert_non_null(block);
    memset(block, 0x5a, 4096);

    /* and offlined again */
    machine_is(without_cxl);
    assert_int_equal(loci_topology_refresh(), 1);
    assert_int_equal(loci_target_count(), before + 1); /* still listed */
    assert_ptr_equal(loci_target_by_name("cxl0"), cxl0);
    assert_int_equal(loci_target_info(cxl0, &info), 0);
    assert_true(info.flags & LOCI_TARGET_GONE);
    assert_non_null(loci_target_gone(cxl0));
    assert_non_null(strstr(loci_target_gone(cxl0), "NUMA node 1 has no memory online"));
    assert_ptr_equal(best_of(large), dram0); /* intents no longer rank it */
    assert_ptr_equal(loci_ptr_target(p), cxl0); /* what was there is still its */
    loci_free(p);
    errno = 0;
    assert_null(loci_alloc(only_cxl, 1000)); /* refused, naming the target and what happened */
    assert_int_equal(errno, ENODEV);
    assert_non_null(strstr(loci_last_error(), "cxl0 went away at run time"));
    assert_null(loci_allocator_create("target=cxl0!"));
    assert_non_null(strstr(loci_last_error(), "cxl0 would hold it, but it went away at run time"));
    assert_ptr_equal(loci_arena_target(ar), dram0); /* moved to the best that is left */
    for (int i = 0; i < 4096; i++)
        assert_int_equal((unsigned char)block[i], 0x5a);
    assert_non_null(loci_arena_alloc(ar, 100));

    /* and back: the same target, usable again */
    machine_is(with_cxl);
    assert_int_equal(loci_topology_refresh(), 1);
    assert_int_equal(loci_target_count(), before + 1);
    assert_null(loci_target_gone(cxl0));
    assert_ptr_equal(best_of(large), cxl0);
    p = loci_alloc(only_cxl, 1000);
    assert_non_null(p);
    assert_ptr_equal(loci_ptr_target(p), cxl0);
    loci_free(p);
    loci_arena_destroy(ar);
}

/* Allocations, frees and resolutions in other threads while the node comes
 * and goes: every allocation succeeds (capacity=large always has DRAM). */
static _Atomic bool stop;

static void *allocate(void *arg)
{
    (void)arg;
    long failures = 0;
    while (!stop) {
        loci_allocator_t *a = loci_allocator_create("capacity=large");
        void *p[64];
        for (int i = 0; i < 64; i++)
            if (!(p[i] = loci_alloc(a, 64 + (size_t)i * 512))) {
                print_error("allocation %d: %s\n", i, loci_last_error());
                failures++;
            }
        for (int i = 0; i < 64; i++)
            loci_free(p[i]);
        loci_target_info_t info;
        for (int i = 0; i < loci_target_count(); i++)
            failures += loci_target_info(loci_target_at(i), &info) != 0;
    }
    return (void *)failures;
}

static void refresh_under_load(void **state)
{
    (void)state;
    start_without_cxl();
    pthread_t threads[3];
    stop = false;
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, allocate, NULL), 0);
    for (int round = 0; round < 20; round++) {
        machine_is(round % 2 ? without_cxl : with_cxl);
        assert_int_equal(loci_topology_refresh(), 1);
    }
    stop = true;
    for (int i = 0; i < 3; i++) {
        void *failures;
        pthread_join(threads[i], &failures);
        assert_int_equal((long)failures, 0);
    }
}

/* Threads of this process named `name` (/proc/self/task/N/comm). */
static int threads_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof comm, f))
            comm[strcspn(comm, "\n")] = '\0';
        fclose(f);
        n += strcmp(comm, name) == 0;
    }
    closedir(d);
    return n;
}

/* Whether no thread called `name` is left within 2 s: pthread_join returns once the kernel clears
 * the thread's id, which it does before it takes the task out of /proc/self/task — a CI run under
 * TSan saw the joined watcher there once. */
static bool threads_gone(const char *name)
{
    for (int tries = 0; tries < 200; tries++) {
        if (threads_named(name) == 0)
            return true;
        usleep(10000);
    }
    return false;
}

static void watcher_thread(void **state)
{
    (void)state;
    use_this_machine();
    assert_int_equal(loci_target_count() > 0, 1);
    assert_int_equal(threads_named("loci-topo-watch"), 1);
    assert_int_equal(loci_topology_refresh(), 0); /* this machine did not change */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the child has none and starts none (no threads before exec), but can refresh */
        int ok = loci_target_count() > 0 && loci_topology_refresh() == 0;
        _exit(ok && threads_named("loci-topo-watch") == 0 ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    loci_fini();
    assert_true(threads_gone("loci-topo-watch"));

    setenv("LOCI_TOPOLOGY_WATCH", "0", 1);
    assert_int_equal(loci_init(), 0);
    assert_true(loci_target_count() > 0);
    assert_int_equal(threads_named("loci-topo-watch"), 0);
    unsetenv("LOCI_TOPOLOGY_WATCH");
    loci_fini();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_appears_and_goes),
        cmocka_unit_test(refresh_under_load),
        cmocka_unit_test(watcher_thread),
    };
    return cmocka_run_group_tests(tests, setup, scratch_teardown);
}
