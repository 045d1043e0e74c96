#!/usr/bin/env python3
"""NumPy's side of tests/record/numpy_interop_test.cpp.

usage: numpy_interop.py DIR

1. Loads the files ember wrote in DIR (ember_*.npy, ember.npz) with np.load, checks their dtypes,
   shapes and values (computed here, independently), and that each .npy file is byte for byte
   what np.save writes for the same array.
2. Writes files with np.save, np.savez and np.savez_compressed (C order, Fortran order, big-endian)
   for the test to read back: np_*.npy, np_savez.npz, np_compressed.npz.
Exits 1, saying what differs, on a mismatch.
"""
import io
import os
import sys

import numpy as np

# The values both sides compute for a dtype, by element index i (the test spells out the same).
def values(descr, count):
    i = np.arange(count)
    kind = np.dtype(descr).kind
    if kind == "f":
        return (i * 0.5 - 3).astype(descr)
    if kind == "i":
        return (i * 7 - 20).astype(descr)
    if kind == "u":
        return (i * 7).astype(descr)
    return (i % 3 == 0).astype(descr)


DESCRS = ["<f8", "<f4", "<f2", "<i8", "<i4", "<i2", "|i1", "<u8", "<u4", "<u2", "|u1", "|b1"]
failures = []


def check(name, got, expected):
    if got.dtype != expected.dtype or got.shape != expected.shape or not np.array_equal(got, expected):
        failures.append(f"{name}: got {got.dtype} {got.shape} {got!r}, expected {expected.dtype} "
                        f"{expected.shape} {expected!r}")


def saved_bytes(array):
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


def check_ember_files(d):
    for descr in DESCRS:
        name = "ember_" + descr[1:] + ".npy"
        expected = values(descr, 6).reshape(2, 3)
        path = os.path.join(d, name)
        check(name, np.load(path), expected)
        with open(path, "rb") as f:
            if f.read() != saved_bytes(expected):
                failures.append(f"{name}: not byte for byte what np.save writes")
    check("ember_scalar.npy", np.load(os.path.join(d, "ember_scalar.npy")), np.array(2.5))
    check("ember_empty.npy", np.load(os.path.join(d, "ember_empty.npy")),
          np.zeros((0, 3), "<f4"))
    with np.load(os.path.join(d, "ember.npz")) as npz:
        if list(npz.keys()) != ["weight", "step"]:
            failures.append(f"ember.npz: members {list(npz.keys())}")
        check("ember.npz weight", npz["weight"], values("<f4", 6).reshape(3, 2))
        check("ember.npz step", npz["step"], np.array([7], "<i8"))


def write_numpy_files(d):
    np.save(os.path.join(d, "np_f4.npy"), values("<f4", 6).reshape(2, 3))
    np.save(os.path.join(d, "np_fortran.npy"), np.asfortranarray(values("<f8", 6).reshape(2, 3)))
    np.save(os.path.join(d, "np_big.npy"), values(">i4", 6).reshape(3, 2))
    np.save(os.path.join(d, "np_scalar.npy"), np.array(-1.25, "<f4"))
    np.save(os.path.join(d, "np_bool.npy"), values("|b1", 4))
    arrays = {"x": values("<f4", 6).reshape(2, 3), "y": values("<i8", 5),
              "fortran": np.asfortranarray(values("<f8", 6).reshape(2, 3)),
              "big": values(">u2", 4)}
    np.savez(os.path.join(d, "np_savez.npz"), **arrays)
    np.savez_compressed(os.path.join(d, "np_compressed.npz"), **arrays)


def main():
    d = sys.argv[1]
    check_ember_files(d)
    write_numpy_files(d)
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
