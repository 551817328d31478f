"""DLPack export (https://dmlc.github.io/dlpack/): a PyCapsule "dltensor"
holding a DLManagedTensor over loci memory. The tensor keeps its owner (a
Block) alive until the consumer calls the deleter, or until the capsule is
dropped unconsumed."""
import ctypes

import numpy as np

DEVICE_CPU = 1  # kDLCPU

_KIND_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}  # kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool


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


_CAPSULE_NAME = b"dltensor"
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

# address of each exported DLManagedTensor -> what it keeps alive (the
# structure itself, its shape array, the owner of the memory)
_live = {}


def _delete(managed):
    _live.pop(managed, None)


def _destroy_capsule(capsule):
    # Still named "dltensor": no consumer took it, so the tensor is ours to delete.
    if _api.PyCapsule_IsValid(capsule, _CAPSULE_NAME):
        _delete(_api.PyCapsule_GetPointer(capsule, _CAPSULE_NAME))


_deleter = _DELETER(_delete)
_destructor = _CAPSULE_DESTRUCTOR(_destroy_capsule)


def exported():
    """How many DLPack tensors are held by consumers (for tests and leak checks)."""
    return len(_live)


def export_dlpack(owner, ptr, shape, dtype):
    """A "dltensor" capsule for the C-contiguous array of `dtype` and `shape` at ptr."""
    dt = np.dtype(dtype)
    code = _KIND_CODES.get(dt.kind)
    if code is None or dt.fields is not None or dt.itemsize * 8 > 255:
        raise BufferError(f"loci: DLPack has no type for dtype {dt}; use a number or bool dtype")
    dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    m = _ManagedTensor()
    m.dl_tensor.data = ptr
    m.dl_tensor.device = _Device(DEVICE_CPU, 0)
    m.dl_tensor.ndim = len(shape)
    m.dl_tensor.dtype = _DataType(code, dt.itemsize * 8, 1)
    m.dl_tensor.shape = dims
    m.dl_tensor.strides = None  # compact row-major
    m.dl_tensor.byte_offset = 0
    m.deleter = _deleter
    address = ctypes.addressof(m)
    _live[address] = (m, dims, owner)
    return _api.PyCapsule_New(address, _CAPSULE_NAME, _destructor)
