"""Hot-set GUPS (tests/tier/gups.h) over 12 NumPy arrays, for `loci run --tier auto`.

Every array's data comes from NumPy's allocator — one malloc call inside NumPy's extension module,
run by CPython's eval loop for every line of the program — so a site of one return address made
all 12 one arena (issue 36). Here the arrays come from three places of the program, each through
a helper of its own, new_array, as programs do: 8 cold arrays, 2 hot in the first phase, 2 hot in
the second. A calling context of Python frames (the interposer reads them past NumPy's and
CPython's own code) tells the three apart: three arenas, each phase's hot set in one of its own.

usage: gups_numpy.py ARRAY_MIB THOUSAND_UPDATES_PER_PHASE
       gups_numpy.py ARRAY_MIB watch TARGET INTERVAL_MS
Ends with "gups_numpy: ok, data intact, N allocation sites, 12 arrays in A arenas; hot sets apart:
yes|no", asking loci through ctypes when it is in the process; exit 1 when data were lost. `watch`
(as gups.h's, where loci's view stands in for move_pages): paced updates for 15 intervals a
phase, and every interval each array's heat and target as loci's tiering sees them; says after
how many intervals the hot set's arenas were all on TARGET (a loci target name), or "never", and
fails unless within 10 intervals of each phase's start; exit 77 where no heat source works.
"""
import time
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


def run_phase(arrays, count, first_hot, rng, updates, batch=10000):
    """count updates, 90 % to arrays first_hot and first_hot + 1, in batches."""
    n, words = len(arrays), len(arrays[0])
    for _ in range(max(1, count // batch)):
        which = np.where(rng.random(batch) < 0.9, first_hot + rng.integers(0, HOT, batch), rng.integers(0, n, batch))
        where = rng.integers(0, words, batch)
        for a in range(n):
            at = where[which == a]
            np.add.at(arrays[a], at, 1)
            updates[a] += len(at)


def watched_phase(arrays, first_hot, target, interval, rng, updates):
    """Paced updates (a batch of 1,000, 10 ms asleep) for 15 intervals; the intervals after which
    loci's tiering had every hot array's arena on target, or None."""
    lib = ctypes.CDLL(None)
    lib.loci_ptr_arena.restype = ctypes.c_void_p
    lib.loci_ptr_arena.argtypes = [ctypes.c_void_p]

    class Stats(ctypes.Structure):  # loci_tier_stats_t
        _fields_ = [("bytes", ctypes.c_uint64), ("heat", ctypes.c_double), ("target", ctypes.c_void_p),
                    ("bytes_moved", ctypes.c_uint64), ("moves", ctypes.c_uint64)]

    class Info(ctypes.Structure):  # loci_target_info_t
        _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_char_p), ("numa_node", ctypes.c_int),
                    ("capacity", ctypes.c_uint64), ("available", ctypes.c_uint64), ("bandwidth_mbps", ctypes.c_uint64),
                    ("latency_ns", ctypes.c_uint64), ("source", ctypes.c_char_p), ("flags", ctypes.c_uint)]

    lib.loci_tier_stats.argtypes = [ctypes.c_void_p, ctypes.POINTER(Stats)]
    lib.loci_target_info.argtypes = [ctypes.c_void_p, ctypes.POINTER(Info)]

    def target_name(target):
        info = Info()
        return info.name.decode() if target and lib.loci_target_info(target, ctypes.byref(info)) == 0 else "?"

    start, checked, reached = time.monotonic(), 0, None
    while True:
        run_phase(arrays, 1000, first_hot, rng, updates, batch=1000)
        time.sleep(0.01)
        i = int((time.monotonic() - start) / interval)
        if i > 15:
            return reached
        if i <= checked:
            continue
        checked = i
        view, on = [], []
        for a, array in enumerate(arrays):
            st = Stats()
            lib.loci_tier_stats(lib.loci_ptr_arena(array.ctypes.data), ctypes.byref(st))
            name = target_name(st.target)
            view.append(f"{st.heat:.2f}@{name}")
            if first_hot <= a < first_hot + HOT:
                on.append(name == target)
        print(f"interval {i} ({time.monotonic() - start:.1f} s): {' '.join(view)}", flush=True)
        if all(on) and reached is None:
            reached = i


def heat_source():
    """The heat source loci's tiering uses ("none": none works here)."""

    class Totals(ctypes.Structure):  # loci_tier_totals_t
        _fields_ = [("arenas", ctypes.c_uint64), ("promoted", ctypes.c_uint64), ("demoted", ctypes.c_uint64),
                    ("pingpong", ctypes.c_uint64), ("moves", ctypes.c_uint64), ("intervals", ctypes.c_uint64),
                    ("cpu_seconds", ctypes.c_double), ("source", ctypes.c_char_p), ("paused", ctypes.c_int)]

    lib = ctypes.CDLL(None)
    lib.loci_tier_totals.argtypes = [ctypes.POINTER(Totals)]
    totals = Totals()
    lib.loci_tier_totals(ctypes.byref(totals))
    return totals.source.decode() if totals.source else "none"


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
    watch = len(sys.argv) == 5 and sys.argv[2] == "watch"
    if len(sys.argv) != 3 and not watch:
        sys.exit("usage: gups_numpy.py ARRAY_MIB THOUSAND_UPDATES_PER_PHASE | ARRAY_MIB watch TARGET INTERVAL_MS")
    words = (int(sys.argv[1]) << 20) // 8
    arrays = make(words)
    updates = [0] * len(arrays)
    rng = np.random.default_rng(88172645463325252)
    hot_sets = (len(arrays) // 2 - 1, len(arrays) - HOT)
    if watch and heat_source() == "none":
        print("gups_numpy: skipped: no heat source works here (loci's warning above says why)")
        sys.exit(77)
    missed = 0
    for phase, first_hot in enumerate(hot_sets, 1):
        if watch:
            reached = watched_phase(arrays, first_hot, sys.argv[3], int(sys.argv[4]) / 1e3, rng, updates)
            print(f"phase {phase}: hot arenas on {sys.argv[3]} after {reached if reached else 'never'} intervals")
            missed += not reached or reached > 10
        else:
            run_phase(arrays, int(sys.argv[2]) * 1000, first_hot, rng, updates)
    for a, array in enumerate(arrays):
        if int(array.sum()) != updates[a]:
            sys.exit(f"gups_numpy: array {a} sums to {int(array.sum())} after {updates[a]} updates: data lost")
    sites, arena = arenas_of(arrays)
    hot = [{arena[h], arena[h + 1]} for h in hot_sets]
    cold = {arena[a] for a in range(len(arrays)) if not any(h <= a < h + HOT for h in hot_sets)}
    apart = None not in arena and all(len(s) == 1 for s in hot) and not (hot[0] & hot[1]) and not (hot[0] | hot[1]) & cold
    if missed:
        sys.exit(f"gups_numpy: in {missed} phase(s) the hot arenas were not on {sys.argv[3]} within 10 intervals")
    print(f"gups_numpy: ok, data intact, {sites} allocation sites seen by libloci-tier, "
          f"{len(arrays)} arrays in {len(set(arena) - {None})} arenas; hot sets apart: {'yes' if apart else 'no'} "
          f"(numpy {np.__version__})")


main()
