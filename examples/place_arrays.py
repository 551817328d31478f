"""Python: numpy arrays placed by intent (docs/PYTHON.md).

    python3 examples/place_arrays.py ["intent"]

Places a field per the intent (default "bandwidth=high"), two arrays in an
arena moved to the ssd0 tier and back, and checkpoints a state array.
"""
import sys

import numpy as np

import loci

intent = sys.argv[1] if len(sys.argv) > 1 else "bandwidth=high"
for t in loci.targets():
    print(f"{t.name:6} {t.kind:5} node {t.numa_node:2}  {t.capacity >> 30} GiB  ({t.source})")

field = loci.zeros((1000, 1000), "f8", intent=intent)
field += 1.0
print(f"{intent}: field on {loci.target_of(field).name}, ranked {[t.name for t in loci.resolve(intent)]}, "
      f"sum {field.sum():.0f}")

with loci.Arena() as arena:
    a = arena.empty(100_000, "i8")
    b = arena.empty(100_000, "i8")
    a[:] = np.arange(a.size)
    b[:] = a + 1
    home = arena.target
    arena.move("ssd0")
    print(f"arena on {loci.target_of(a).name}", end=", ")
    arena.move(home)
    print(f"back on {loci.target_of(a).name}, a.b = {int(a @ b)}")
    assert int(a @ b) == 333333333300000

state = loci.zeros(1 << 16, "f4")
state[:] = 3.0
loci.checkpoint.register("example-state", state)
loci.checkpoint.save("example")
state[:] = 0.0
loci.checkpoint.restore("example")
print(f"restored from checkpoint: {state[:3]}")
loci.checkpoint.unregister("example-state")
loci.checkpoint.remove("example")
