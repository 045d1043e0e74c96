"""PyTorch side of the op benchmarks (bench/run_ops.py drives it; the ember side is
bench/op_bench.cpp). A worker: it reads one JSON request a line on stdin and answers one JSON
line on stdout, so that torch is imported once and the driver can alternate ember and torch
workload by workload.

Request: {"op", "shape", "dim", "out_channels", "kernel", "padding", "dtype", "variant",
"min_time"} with the meaning bench/op_bench.cpp gives its flags (dtype: the inputs of the
elementwise ops, reductions, matmul and conv2d, the f32 pattern cast to it; mlp_train's torch.autocast dtype; absent: f32); variant "call" is the ordinary call (a new output
each iteration, as ember's), "out" the kernel-level figure: outputs (and GELU's temporaries)
preallocated and written with out= or in place. Answer: {"seconds", "iterations", "checksum"}
(checksum: sum of |last output| in float64, or the last loss for mlp_train), or {"error"} when
the op has no such variant.
"""

import argparse
import json
import math
import sys

import torch
import torch.nn.functional as F
from torch import nn

import common

GELU_CUBE = 0.044715
GELU_SCALE = math.sqrt(2.0 / math.pi)
MLP_LEARNING_RATE = 0.01
ALONG_DIM = ("sum", "argmax", "argmin", "max", "min", "softmax", "log_softmax", "layer_norm",
             "rms_norm", "cross_entropy")
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def repeat(step):
    """run(n): calls step() n times and returns its last result."""
    def run(n):
        result = None
        for _ in range(n):
            result = step()
        return result
    return run


def gelu(x):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in nine primitive ops, in the order
    op_bench.cpp's gelu runs them."""
    cube = x * x * x
    inner = (x + cube * GELU_CUBE) * GELU_SCALE
    return (x * 0.5) * (torch.tanh(inner) + 1.0)


def gelu_into(x, t, y):
    """gelu(x) written into y with one temporary t: the same nine passes, no allocation."""
    torch.mul(x, x, out=t)
    t.mul_(x).mul_(GELU_CUBE).add_(x).mul_(GELU_SCALE)
    torch.tanh(t, out=t)
    t.add_(1.0)
    torch.mul(x, 0.5, out=y)
    return y.mul_(t)


def elementwise(op, shape, dtype):
    a = common.pattern(shape, 0).to(dtype)
    out = torch.empty(shape, dtype=dtype)  # not touched until the out variant writes it
    if op in ("add", "mul"):
        f, b = getattr(torch, op), common.pattern(shape, 1).to(dtype)
        return repeat(lambda: f(a, b)), repeat(lambda: f(a, b, out=out))
    if op in ("exp", "tanh"):
        f = getattr(torch, op)
        return repeat(lambda: f(a)), repeat(lambda: f(a, out=out))
    t = torch.empty(shape, dtype=dtype)
    return repeat(lambda: gelu(a)), repeat(lambda: gelu_into(a, t, out))


def along_dim_op(op, shape, dim):
    """f(x) of an op of the bandwidth-bound family, as op_workloads.cpp's along_dim_op: along
    dim, or over the last dim (the norms, with weight and bias; cross_entropy of logits [rows, C]
    and targets r mod C, mean over the rows)."""
    last = shape[-1]
    simple = {"softmax": lambda x: torch.softmax(x, dim),
              "log_softmax": lambda x: torch.log_softmax(x, dim),
              "max": lambda x: torch.amax(x, dim, keepdim=True),
              "min": lambda x: torch.amin(x, dim, keepdim=True)}
    if op in simple:
        return simple[op]
    weight, bias = common.pattern([last], 1), common.pattern([last], 2)
    if op == "layer_norm":
        return lambda x: F.layer_norm(x, [last], weight, bias, 1e-5)
    if op == "rms_norm":
        return lambda x: F.rms_norm(x, [last], weight, 1e-6)
    targets = torch.arange(shape[0]) % last
    return lambda x: F.cross_entropy(x, targets)


