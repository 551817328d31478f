"""Checkpoint and restart of arrays and persistent regions (docs/CHECKPOINT.md).

register(name, array) makes every save() store the array's bytes and every
restore() write them back in place; open read-write regions are included by
name. A registered array is kept alive until unregistered."""
import ctypes
import threading
from collections import namedtuple

from . import _lib
from ._lib import lib
from ._memory import data_range, memory_of

Info = namedtuple("Info", "name seq saved vars bytes chunks")

_registered = {}
_lock = threading.Lock()


def register(name, array):
    """Save and restore the bytes of `array` (contiguous; any memory, loci's or not) as `name`.
    A list or other object numpy would copy is refused: restore would write the copy."""
    a = memory_of(array)
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        raise _lib.error(_lib.EINVAL, "checkpoint.register",
                         f"array {name!r} is not contiguous: its bytes are not one range; "
                         "register a contiguous copy or its base")
    ptr, n = data_range(a)
    with _lock:
        _lib.check(lib.loci_ckpt_register(_lib.encode(name, "variable name"), ptr, n), "loci_ckpt_register")
        _registered[name] = a


def unregister(name):
    with _lock:
        _lib.check(lib.loci_ckpt_unregister(_lib.encode(name, "variable name")), "loci_ckpt_unregister")
        _registered.pop(name, None)


def save(ckpt):
    _lib.check(lib.loci_ckpt_save(_lib.encode(ckpt, "checkpoint name")), "loci_ckpt_save")


def restore(ckpt):
    _lib.check(lib.loci_ckpt_restore(_lib.encode(ckpt, "checkpoint name")), "loci_ckpt_restore")


def verify(ckpt):
    _lib.check(lib.loci_ckpt_verify(_lib.encode(ckpt, "checkpoint name")), "loci_ckpt_verify")


def remove(ckpt):
    _lib.check(lib.loci_ckpt_remove(_lib.encode(ckpt, "checkpoint name")), "loci_ckpt_remove")


def list():  # noqa: A001 - the module's vocabulary: checkpoint.list()
    """The checkpoints of the checkpoint directory, oldest first."""
    n = _lib.check(lib.loci_ckpt_list(None, 0), "loci_ckpt_list")
    out = (_lib.CkptInfo * max(n, 1))()
    n = min(n, _lib.check(lib.loci_ckpt_list(out, n), "loci_ckpt_list"))
    return [Info(i.name.decode(), i.seq, i.saved, i.vars, i.bytes, i.chunks) for i in out[:n]]


def gc():
    """Delete the chunks no checkpoint refers to; returns what was done as a dict."""
    g = _lib.CkptGc()
    _lib.check(lib.loci_ckpt_gc(ctypes.byref(g)), "loci_ckpt_gc")
    return {f: getattr(g, f) for f, _ in _lib.CkptGc._fields_}
