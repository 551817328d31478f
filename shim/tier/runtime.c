/*
 * Whose code a return address is: the program's, or that of an allocator
 * or language runtime the program allocates through. A calling context
 * skips the runtimes' frames — libc (strdup, asprintf), C++'s operator new
 * and the rest of the C++ runtime, Fortran's, the OpenMP runtimes, loci's own front
 * ends, CPython and everything installed in its lib/python directories
 * (the standard library's and site- or dist-packages' extension modules,
 * NumPy's among them, with the libraries their wheels bring) — so that the
 * site is where the program asked, not where the wrapper did. CPython's
 * eval loop is told apart: past it, the Python frames say who asked.
 *
 * Known without the program's help, from the module holding the address:
 * glibc's _dl_find_object (lock-free, allocates nothing, as a malloc may
 * need) gives its link map, whose file name decides; the answer is cached
 * per link map in a small lock-free table. A module unloaded and another
 * loaded at its link map's address keeps the first one's answer: a wrong
 * skip at worst, never a fault.
 */
#include "tier.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>

/* File names (the part after the last '/') of the runtimes' modules. */
static const char *const runtimes[] = {
    "libc.so",    "ld-linux",  "libstdc++.so", "libgcc_s.so", "libc++.so", "libc++abi.so", "libgfortran.so",
    "libgomp.so", "libomp.so", "libiomp5.so",  "libpython",   "libloci",
};
/* CPython's installed code: its standard library and packages, native and not. */
#define PYTHON_LIBRARY "/lib/python"

static _Atomic(struct link_map *) interpreter;

#define CACHE_SLOTS 128 /* link maps: every module of a big program, a few probes each */
#define CACHE_PROBES 8
/* A link map's address with its kind + 1 in the low two bits (link maps are
 * 8-byte aligned); 0: a free slot. */
static _Atomic uintptr_t cache[CACHE_SLOTS];

void runtime_setup(const void *in_interpreter)
{
    struct dl_find_object found;
    if (in_interpreter && _dl_find_object((void *)in_interpreter, &found) == 0)
        atomic_store_explicit(&interpreter, found.dlfo_link_map, memory_order_release);
}

static code_kind_t classify(struct link_map *map)
{
    if (map == atomic_load_explicit(&interpreter, memory_order_acquire))
        return CODE_INTERPRETER;
    const char *path = map->l_name;
    if (!path || !path[0])
        return CODE_PROGRAM; /* the executable */
    if (strstr(path, PYTHON_LIBRARY))
        return CODE_RUNTIME;
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; i++)
        if (strncmp(name, runtimes[i], strlen(runtimes[i])) == 0)
            return CODE_RUNTIME;
    return CODE_PROGRAM;
}

code_kind_t runtime_code_kind(const void *pc)
{
    struct dl_find_object found;
    if (_dl_find_object((void *)pc, &found) != 0)
        return CODE_PROGRAM; /* outside every module (JIT code): the program's, as far as anyone can tell */
    uintptr_t map = (uintptr_t)found.dlfo_link_map;
    size_t slot = (size_t)((map >> 4) * 0x9E3779B97F4A7C15ull >> 57) % CACHE_SLOTS;
    for (int probe = 0; probe < CACHE_PROBES; probe++, slot = (slot + 1) % CACHE_SLOTS) {
        uintptr_t entry = atomic_load_explicit(&cache[slot], memory_order_relaxed);
        if ((entry & ~(uintptr_t)3) == map)
            return (code_kind_t)((entry & 3) - 1);
        if (entry == 0) {
            code_kind_t kind = classify(found.dlfo_link_map);
            atomic_compare_exchange_strong(&cache[slot], &entry, map | ((uintptr_t)kind + 1));
            return kind; /* another thread took the slot meanwhile: asked again next time */
        }
    }
    return classify(found.dlfo_link_map); /* the table is full around here: asked each time */
}
