"""Hot-set GUPS (tests/tier/gups.h) over 12 NumPy arrays, for `loci run --tier auto`.

Every array's data comes from NumPy's allocator — one malloc call inside NumPy's extension module,
run by CPython's eval loop for every line of the program — so a site of one return address made
all 12 one arena (issue 36). Each array here is made by a line of its own through a helper of
the program's, new_array, as programs do; a calling context of Python frames (the interposer
reads them past NumPy's and CPython's own code) tells them apart by those lines.

usage: gups_numpy.py ARRAY_MIB THOUSAND_UPDATES_PER_PHASE
Ends with "gups_numpy: ok, data intact, N allocation sites, 12 arrays in A arenas", asking loci
through ctypes when it is in the process; exit 1 when data were lost.
"""
import ctypes
import sys

import numpy as np

HOT = 2


def new_array(words):
    return np.zeros(words, dtype=np.uint64)


def make(words):
    return [
        new_array(words),
        new_array(words),
        new_array(words),
        new_array(words),
        new_array(words),
        new_array(words),
        new_array(words),
        new_array(words),
        new_array(words),
        new_array(words),
        new_array(words),
        new_array(words),
    ]


def run_phase(arrays, count, first_hot, rng, updates):
    """count updates, 90 % to arrays first_hot and first_hot + 1, in batches."""
    n, words = len(arrays), len(arrays[0])
    for _ in range(max(1, count // 10000)):
        which = np.where(rng.random(10000) < 0.9, first_hot + rng.integers(0, HOT, 10000), rng.integers(0, n, 10000))
        where = rng.integers(0, words, 10000)
        for a in range(n):
            at = where[which == a]
            np.add.at(arrays[a], at, 1)
            updates[a] += len(at)


def arenas_of(arrays):
    """The loci arenas holding the arrays' data (none when loci is not in the process)."""
    lib = ctypes.CDLL(None)
    try:
        lib.loci_ptr_arena.restype = ctypes.c_void_p
        lib.loci_ptr_arena.argtypes = [ctypes.c_void_p]
        lib.loci_tier_sites.restype = ctypes.c_int
        lib.loci_tier_sites.argtypes = [ctypes.c_void_p, ctypes.c_int]
    except AttributeError:
        return -1, set()
    return lib.loci_tier_sites(None, 0), {lib.loci_ptr_arena(a.ctypes.data) for a in arrays} - {None}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gups_numpy.py ARRAY_MIB THOUSAND_UPDATES_PER_PHASE")
    words = (int(sys.argv[1]) << 20) // 8
    count = int(sys.argv[2]) * 1000
    arrays = make(words)
    updates = [0] * len(arrays)
    rng = np.random.default_rng(88172645463325252)
    for first_hot in (len(arrays) // 2 - 1, len(arrays) - HOT):
        run_phase(arrays, count, first_hot, rng, updates)
    for a, array in enumerate(arrays):
        if int(array.sum()) != updates[a]:
            sys.exit(f"gups_numpy: array {a} sums to {int(array.sum())} after {updates[a]} updates: data lost")
    sites, arenas = arenas_of(arrays)
    print(f"gups_numpy: ok, data intact, {sites} allocation sites seen by libloci-tier, "
          f"{len(arrays)} arrays in {len(arenas)} arenas (numpy {np.__version__})")


main()
