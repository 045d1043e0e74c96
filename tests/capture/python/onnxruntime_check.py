"""Runs an ONNX model with onnxruntime on one input array and compares its first output with the
values ember computed, for tests/capture/onnx_export_test.cpp:

    onnxruntime_check.py MODEL INPUT.npy EXPECTED.npy TOLERANCE

Prints the largest absolute difference; exits 0 when the shapes agree and it is within
TOLERANCE, 1 otherwise.
"""
import sys

import numpy as np
import onnxruntime


def main() -> int:
    model, input_path, expected_path, tolerance = sys.argv[1:5]
    session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    x = np.load(input_path)
    expected = np.load(expected_path)
    got = session.run(None, {session.get_inputs()[0].name: x})[0]
    if got.shape != expected.shape:
        print(f"onnxruntime gave shape {got.shape}, ember {expected.shape}")
        return 1
    diff = float(np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64))))
    print(f"onnxruntime {onnxruntime.__version__}: shape {got.shape}, largest difference {diff:.3g}")
    return 0 if diff <= float(tolerance) else 1


if __name__ == "__main__":
    sys.exit(main())
