/*
 * Memory spaces as intents. OpenMP names five; loci places each by an intent,
 * built in below or set per machine by an admin in LOCI_CONFIG:
 *
 *   [omp]
 *   high_bw = kind=hbm!
 *
 * high_bw is a constraint ('!'): memory with more bandwidth than local DRAM,
 * which a machine may lack; then omp_init_allocator returns
 * omp_null_allocator, as both runtimes do. large_cap is memory bigger than
 * local DRAM where there is some (CXL, PMEM...), otherwise local DRAM itself:
 * on an ordinary machine DRAM is its largest memory (and both runtimes give
 * plain memory). low_lat ranks: the lowest-latency memory always exists
 * (usually local DRAM). default and const are local DRAM. A space set in
 * LOCI_CONFIG is exactly what the admin wrote, with no "otherwise".
 */
#include "shim.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static shim_memspace_t spaces[OMP_MEM_SPACES] = {
    [OMP_DEFAULT_MEM_SPACE] = {"omp_default_mem_space", "default", "", NULL, "built-in"},
    [OMP_LARGE_CAP_MEM_SPACE] = {"omp_large_cap_mem_space", "large_cap", "capacity=large!", "", "built-in"},
    [OMP_CONST_MEM_SPACE] = {"omp_const_mem_space", "const", "", NULL, "built-in"},
    [OMP_HIGH_BW_MEM_SPACE] = {"omp_high_bw_mem_space", "high_bw", "bandwidth=high!", NULL, "built-in"},
    [OMP_LOW_LAT_MEM_SPACE] = {"omp_low_lat_mem_space", "low_lat", "latency=low", NULL, "built-in"},
};
static bool ready;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* LOCI_LOG=info: what each memory space is on this machine, seen from here. */
static void describe(void)
{
    const shim_runtime_t *rt = shim_runtime();
    shim_log(LOCI_LOG_INFO, "runtime %s%s%s%s", rt->name, *rt->path ? " (" : "", rt->path, *rt->path ? ")" : "");
    for (int i = 0; i < OMP_MEM_SPACES; i++) {
        const shim_memspace_t *s = &spaces[i];
        char where[512] = "";
        loci_allocator_t *a = loci_allocator_create(s->intent);
        if (!a && s->otherwise)
            a = loci_allocator_create(s->otherwise);
        const loci_target_t *t[8];
        int n = a ? loci_allocator_targets(a, t, 8) : 0;
        for (int k = 0; k < n && k < 8; k++) {
            loci_target_info_t info;
            size_t used = strlen(where);
            if (loci_target_info(t[k], &info) == 0)
                snprintf(where + used, sizeof where - used, "%s%s", k ? ", " : "", info.name);
        }
        shim_log(LOCI_LOG_INFO, "%s = \"%s\" (%s): %s%s", s->name, s->intent, s->origin,
                 a ? "" : "absent here: ", a ? where : loci_last_error());
    }
}

/* The spaces LOCI_CONFIG's [omp] maps elsewhere. false when a value is no
 * intent for a space (loci_last_error says which line). */
static bool read_map(void)
{
    for (int i = 0; i < OMP_MEM_SPACES; i++) {
        const char *origin;
        const char *intent = loci_config_intent("omp", spaces[i].key, &origin);
        if (intent) {
            spaces[i].intent = intent;
            spaces[i].otherwise = NULL;
            spaces[i].origin = origin;
        }
        else if (errno != ENOENT)
            return false;
    }
    return true;
}

/* A wrong map counts as loci not starting: nothing is half-placed. */
static void start(void)
{
    if (loci_init() != 0 || !read_map()) {
        shim_log(LOCI_LOG_ERROR, "loci cannot start: %s; OpenMP allocations go to the runtime (%s), unplaced",
                 loci_last_error(), shim_runtime()->name);
        return;
    }
    ready = true;
    if (shim_log_on(LOCI_LOG_INFO))
        describe();
}

bool shim_ready(void)
{
    pthread_once(&once, start);
    return ready;
}

const shim_memspace_t *shim_memspace(omp_handle_t m)
{
    shim_ready(); /* the map is final once loci has started */
    return m < OMP_MEM_SPACES ? &spaces[m] : NULL;
}

int shim_memspace_by_name(const char *name)
{
    for (int i = 0; i < OMP_MEM_SPACES; i++)
        if (strcasecmp(name, spaces[i].name) == 0)
            return i;
    return -1;
}
