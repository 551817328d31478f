"""Hot-set GUPS (tests/tier/gups.h) over 12 NumPy arrays, for `loci run --tier auto`.

Every array's data comes from NumPy's allocator — one malloc call inside NumPy's extension module,
run by CPython's eval loop for every line of the program — so a site of one return address made
all 12 one arena (issue 36). Here the arrays come from three places of the program, each through
a helper of its own, new_array, as programs do: 8 cold arrays, 2 hot in the first phase, 2 hot in
the second. A calling context of Python frames (the interposer reads them past NumPy's and
CPython's own code) tells the three apart: three arenas, each phase's hot set in one of its own.

usage: gups_numpy.py ARRAY_MIB THOUSAND_UPDATES_PER_PHASE
Ends with "gups_numpy: ok, data intact, N allocation sites, 12 arrays in A arenas; hot sets apart:
yes|no", asking loci through ctypes when it is in the process; exit 1 when data were lost.
"""
import ctypes
import sys

import numpy as np

HOT = 2


def new_array(words):
    return np.zeros(words, dtype=np.uint64)


def make(words):
    """The arrays in gups.h's order: the hot sets are 5, 6 and 10, 11."""
    cold = [new_array(words) for _ in range(8)]
    first_hot = [new_array(words) for _ in range(HOT)]
    second_hot = [new_array(words) for _ in range(HOT)]
    return cold[:5] + first_hot + cold[5:] + second_hot


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
    """The loci arena of each array's data (None: not loci's), and the sites the interposer saw."""
    lib = ctypes.CDLL(None)
    try:
        lib.loci_ptr_arena.restype = ctypes.c_void_p
        lib.loci_ptr_arena.argtypes = [ctypes.c_void_p]
        lib.loci_tier_sites.restype = ctypes.c_int
        lib.loci_tier_sites.argtypes = [ctypes.c_void_p, ctypes.c_int]
    except AttributeError:
        return -1, [None] * len(arrays)
    return lib.loci_tier_sites(None, 0), [lib.loci_ptr_arena(a.ctypes.data) for a in arrays]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gups_numpy.py ARRAY_MIB THOUSAND_UPDATES_PER_PHASE")
    words = (int(sys.argv[1]) << 20) // 8
    count = int(sys.argv[2]) * 1000
    arrays = make(words)
    updates = [0] * len(arrays)
    rng = np.random.default_rng(88172645463325252)
    hot_sets = (len(arrays) // 2 - 1, len(arrays) - HOT)
    for first_hot in hot_sets:
        run_phase(arrays, count, first_hot, rng, updates)
    for a, array in enumerate(arrays):
        if int(array.sum()) != updates[a]:
            sys.exit(f"gups_numpy: array {a} sums to {int(array.sum())} after {updates[a]} updates: data lost")
    sites, arena = arenas_of(arrays)
    hot = [{arena[h], arena[h + 1]} for h in hot_sets]
    cold = {arena[a] for a in range(len(arrays)) if not any(h <= a < h + HOT for h in hot_sets)}
    apart = None not in arena and all(len(s) == 1 for s in hot) and not (hot[0] & hot[1]) and not (hot[0] | hot[1]) & cold
    print(f"gups_numpy: ok, data intact, {sites} allocation sites seen by libloci-tier, "
          f"{len(arrays)} arrays in {len(set(arena) - {None})} arenas; hot sets apart: {'yes' if apart else 'no'} "
          f"(numpy {np.__version__})")


main()
