"""Writes ONNX's backend node tests (onnx.backend.test.case.node: each case's model, input and
expected output arrays, computed by ONNX's own reference code) into a folder, for
tests/onnx/onnx_node_suite_test.cpp:

    OUT/<case>/model.onnx
    OUT/<case>/test_data_set_<i>/input_<j>.pb, output_<j>.pb   (TensorProto)
    OUT/<case>/tolerance.txt                                    "rtol atol" of the case
    OUT/VERSION                                                 the onnx version, written last

Run with the venv of install-onnx: python generate_node_tests.py OUT
"""

import os
import shutil
import sys

import onnx
from onnx import numpy_helper
from onnx.backend.test.loader import load_node_model_tests


def tensor_bytes(value, name):
    if isinstance(value, onnx.TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(value, name).SerializeToString()


def write_case(out, case):
    folder = os.path.join(out, case.name)
    os.makedirs(folder)
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    with open(os.path.join(folder, "tolerance.txt"), "w") as f:
        f.write(f"{case.rtol!r} {case.atol!r}\n")
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        data = os.path.join(folder, f"test_data_set_{i}")
        os.makedirs(data)
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                if not infos[j].type.HasField("tensor_type"):
                    return  # sequences, maps, optionals: not tensors, not imported
                with open(os.path.join(data, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(tensor_bytes(value, infos[j].name))


def main():
    out = sys.argv[1]
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for case in load_node_model_tests():
        write_case(out, case)
    with open(os.path.join(out, "VERSION"), "w") as f:
        f.write(onnx.__version__ + "\n")


if __name__ == "__main__":
    main()
