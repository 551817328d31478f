#include "scratch.h"

#include <loci.h>

#include <ftw.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

char scratch_dir[] = "/tmp/loci-test-XXXXXX";

int scratch_setup(void **state)
{
    (void)state;
    return mkdtemp(scratch_dir) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int remove_tree(const char *path) { return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1; }

int scratch_teardown(void **state)
{
    (void)state;
    loci_fini();
    return remove_tree(scratch_dir);
}

/* loci re-initialised on the reference topology `xml` (NULL: this machine)
 * with `config` as LOCI_CONFIG (NULL: none). */
static void reinit(const char *xml, const char *config)
{
    loci_fini();
    if (config) {
        char cfg[300];
        snprintf(cfg, sizeof cfg, "%s/topology.ini", scratch_dir);
        FILE *f = fopen(cfg, "w");
        assert_non_null(f);
        fputs(config, f);
        fclose(f);
        setenv("LOCI_CONFIG", cfg, 1);
    } else {
        unsetenv("LOCI_CONFIG");
    }
    if (xml) {
        char topo[512];
        snprintf(topo, sizeof topo, "%s/%s", getenv("LOCI_TEST_TOPOLOGIES"), xml);
        setenv("LOCI_TOPOLOGY", topo, 1);
    } else {
        unsetenv("LOCI_TOPOLOGY");
    }
    assert_int_equal(loci_init(), 0);
}

void use_topology(const char *xml, const char *config) { reinit(xml, config); }

void use_this_machine(void) { reinit(NULL, NULL); }

void use_this_machine_with(const char *config) { reinit(NULL, config); }

const char *unique_name(const char *base)
{
    static __thread char buf[4][160];
    static __thread int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s-%ld", base, (long)getpid());
    return b;
}
