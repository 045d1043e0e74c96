"""Writes the fixtures of the record tests (tests/record/fixtures/) with PyTorch and the Python
`safetensors` package, the reference implementation of the format.

Run by hand from the repository root (Debian's python3-torch 1.13 is installed for
/usr/bin/python3; the safetensors package goes into a venv that sees it):

    /usr/bin/python3 -m venv --system-site-packages /tmp/st-venv
    /tmp/st-venv/bin/pip install safetensors
    /tmp/st-venv/bin/python tests/record/generate.py

and commit tests/record/fixtures/. It writes:

* mlp.safetensors: the state_dict of Mlp (Linear(3, 4), ReLU, Linear(4, 2));
* batchnorm.safetensors: the state_dict of BatchNormNet (Linear(3, 4), BatchNorm1d(4), ReLU,
  Linear(4, 2)) after three training steps' forward passes, so that running_mean, running_var
  and the 0-dim int64 num_batches_tracked (3) are not their initial values;
* dtypes.safetensors: one tensor of known values for each dtype ember shares with the format,
  an empty tensor and one metadata entry, written by the package's serializer (no 0-dim tensor:
  ember reads those as shape [1], so this file rewrites byte for byte);
* expected.json: each model's input and PyTorch's output (eval mode), and the values, dtypes and
  shapes of dtypes.safetensors.

    /tmp/st-venv/bin/python tests/record/generate.py check FILE

loads FILE, a BatchNormNet state saved by ember (the record tests write it into the folder named
by the environment variable EMBER_RECORD_EXPORT_DIR), into PyTorch with load_state_dict(strict=True)
and checks that the model reproduces expected.json's output.
"""

import json
import pathlib
import sys

import numpy as np
import torch
from safetensors import TensorSpec, serialize
from safetensors.torch import load_file, save_file

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(3, 4)
        self.fc2 = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class BatchNormNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(3, 4)
        self.bn = torch.nn.BatchNorm1d(4)
        self.fc2 = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


def model_case(model, name, x):
    """Saves model's state_dict as NAME.safetensors; returns the input and eval-mode output."""
    model.eval()
    with torch.no_grad():
        y = model(x)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()},
              str(FIXTURES / f"{name}.safetensors"))
    return {"input": x.double().tolist(), "output": y.double().tolist()}


def make_mlp():
    torch.manual_seed(0)
    mlp = Mlp()
    return model_case(mlp, "mlp", torch.randn(5, 3))


def make_batchnorm():
    torch.manual_seed(1)
    net = BatchNormNet()
    with torch.no_grad():
        net.bn.weight.uniform_(0.5, 1.5)
        net.bn.bias.uniform_(-0.5, 0.5)
        net.train()
        for _ in range(3):  # updates the running statistics and num_batches_tracked
            net(torch.randn(6, 3) * 2.0 + 0.5)
    assert net.bn.num_batches_tracked.dim() == 0
    return model_case(net, "batchnorm", torch.randn(4, 3))


# name → (safetensors dtype, TensorSpec dtype, numpy storage dtype, values, shape). Float values
# are exact in every float dtype; integers reach their dtype's extremes. BF16 is stored as its
# bit pattern (numpy has no bfloat16): 1.5 = 0x3FC0, -2 = 0xC000, 2^-7 = 0x3C00, 0 = 0x0000.
DTYPE_CASES = {
    "f64": ("F64", "float64", np.float64, [1.5, -2.0, 0.0078125, 1e300], [2, 2]),
    "f32": ("F32", "float32", np.float32, [1.5, -2.0, 0.0078125, 0.0, 3.0, -0.25], [2, 3]),
    "f16": ("F16", "float16", np.float16, [1.5, -2.0, 0.0078125, 65504.0], [4]),
    "bf16": ("BF16", "bfloat16", np.uint16, [1.5, -2.0, 0.0078125, 0.0], [2, 2]),
    "i64": ("I64", "int64", np.int64, [-(2**63), 2**63 - 1, 0], [3]),
    "i32": ("I32", "int32", np.int32, [-(2**31), 2**31 - 1, 7], [3]),
    "i16": ("I16", "int16", np.int16, [-(2**15), 2**15 - 1], [2]),
    "i8": ("I8", "int8", np.int8, [-128, 127, -1], [3, 1]),
    "u64": ("U64", "uint64", np.uint64, [0, 2**64 - 1], [2]),
    "u32": ("U32", "uint32", np.uint32, [0, 2**32 - 1, 5], [3]),
    "u16": ("U16", "uint16", np.uint16, [0, 2**16 - 1], [1, 2]),
    "u8": ("U8", "uint8", np.uint8, [0, 255, 9], [3]),
    "bool": ("BOOL", "bool", np.bool_, [True, False, True], [3]),
    "empty": ("F32", "float32", np.float32, [], [2, 0]),
}
BF16_BITS = {1.5: 0x3FC0, -2.0: 0xC000, 0.0078125: 0x3C00, 0.0: 0x0000}
METADATA = {"source": "tests/record/generate.py"}


def make_dtypes():
    arrays, specs, expected = {}, {}, {}
    for name, (st_dtype, spec_dtype, storage, values, shape) in DTYPE_CASES.items():
        stored = [BF16_BITS[v] for v in values] if st_dtype == "BF16" else values
        array = np.array(stored, dtype=storage).reshape(shape)
        arrays[name] = array  # keeps the buffer alive while serialize reads it
        specs[name] = TensorSpec(dtype=spec_dtype, shape=shape, data_ptr=array.ctypes.data,
                                 data_len=array.nbytes)
        expected[name] = {"dtype": st_dtype, "shape": shape, "values": values}
    (FIXTURES / "dtypes.safetensors").write_bytes(bytes(serialize(specs, metadata=METADATA)))
    return {"metadata": METADATA, "tensors": expected}


def generate():
    FIXTURES.mkdir(exist_ok=True)
    expected = {"mlp": make_mlp(), "batchnorm": make_batchnorm(), "dtypes": make_dtypes()}
    (FIXTURES / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


def check(path):
    expected = json.loads((FIXTURES / "expected.json").read_text())["batchnorm"]
    net = BatchNormNet()
    net.load_state_dict(load_file(path), strict=True)
    net.eval()
    with torch.no_grad():
        y = net(torch.tensor(expected["input"], dtype=torch.float32))
    torch.testing.assert_close(y.double(), torch.tensor(expected["output"], dtype=torch.float64),
                               rtol=1e-6, atol=1e-6)
    print(f"{path}: PyTorch loads it and reproduces the output "
          f"(num_batches_tracked = {int(net.bn.num_batches_tracked)})")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        generate()
