"""ember and NumPy share memory through DLPack, both ways (run by numpy_dlpack_test.cpp with the
path of dlpack_shim's library): an array over ember's memory, ember's view of a NumPy array that
sees NumPy's writes, and each side's memory outliving the other's hold on it. Exits 1 naming the
first check that fails."""
import ctypes
import sys

import numpy as np

lib = ctypes.CDLL(sys.argv[1])
lib.ember_shim_export.restype = ctypes.c_void_p
lib.ember_shim_import.argtypes = [ctypes.c_void_p]
lib.ember_shim_sum.restype = ctypes.c_double
lib.ember_shim_data.restype = ctypes.c_void_p

capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_rename = ctypes.pythonapi.PyCapsule_SetName
capsule_rename.argtypes = [ctypes.py_object, ctypes.c_char_p]


def check(condition, what):
    if not condition:
        print("numpy_dlpack.py: " + what, file=sys.stderr)
        sys.exit(1)


class Exported:
    """What np.from_dlpack asks for: a producer with __dlpack__ and __dlpack_device__."""

    def __init__(self, managed):
        self.capsule = capsule_new(managed, b"dltensor", None)

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0


# ember -> NumPy: the array lies in ember's memory (NumPy marks it read-only), and keeps it after
# ember lets go.
a = np.from_dlpack(Exported(lib.ember_shim_export()))
check(a.dtype == np.float32 and a.shape == (2, 3), f"exported {a.dtype} {a.shape}")
check(a.ctypes.data == lib.ember_shim_data(), "the array does not lie in ember's memory")
lib.ember_shim_release()
check(a.tolist() == [[1, 2, 3], [4, 5, 6]], f"NumPy reads {a.tolist()} after ember let go")
del a

# NumPy -> ember: NumPy writes, ember reads.
b = np.arange(6, dtype=np.float32).reshape(2, 3)
capsule = b.__dlpack__()
check(lib.ember_shim_import(capsule_pointer(capsule, b"dltensor")) == 0, "import refused")
capsule_rename(capsule, b"used_dltensor")  # ember owns it now: the capsule must not free it
b += 10
check(lib.ember_shim_sum() == 75, f"ember reads {lib.ember_shim_sum()} after NumPy's write")
lib.ember_shim_release()
check(b.sum() == 75, f"NumPy reads {b.sum()} after ember let go")
