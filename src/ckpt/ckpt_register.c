/*
 * The registered checkpoint variables: name and range, no two overlapping
 * (a byte restored twice from different chunks would depend on the order).
 * Saves and restores take a snapshot of them, with the regions open here,
 * so that registering from another thread meanwhile is safe.
 */
#include "os/vm.h"
#include "alloc/allocator.h"
#include "ckpt/ckpt.h"
#include "grow.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char name[NVM_NAME_MAX + 1];
    const char *base;
    size_t size;
} var_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static var_t *vars;
static size_t nvars, cap;

int loci_ckpt_register(const char *name, const void *ptr, size_t len)
{
    int rc = topo_ensure();
    if (rc == 0)
        rc = region_check_name("checkpoint variable", name);
    if (rc != 0)
        return rc;
    if (!ptr || len == 0)
        return loci__fail(LOCI_EINVAL, "checkpoint variable \"%s\": %s; register a non-empty range", name,
                          !ptr ? "NULL address" : "length 0");
    if ((uintptr_t)ptr + len < (uintptr_t)ptr)
        return loci__fail(LOCI_EINVAL, "checkpoint variable \"%s\": %zu bytes from %p wrap around", name, len, ptr);
    const loci_target_t *t = pool_target_of(ptr); /* GPU memory is never in a shared arena */
    if (t && !(t->flags & LOCI_TARGET_CPU_ACCESSIBLE))
        return loci__fail(LOCI_ENOTSUP, "checkpoint variable \"%s\": %p is on %s, which the CPU cannot read", name,
                          ptr, t->name);
    if (!t && provider_cuda_device_pointer(ptr))
        return loci__fail(LOCI_ENOTSUP, "checkpoint variable \"%s\": %p is GPU device memory, which the CPU cannot "
                                        "read; copy it to host memory and register that", name, ptr);
    if (!vm_accessible(ptr, len, false))
        return loci__fail(LOCI_ENOTSUP, "checkpoint variable \"%s\": the CPU cannot read all of its %zu bytes at %p "
                                        "(PROT_NONE or not mapped); register memory the program can read",
                          name, len, ptr);
    const char *b = ptr;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nvars && rc == 0; i++) {
        if (strcmp(vars[i].name, name) == 0)
            rc = loci__fail(LOCI_EEXIST, "checkpoint variable \"%s\" is registered already (%zu bytes at %p); "
                                         "unregister it first or choose another name", name, vars[i].size,
                            (const void *)vars[i].base);
        else if (b < vars[i].base + vars[i].size && vars[i].base < b + len)
            rc = loci__fail(LOCI_EINVAL, "checkpoint variable \"%s\" (%zu bytes at %p) overlaps variable \"%s\" "
                                         "(%zu bytes at %p); a byte may belong to one variable only", name, len, ptr,
                            vars[i].name, vars[i].size, (const void *)vars[i].base);
    }
    if (rc == 0) {
        var_t *v = grow_for_one(vars, nvars, &cap, sizeof *v, 16);
        if (!v)
            rc = loci__fail(LOCI_ENOMEM, "out of memory registering checkpoint variable \"%s\"", name);
        else
            vars = v;
    }
    if (rc == 0) {
        var_t *v = &vars[nvars++];
        snprintf(v->name, sizeof v->name, "%s", name);
        v->base = b;
        v->size = len;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

int loci_ckpt_unregister(const char *name)
{
    int rc = region_check_name("checkpoint variable", name);
    if (rc != 0)
        return rc;
    rc = LOCI_ENOENT;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nvars && rc != 0; i++)
        if (strcmp(vars[i].name, name) == 0) {
            vars[i] = vars[--nvars];
            rc = 0;
        }
    pthread_mutex_unlock(&lock);
    return rc ? loci__fail(rc, "checkpoint variable \"%s\" is not registered", name) : 0;
}

typedef struct {
    ckpt_item_t *items;
    size_t n, cap;
} list_t;

static bool append(list_t *l, const char *name, ckpt_kind_t kind, const void *base, size_t size, bool paged)
{
    ckpt_item_t *v = grow_for_one(l->items, l->n, &l->cap, sizeof *v, 16);
    if (!v)
        return false;
    l->items = v;
    ckpt_item_t *it = &l->items[l->n++];
    snprintf(it->name, sizeof it->name, "%s", name);
    it->kind = kind;
    it->base = (void *)base;
    it->size = size;
    it->paged = paged;
    return true;
}

/* Read-only regions cannot be restored and are no state of this process. */
static void add_region(const char *name, void *base, size_t size, unsigned flags, const provider_ops_t *ops,
                       void *arg)
{
    list_t *l = arg;
    if (!(flags & LOCI_READONLY) && l->cap != SIZE_MAX && !append(l, name, CKPT_REGION, base, size, provider_has(ops, PROVIDER_CHUNKED)))
        l->cap = SIZE_MAX; /* out of memory: say so below */
}

int ckpt_entry_check(const char *ckpt)
{
    int rc = topo_ensure();
    return rc ? rc : region_check_name("checkpoint", ckpt);
}

int ckpt_begin(const char *ckpt, const char *what, ckpt_item_t **out, size_t *n)
{
    int rc = ckpt_entry_check(ckpt);
    if (rc != 0)
        return rc;
    list_t l = {0};
    bool ok = true;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nvars && ok; i++)
        ok = append(&l, vars[i].name, CKPT_MEMORY, vars[i].base, vars[i].size, false);
    pthread_mutex_unlock(&lock);
    if (ok)
        region_foreach(add_region, &l);
    if (!ok || l.cap == SIZE_MAX || l.n == 0) {
        free(l.items);
        return !ok || l.cap == SIZE_MAX
                   ? loci__fail(LOCI_ENOMEM, "out of memory listing the checkpoint variables")
                   : loci__fail(LOCI_ENOENT, "checkpoint \"%s\": nothing to %s (register variables with "
                                             "loci_ckpt_register, or open persistent regions)", ckpt, what);
    }
    *out = l.items;
    *n = l.n;
    return 0;
}

void ckpt_register_fini(void)
{
    pthread_mutex_lock(&lock);
    free(vars);
    vars = NULL;
    nvars = cap = 0;
    pthread_mutex_unlock(&lock);
}
