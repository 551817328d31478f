/*
 * def-allocator-var: the allocator behind omp_null_allocator. Per thread, as
 * in both runtimes; its first value comes from OMP_ALLOCATOR (OpenMP 5.1):
 * a predefined allocator's name, or a memory space's name with optional
 * traits, e.g. "omp_high_bw_mem_space:alignment=64,pinned=true". A malformed
 * value is reported, naming the part at fault, and ignored.
 */
#include "shim.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local omp_handle_t thread_default; /* 0: the process's */
static omp_handle_t process_default = OMP_DEFAULT_MEM_ALLOC;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static char *trim(char *s)
{
    s += strspn(s, " \t");
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* A trait value: a name ("null_fb"), a predefined allocator (for fb_data) or a number. */
static bool value_of(const char *v, uintptr_t *out)
{
    if (shim_trait_value(v, out) || (*out = shim_predefined_by_name(v)))
        return true;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    *out = (uintptr_t)x;
    return *v >= '0' && *v <= '9' && !*end && !errno;
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
        if (!value_of(value, &v)) {
            snprintf(why, len, "trait %s: unknown value '%s'", key, value);
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

static void from_environment(void)
{
    const char *env = getenv("OMP_ALLOCATOR");
    if (!env || !*env)
        return;
    char why[512] = "";
    omp_handle_t h = parse(env, why, sizeof why);
    if (h)
        process_default = h;
    else
        shim_log(SHIM_WARN, "OMP_ALLOCATOR=%s: %s; using omp_default_mem_alloc", env,
                 *why ? why : "no allocator could be made");
}

omp_handle_t shim_default_allocator(void)
{
    if (!shim_ready())
        return shim_runtime()->get_default_allocator ? shim_runtime()->get_default_allocator()
                                                     : OMP_DEFAULT_MEM_ALLOC;
    if (thread_default)
        return thread_default;
    pthread_once(&once, from_environment);
    return process_default;
}

void shim_set_default_allocator(omp_handle_t a)
{
    if (!shim_ready()) {
        if (shim_runtime()->set_default_allocator)
            shim_runtime()->set_default_allocator(a);
        return;
    }
    if (!shim_allocator(a) && !shim_runtime_allocator(a)) {
        char name[64];
        shim_log(SHIM_WARN, "omp_set_default_allocator(%s): not a live allocator; the default stays",
                 shim_handle_name(a, name, sizeof name));
        return;
    }
    thread_default = a;
}
