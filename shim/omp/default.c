/*
 * def-allocator-var: the allocator behind omp_null_allocator. It is a
 * data-environment ICV: the implicit tasks of a parallel region, and tasks,
 * start with their encountering thread's value (OpenMP 5.1 §2.4.1). Both
 * runtimes implement that inheritance already, so the value lives in the
 * runtime's own ICV (omp_set/get_default_allocator of the runtime) and every
 * team and task the runtime makes inherits it, loci handles included (the
 * runtime only stores them: every allocation call reaches the shim first).
 *
 * Its initial value comes from OMP_ALLOCATOR (OpenMP 5.1): a predefined
 * allocator's name, or a memory space's name with optional traits, e.g.
 * "omp_high_bw_mem_space:alignment=64,pinned=true". The runtime parses the
 * variable too (libgomp 12 knows only the names; libomp 14 makes its own,
 * unplaced allocator from the second form), so its initial value R0 may
 * differ from loci's, E. The runtime then holds swap(a) for the program's a,
 * where swap exchanges R0 and E: it starts at R0, which reads as E, and a
 * program setting R0 explicitly reads R0 back. A malformed value is
 * reported, naming the part at fault, and ignored.
 */
#include "shim.h"
#include "units.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static omp_handle_t runtime_initial = OMP_DEFAULT_MEM_ALLOC; /* R0 */
static omp_handle_t environment = OMP_DEFAULT_MEM_ALLOC;     /* E */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static char *trim(char *s)
{
    s += strspn(s, " \t");
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* A trait value: a name ("null_fb"), a predefined allocator (for fb_data) or
 * a number; false with why. */
static bool value_of(const char *v, uintptr_t *out, const char **why)
{
    if (shim_trait_value(v, out) || (*out = shim_predefined_by_name(v)))
        return true;
    uint64_t x;
    if (!units_parse_whole(v, 0, UINTPTR_MAX, &x, why))
        return false;
    *out = (uintptr_t)x;
    return true;
}

/* "key=value,key=value" into traits; false with why. */
static bool parse_traits(char *list, omp_trait_t *traits, int max, int *n, char *why, size_t len)
{
    for (char *save = NULL, *term = strtok_r(list, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(term, '=');
        if (eq)
            *eq = '\0';
        char *key = trim(term), *value = eq ? trim(eq + 1) : NULL;
        int k = shim_trait_key(key);
        if (k < 0 || !value || *n == max) {
            snprintf(why, len,
                     k < 0 ? "unknown trait '%s'; expected sync_hint, alignment, access, pool_size, fallback, "
                             "fb_data, pinned or partition"
                     : !value ? "trait '%s' has no value; write key=value"
                              : "more traits than OpenMP has ('%s')",
                     key);
            return false;
        }
        uintptr_t v;
        const char *number;
        if (!value_of(value, &v, &number)) {
            snprintf(why, len, "trait %s: unknown value '%s' (as a number: %s)", key, value, number);
            return false;
        }
        traits[(*n)++] = (omp_trait_t){k, v};
    }
    return true;
}

static omp_handle_t parse(const char *text, char *why, size_t len)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    char *name = trim(buf);
    omp_handle_t h = colon ? OMP_NULL_ALLOCATOR : shim_predefined_by_name(name);
    if (h)
        return h;
    int m = shim_memspace_by_name(name);
    if (m < 0) {
        snprintf(why, len,
                 "'%s' is neither a predefined allocator (omp_default_mem_alloc, omp_high_bw_mem_alloc, ...) "
                 "nor a memory space (omp_default_mem_space, omp_high_bw_mem_space, ...)",
                 name);
        return OMP_NULL_ALLOCATOR;
    }
    omp_trait_t traits[16];
    int n = 0;
    shim_traits_t t;
    shim_traits_default(&t);
    if (colon && !parse_traits(colon + 1, traits, 16, &n, why, len))
        return OMP_NULL_ALLOCATOR;
    if (shim_traits_decode(n, traits, &t, why, len) != 0)
        return OMP_NULL_ALLOCATOR;
    return shim_allocator_create((omp_handle_t)m, &t, "OMP_ALLOCATOR"); /* says why if it cannot */
}

/* R0 and E, before the program can have set anything: the first call that
 * reads or sets the ICV goes through here. */
static void from_environment(void)
{
    const shim_runtime_t *rt = shim_runtime();
    if (rt->get_default_allocator)
        runtime_initial = environment = rt->get_default_allocator();
    const char *env = getenv("OMP_ALLOCATOR");
    if (!env || !*env)
        return;
    char why[512] = "";
    omp_handle_t h = parse(env, why, sizeof why);
    if (h)
        environment = h;
    else
        shim_log(LOCI_LOG_WARN, "OMP_ALLOCATOR=%s: %s; using %s", env,
                 *why ? why
                      : "no allocator could be made: its memory space has no memory here, or its traits "
                        "cannot be met (LOCI_LOG=info says which)",
                 environment == OMP_DEFAULT_MEM_ALLOC ? "omp_default_mem_alloc" : "the runtime's value");
}

/* What the runtime holds for a, and what a value it holds means: the same map. */
static omp_handle_t swap(omp_handle_t a)
{
    return a == runtime_initial ? environment : a == environment ? runtime_initial : a;
}

omp_handle_t shim_default_allocator(void)
{
    const shim_runtime_t *rt = shim_runtime();
    if (!shim_ready())
        return rt->get_default_allocator ? rt->get_default_allocator() : OMP_DEFAULT_MEM_ALLOC;
    pthread_once(&once, from_environment);
    return rt->get_default_allocator ? swap(rt->get_default_allocator()) : environment;
}

void shim_set_default_allocator(omp_handle_t a)
{
    const shim_runtime_t *rt = shim_runtime();
    if (!shim_ready()) {
        if (rt->set_default_allocator)
            rt->set_default_allocator(a);
        return;
    }
    pthread_once(&once, from_environment);
    if (a == OMP_NULL_ALLOCATOR) /* as both runtimes do */
        a = OMP_DEFAULT_MEM_ALLOC;
    if (!shim_allocator(a) && !shim_runtime_allocator(a)) {
        char name[64];
        shim_log(LOCI_LOG_WARN, "omp_set_default_allocator(%s): not a live allocator; the default stays",
                 shim_handle_name(a, name, sizeof name));
        return;
    }
    if (rt->set_default_allocator)
        rt->set_default_allocator(swap(a));
}