def forward_backward(op, shape, dim):
    """The forward and backward of op from a seed of ones, returning the input's gradient."""
    f = along_dim_op(op, shape, dim)
    x = common.pattern(shape).requires_grad_()
    ones = torch.ones_like(f(x))

    def step():
        return torch.autograd.grad(f(x), x, ones)[0]
    return repeat(step), None


def reduction(op, shape, dim, dtype):
    if op.endswith("_backward"):
        return forward_backward(op[:-len("_backward")], shape, dim)
    a = common.pattern(shape).to(dtype)
    if op not in ("sum", "argmax", "argmin"):
        f = along_dim_op(op, shape, dim)
        return repeat(lambda: f(a)), None
    f = {"sum": torch.sum, "argmax": torch.argmax, "argmin": torch.argmin}[op]
    out_shape = list(shape)
    out_shape[dim] = 1
    out = torch.empty(out_shape, dtype=dtype if op == "sum" else torch.int64)
    return (repeat(lambda: f(a, dim, keepdim=True)),
            repeat(lambda: f(a, dim, keepdim=True, out=out)))


def matmul(shape, dtype):
    m, k, n = shape
    a, b = common.pattern([m, k], 0).to(dtype), common.pattern([k, n], 1).to(dtype)
    out = torch.empty(m, n, dtype=dtype)
    return repeat(lambda: torch.matmul(a, b)), repeat(lambda: torch.matmul(a, b, out=out))


def spatial(op, shape, request, dtype):
    x = common.pattern(shape).to(dtype)
    if op == "max_pool2d":
        kernel = request["kernel"]
        return repeat(lambda: F.max_pool2d(x, kernel)), None
    weight = common.pattern([request["out_channels"], shape[1], request["kernel"],
                             request["kernel"]], 1).to(dtype)
    padding = request["padding"]
    return repeat(lambda: F.conv2d(x, weight, padding=padding)), None


def mlp_train(shape, dtype):
    """shape [batch, in, hidden1, hidden2, out]: one SGD step of linear-relu-linear-relu-linear
    with cross-entropy on a fixed batch, under torch.autocast(dtype) unless dtype is f32; the
    result is the step's loss."""
    batch, sizes = shape[0], shape[1:]
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(),
                          nn.Linear(sizes[1], sizes[2]), nn.ReLU(),
                          nn.Linear(sizes[2], sizes[3]))
    optimizer = torch.optim.SGD(model.parameters(), lr=MLP_LEARNING_RATE)
    x = common.pattern([batch, sizes[0]])
    targets = torch.arange(batch) % sizes[3]

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=dtype, enabled=dtype != torch.float32):
            loss = F.cross_entropy(model(x), targets)
        loss.backward()
        optimizer.step()
        return loss.detach()
    return repeat(step), None


def workload(request):
    """(ordinary call, kernel-level variant or None): each a run(n) for common.measure."""
    op, shape = request["op"], request["shape"]
    dtype = DTYPES[request.get("dtype", "f32")]
    if op in ("add", "mul", "exp", "tanh", "gelu"):
        return elementwise(op, shape, dtype)
    if op in ALONG_DIM or op.removesuffix("_backward") in ALONG_DIM:
        return reduction(op, shape, request.get("dim", -1), dtype)
    if op == "matmul":
        return matmul(shape, dtype)
    if op in ("conv2d", "max_pool2d"):
        return spatial(op, shape, request, dtype)
    if op == "mlp_train":
        return mlp_train(shape, dtype)
    raise ValueError(f"unknown op {op!r}")


def answer(request):
    call, out = workload(request)
    run = call if request["variant"] == "call" else out
    if run is None:
        return {"error": f"{request['op']} has no {request['variant']} variant"}
    seconds, iterations, result = common.measure(run, request["min_time"])
    check = result.item() if request["op"] == "mlp_train" else common.checksum(result)
    return {"seconds": seconds, "iterations": iterations, "checksum": check}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, required=True)
    args = parser.parse_args()
    common.set_threads(args.threads)
    print(json.dumps({"ready": torch.__version__}), flush=True)
    for line in sys.stdin:
        print(json.dumps(answer(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
