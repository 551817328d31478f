"""python3 under `loci run --tier auto` (tests/tier): an interpreter nobody built for loci.
Its big buffers (malloc'd by CPython) must land in loci arenas, its small objects not, and the
data must survive; asked through ctypes of the preloaded libloci-tier.so and libloci.so."""
import ctypes
import sys

lib = ctypes.CDLL(None)  # the process's global scope: the preloaded libraries are in it
try:
    lib.loci_tier_threshold.restype = ctypes.c_size_t
    lib.loci_ptr_arena.restype = ctypes.c_void_p
    lib.loci_ptr_arena.argtypes = [ctypes.c_void_p]
except AttributeError as e:
    sys.exit(f"tier_python: libloci-tier.so is not loaded ({e}): run me under loci run --tier auto")


def address(buf):
    return ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))


def fail(what):
    sys.exit(f"tier_python: {what}")


if lib.loci_tier_threshold() != 64 * 1024:
    fail(f"threshold {lib.loci_tier_threshold()}, expected the default 64 KiB")
big = [bytearray(range(256)) * (4096 * (i + 1)) for i in range(4)]  # 1 to 4 MiB
small = bytearray(b"x" * 1000)
for i, b in enumerate(big):
    if not lib.loci_ptr_arena(address(b)):
        fail(f"a {len(b)}-byte bytearray is not in a loci arena")
    if b[12345] != 12345 % 256 or b[-1] != 255:
        fail(f"bytearray {i}: data changed")
if lib.loci_ptr_arena(address(small)):
    fail("a 1000-byte bytearray is in a loci arena")
grown = bytearray(100)
grown.extend(b"y" * (2 << 20))  # realloc of a small block to 2 MiB
if not lib.loci_ptr_arena(address(grown)) or grown[:100] != bytes(100) or grown[-1:] != b"y":
    fail("a bytearray grown to 2 MiB is not in an arena, or lost its data")
print(f"tier_python: ok, {sum(map(len, big)) >> 20} MiB in arenas")
