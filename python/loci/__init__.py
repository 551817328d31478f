"""loci for Python: numpy arrays in memory placed by intent.

    import loci
    loci.targets()                                  # what `loci info` shows
    a = loci.empty((1024, 1024), "f8", intent="bandwidth=high")
    loci.target_of(a)                               # where it lives
    with loci.Arena("kind=cxl") as ar:
        b = ar.zeros(1 << 20, "f4"); ar.move("dram0")
    r = loci.region("state", (100,), "i8", create=True)   # survives the process
    with loci.Arena("bandwidth=high,tier=auto") as ar:   # placed by measured heat
        c = ar.zeros(1 << 20); ar.tier_stats(); loci.tier_totals()

Memory is freed when the last array or view referring to it is gone. Errors
are LociError (with .code and loci's .message), also ValueError, MemoryError
or LookupError where those fit. docs/PYTHON.md is the manual.
"""
from . import checkpoint
from ._alloc import Arena, empty, zeros
from ._dlpack import exported as dlpack_exported
from ._lib import BusyError, ExistsError, InvalidError, LociError, NoMemoryError, NotFoundError
from ._memory import Block, block_of
from ._nvm import evict, flush, prefetch, region, remove_region, sync
from ._targets import Target, init, initiator, refresh, resolve, target, target_of, targets
from ._tier import TierStats, TierTotals, tier_totals

__version__ = "0.1.0"
__all__ = [
    "Arena", "Block", "BusyError", "ExistsError", "InvalidError", "LociError", "NoMemoryError",
    "NotFoundError", "Target", "block_of", "checkpoint", "dlpack_exported", "empty", "evict",
    "flush", "init", "initiator", "prefetch", "refresh", "region", "remove_region", "resolve", "sync",
    "target", "target_of", "targets", "zeros", "TierStats", "TierTotals", "tier_totals",
]
