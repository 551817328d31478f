"""What automatic tiering did (docs/TIERING.md, "Seeing it"): an auto
arena's size, heat, target and bytes moved (Arena.tier_stats), and the
process's totals (tier_totals) — loci_tier_stats and loci_tier_totals."""
import ctypes
from dataclasses import dataclass

from . import _lib
from ._lib import lib
from ._targets import Target


@dataclass(frozen=True)
class TierStats:
    """One tier=auto arena as tiering saw it at its last interval."""
    bytes: int          # its memory
    heat: float         # share of its memory found accessed per interval, smoothed (0..1)
    target: Target      # where it is now
    bytes_moved: int    # by tiering, all moves together
    moves: int


@dataclass(frozen=True)
class TierTotals:
    """Tiering of the whole process since its first auto arena."""
    arenas: int
    bytes_promoted: int
    bytes_demoted: int
    bytes_pingpong: int  # moved back where they came from within 10 intervals
    moves: int
    intervals: int
    cpu_seconds: float   # the tiering thread's and its heat source's
    source: str          # "perf", "damon", "faults" or "none"
    paused: bool         # the source stopped working: nothing moves any more


def arena_stats(handle):
    s = _lib.TierStats()
    _lib.check(lib.loci_tier_stats(handle, ctypes.byref(s)), "loci_tier_stats")
    return TierStats(s.bytes, s.heat, Target(s.target), s.bytes_moved, s.moves)


def tier_totals():
    """The process's tiering totals (zeros before its first auto arena)."""
    t = _lib.TierTotals()
    _lib.check(lib.loci_tier_totals(ctypes.byref(t)), "loci_tier_totals")
    return TierTotals(t.arenas, t.bytes_promoted, t.bytes_demoted, t.bytes_pingpong, t.moves,
                      t.intervals, t.cpu_seconds, _lib.text(t.source), bool(t.paused))
