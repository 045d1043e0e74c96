"""PyTorch side of the GPU comparison (bench/run_cuda.py drives it; the ember side is
bench/cuda_bench.cpp). A worker: it reads one JSON request a line on stdin, as `cuda_bench --list`
writes them, and answers each with one JSON line of the fields cuda_bench prints, so that torch
is imported once and the driver can alternate ember and torch workload by workload. By hand:

    build/bench/cuda_bench --list | python3 bench/peer_torch/cuda_ops.py

Request: {"workload", "shape", "dtype", "dim" (sum, softmax), "out_channels", "kernel",
"padding" (conv2d: F.conv2d through cuDNN, no bias; attention, attention_backward:
F.scaled_dot_product_attention of q, k, v [B, H, L, E]), "bytes" | "flops" | "ops",
"iterations" (optional: run_cuda.py passes ember's N)}. The workloads are cuda_bench's, on the
same inputs (common.pattern in f32, then cast), plus "gelu_compiled": the same nine-op GELU
through torch.compile. Answer: {"workload", "shape", "dtype", "dim", "device", "iterations",
"ms", "gbs" | "tflops" | "us_per_op", "checksum"}, or the request's fields and {"error"}.

Timing as cuda_bench's: 3 warm-ups, then N iterations (N from the request, else chosen so that
they last about 20 ms, at least 10) between two torch.cuda.Events, 5 times, the median window / N.
tiny_add and tiny_add_flush (one figure in PyTorch, which launches every op at once): 10000
chained torch.add(x, 1.0), then a synchronize, on the host clock. The first line written is
{"ready": version, "device", "gpu", "cuda"}, or {"error": "no_device", "message"} (exit 3) when
the device is not there. --device cpu runs everything on the CPU with host-clock windows: a way to
test this script on a machine without a GPU. --tf32 lets f32 matmuls and cuDNN's convolutions
round to TF32 (ember's MatmulPrecision::High, cuda_bench --tf32); without it, full f32.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

import common
from ops import gelu, repeat

WARMUPS = 3
REPEATS = 5
WINDOW_MS = 20.0
CALIBRATION_MS = 2.0
MIN_ITERATIONS = 10
MAX_ITERATIONS = 10_000_000
TINY_OPS = 10_000
NO_DEVICE = 3
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
          "f64": torch.float64}


class Clock:
    """Windows on the device's clock: CUDA events on a GPU, the host clock between syncs
    elsewhere (as ember's devices without a clock)."""

    def __init__(self, device):
        self.device = device
        self.cuda = device.type == "cuda"

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize(self.device)

    def window_ms(self, run, n):
        """(milliseconds of run(n), its result)."""
        if not self.cuda:
            begin = time.perf_counter()
            result = run(n)
            return (time.perf_counter() - begin) * 1e3, result
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        result = run(n)
        end.record()
        end.synchronize()
        return start.elapsed_time(end), result


def iterations_for(clock, run):
    """The N whose window lasts about WINDOW_MS, scaled from one of at least CALIBRATION_MS
    (cuda_bench.cpp's rule)."""
    n = WARMUPS
    ms, _ = clock.window_ms(run, n)
    while ms < CALIBRATION_MS and n < MAX_ITERATIONS:
        n *= 4
        ms, _ = clock.window_ms(run, n)
    return min(max(math.ceil(n * WINDOW_MS / ms), MIN_ITERATIONS), MAX_ITERATIONS)


def time_run(clock, run, iterations):
    """(median ms per iteration, N, last result) of run(n), cuda_bench's time_step."""
    run(WARMUPS)
    clock.sync()  # the warm-ups (and torch.compile's compilation) stay out of every window
    n = iterations or iterations_for(clock, run)
    per_iteration, result = [], None
    for _ in range(REPEATS):
        ms, result = clock.window_ms(run, n)
        per_iteration.append(ms / n)
    return statistics.median(per_iteration), n, result


def attention(workload, make, shape):
    """F.scaled_dot_product_attention of q, k, v [B, H, L, E] (PyTorch picks its fused kernel);
    with attention_backward, q's gradient too, with g as the result's gradient (ember's step
    takes the gradients of sum(out * g))."""
    q, k, v = (make(shape, seed) for seed in range(3))
    if workload == "attention":
        return lambda: F.scaled_dot_product_attention(q, k, v)
    for x in (q, k, v):
        x.requires_grad_()
    g = make(shape, 3)

    def forward_backward():
        out = F.scaled_dot_product_attention(q, k, v)
        return torch.autograd.grad(out, (q, k, v), g)[0]
    return forward_backward


def step(request, device):
    """The workload's step: its inputs made once, as cuda_bench's make_step."""
    shape, dtype = request["shape"], DTYPES[request["dtype"]]
    make = lambda dims, seed: common.pattern(dims, seed).to(device).to(dtype)
    workload = request["workload"]
    if workload == "matmul":
        m, k, n = shape
        a, b = make([m, k], 0), make([k, n], 1)
        return lambda: torch.matmul(a, b)
    if workload == "conv2d":
        k = request["kernel"]
        x, weight = make(shape, 0), make([request["out_channels"], shape[1], k, k], 1)
        return lambda: F.conv2d(x, weight, padding=request["padding"])
    if workload in ("attention", "attention_backward"):
        return attention(workload, make, shape)
    a = make(shape, 0)
    if workload == "add":
        b = make(shape, 1)
        return lambda: torch.add(a, b)
    if workload == "copy":
        y = torch.empty_like(a)
        return lambda: y.copy_(a)
    simple = {"exp": lambda: torch.exp(a), "gelu": lambda: gelu(a),
              "softmax": lambda: torch.softmax(a, request.get("dim", -1)),
              "sum": lambda: torch.sum(a, request.get("dim", -1), keepdim=True)}
    if workload in simple:
        return simple[workload]
    if workload == "gelu_compiled":
        compiled = torch.compile(gelu)
        return lambda: compiled(a)
    raise ValueError(f"unknown workload {workload!r}")


def tiny_loop_ms(clock, start):
    """(host ms of TINY_OPS chained adds and a sync, the result)."""
    begin = time.perf_counter()
    x = start
    for _ in range(TINY_OPS):
        x = torch.add(x, 1.0)
    clock.sync()
    return (time.perf_counter() - begin) * 1e3, x


def time_tiny(clock, request, device):
    """(median ms per op, ops, last result), cuda_bench's time_tiny."""
    start = common.pattern(request["shape"], 0).to(device).to(DTYPES[request["dtype"]])
    for _ in range(WARMUPS):
        tiny_loop_ms(clock, start)
    per_op, result = [], None
    for _ in range(REPEATS):
        ms, result = tiny_loop_ms(clock, start)
        per_op.append(ms / TINY_OPS)
    return statistics.median(per_op), TINY_OPS, result


def figures(request, ms):
    """The throughput fields of a line, from the work the request carries."""
    if "ops" in request:
        return {"us_per_op": ms * 1e3}
    if "flops" in request:
        return {"tflops": request["flops"] / (ms * 1e-3) / 1e12}
    return {"gbs": request["bytes"] / (ms * 1e-3) / 1e9}


def answer(request, device):
    clock = Clock(device)
    if request["workload"].startswith("tiny_add"):
        ms, n, result = time_tiny(clock, request, device)
    else:
        ms, n, result = time_run(clock, repeat(step(request, device)), request.get("iterations"))
    keys = ("workload", "shape", "dtype", "dim", "out_channels", "kernel", "padding")
    fields = {key: request[key] for key in keys if key in request}
    return dict(fields, device=str(device), iterations=n, ms=ms, **figures(request, ms),
                checksum=common.checksum(result))


def ready_line(device):
    """The first line: the versions and the GPU, or why there is no device (None: go on)."""
    if device.type == "cuda" and not torch.cuda.is_available():
        return {"error": "no_device", "message": f"torch {torch.__version__} sees no CUDA GPU"
                f" (built with CUDA {torch.version.cuda})"}
    if device.type == "cuda" and (device.index or 0) >= torch.cuda.device_count():
        return {"error": "no_device",
                "message": f"{device}: torch sees {torch.cuda.device_count()} CUDA GPU(s)"}
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else "none"
    return {"ready": torch.__version__, "device": str(device), "gpu": gpu,
            "cuda": torch.version.cuda}


def same_math(tf32):
    """ember's matmuls and convolutions: f32 in full f32 unless tf32 (cuda_bench --tf32:
    MatmulPrecision::High), bf16 and f16 accumulated and reduced in f32. cuDNN's allow_tf32 is True by
    default in PyTorch: set either way, so that a convolution row compares like with like."""
    torch.set_float32_matmul_precision("high" if tf32 else "highest")
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False


def answers_stream():
    """This process's stdout for the answers alone: what anything else writes to file
    descriptor 1 (torch.compile's compilers, warnings) goes to stderr instead."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda:0", help="torch device (default cuda:0)")
    parser.add_argument("--tf32", action="store_true",
                        help="f32 matmuls and convolutions in TF32 (default: full f32)")
    args = parser.parse_args()
    out = answers_stream()
    write = lambda line: print(json.dumps(line), file=out, flush=True)
    device = torch.device(args.device)
    ready = ready_line(device)
    write(ready)
    if "error" in ready:
        sys.exit(NO_DEVICE)
    same_math(args.tf32)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            write(answer(request, device))
        except Exception as error:  # one failing workload (torch.compile without a compiler)
            traceback.print_exc()
            write(dict(request, error=f"{type(error).__name__}: {error}"))
        if device.type == "cuda":
            torch.cuda.empty_cache()  # leave the GPU's memory to ember's runs in between


if __name__ == "__main__":
    main()
