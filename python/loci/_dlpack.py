"""DLPack export (https://dmlc.github.io/dlpack/): a PyCapsule holding a
managed tensor over loci memory. Consumers that ask for DLPack 1.0
(max_version, as NumPy 2's from_dlpack does) get a "dltensor_versioned"
capsule, whose flags say when the memory is read-only or a copy; older
consumers (NumPy 1.x) get the unversioned "dltensor". The tensor keeps its
owner (a Block, or the copy) alive until the consumer calls the deleter, or
until the capsule is dropped unconsumed."""
import ctypes

import numpy as np

DEVICE_CPU = 1  # kDLCPU

_KIND_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}  # kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool

VERSION = (1, 0)  # the DLPack version of the versioned capsules made here
FLAG_READ_ONLY = 1 << 0  # DLPACK_FLAG_BITMASK_READ_ONLY
FLAG_IS_COPIED = 1 << 1  # DLPACK_FLAG_BITMASK_IS_COPIED


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _ManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _ManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _Version), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", _Tensor)]


_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

# address of each exported managed tensor -> what it keeps alive (the
# structure itself, its shape array, the owner of the memory)
_live = {}


def _delete(managed):
    _live.pop(managed, None)


def _capsule_destructor(name):
    def destroy(capsule):
        # Still carrying its name: no consumer took it (a consumer renames it
        # "used_..."), so the tensor is ours to delete.
        if _api.PyCapsule_IsValid(capsule, name):
            _delete(_api.PyCapsule_GetPointer(capsule, name))
    return name, _CAPSULE_DESTRUCTOR(destroy)


_deleter = _DELETER(_delete)
_LEGACY = _capsule_destructor(b"dltensor")
_VERSIONED = _capsule_destructor(b"dltensor_versioned")


def exported():
    """How many DLPack tensors are held by consumers (for tests and leak checks)."""
    return len(_live)


def check_device(dl_device):
    """A consumer may name the device it wants the tensor on: loci's arrays are CPU memory."""
    if dl_device is not None and tuple(dl_device) != (DEVICE_CPU, 0):
        raise BufferError(f"loci: DLPack export to device {tuple(dl_device)} was asked; "
                          f"loci arrays are CPU memory ({DEVICE_CPU}, 0) and are not moved by DLPack")


def data_type(dtype):
    """DLPack's name for a numpy dtype (BufferError for those it has none for)."""
    dt = np.dtype(dtype)
    code = _KIND_CODES.get(dt.kind)
    if code is None or dt.fields is not None or dt.itemsize * 8 > 255:
        raise BufferError(f"loci: DLPack has no type for dtype {dt}; use a number or bool dtype")
    return _DataType(code, dt.itemsize * 8, 1)


def export_dlpack(owner, ptr, shape, dl_type, max_version=None, readonly=False, copied=False):
    """A capsule for the C-contiguous array of `dl_type` (data_type) and `shape`
    at ptr: versioned when the consumer's max_version accepts DLPack 1.x."""
    versioned = max_version is not None and max_version[0] >= VERSION[0]
    m = _ManagedTensorVersioned() if versioned else _ManagedTensor()
    dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    t = m.dl_tensor
    t.data = ptr
    t.device = _Device(DEVICE_CPU, 0)
    t.ndim = len(shape)
    t.dtype = dl_type
    t.shape = dims
    t.strides = None  # compact row-major
    t.byte_offset = 0
    m.deleter = _deleter
    if versioned:
        m.version = _Version(*VERSION)
        m.flags = (FLAG_READ_ONLY if readonly else 0) | (FLAG_IS_COPIED if copied else 0)
    # An unversioned tensor cannot say it is read-only; NumPy 1.x imports every
    # DLPack tensor read-only, which keeps read-only regions safe there.
    name, destructor = _VERSIONED if versioned else _LEGACY
    address = ctypes.addressof(m)
    _live[address] = (m, dims, owner)
    return _api.PyCapsule_New(address, name, destructor)
