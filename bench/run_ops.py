#!/usr/bin/python3
"""Op workloads, ember vs PyTorch CPU eager (issue 4): per-op overhead on tiny tensors, matmul,
elementwise ops, a GELU written from primitive ops, reductions, softmax, conv2d, max_pool2d and
an MLP training step, with the same shapes, inputs (bench/support/pattern.h) and thread count on
both sides, and a STREAM-like copy and triad (C++) as the ceiling of elementwise work. Matmul and
conv2d also in bf16 and f16 (the f32 inputs cast), as are add, mul, exp, tanh, softmax and
sum/argmax along the last dim; the MLP step also under bf16 autocast (issue 23: ember's
device.autocast, torch.autocast).

For each workload and round, ember (bench/op_bench, Google Benchmark, one process per run) and
the PyTorch worker (bench/peer_torch/ops.py, one process per thread count) run alternately;
figures are medians over --rounds. torch runs twice: the ordinary call, and where PyTorch has it
a kernel-level variant writing into preallocated outputs (out=). Prints one markdown table and
writes it to bench/results/ops.md, between the file's run_ops.py markers: sections written by hand
after them stay.

    bench/run_ops.py --build-dir build --device flex --threads 2,1
"""

import dataclasses
import json
import os
import subprocess
import sys

import bench_driver as bd

STREAM_ELEMENTS = 32 * 2**20  # 128 MiB per array: four times the largest L3 seen here
F32 = 4
I64 = 8


@dataclasses.dataclass
class Target:
    text: str
    min_speedup: float
    min_stream_fraction: float = 0.0


OVERHEAD = Target("<= 0.5x torch's time", 2.0)
LIBRARY = Target(">= 0.95x", 0.95)
FUSED = Target(">= 2x and >= 70% of STREAM", 2.0, 0.70)
FASTER = Target(">= 1.0x", 1.0)
# Issue 23's bandwidth-bound ops: faster than torch and near the memory's copy rate.
BANDWIDTH = Target(">= 1.0x and >= 80% of STREAM", 1.0, 0.80)


@dataclasses.dataclass
class Workload:
    label: str
    spec: dict  # op, shape and the op's parameters: op_bench's flags, ops.py's request
    unit: str  # "us/op" (lower is better), "GFLOP/s", "GB/s" or "steps/s"
    work: float = 1.0  # flops or bytes per iteration, for the throughput units
    target: Target = None  # None: a reference row (STREAM), no peer
    exact: bool = False  # outputs compared exactly (indices), else to a relative 1e-3
    peer: str = "python"  # or "libtorch": LibTorch's C++ API (peer_torch/tiny_ops_libtorch.cpp)
    comparable: bool = True  # False: the output is rounding noise around 0 (checksums differ)


@dataclasses.dataclass(frozen=True)
class Sizes:
    matmul: tuple  # square sizes
    elementwise: list  # add mul exp tanh
    gelu: list
    reduce: list  # sum, argmax, argmin, max and min along each dim
    softmax: list  # softmax and log_softmax along each dim, the norms over the last
    logits: list  # cross_entropy's [N, C]
    conv_batch: int  # conv2d and max_pool2d input [conv_batch, 64, 56, 56]
    mlp: list  # [batch, in, hidden1, hidden2, out]


# The sizes, and --quick's: a quarter of the big tensors (each still larger than the
# 32 MiB L3), matmul up to 2048, a quarter of the conv and MLP batches.
FULL = Sizes((256, 1024, 4096), [32, 512, 1024], [32, 512, 2048], [32, 512, 4096],
             [64, 1024, 1024], [65536, 1024], 16, [256, 1024, 4096, 4096, 10])
QUICK = Sizes((256, 1024, 2048), [8, 512, 2048], [8, 512, 2048], [8, 512, 4096],
              [16, 1024, 1024], [16384, 1024], 4, [64, 1024, 4096, 4096, 10])


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def shape_text(shape):
    return "x".join(str(d) for d in shape)


def tiny_ops(with_libtorch):
    peers = {"python": "", "libtorch": ", LibTorch C++ peer"}
    if not with_libtorch:
        del peers["libtorch"]
    return [Workload(f"{op} [{shape_text(shape)}]{suffix}", {"op": op, "shape": shape}, "us/op",
                     target=OVERHEAD, peer=peer)
            for peer, suffix in peers.items() for shape in ([1], [8, 8])
            for op in ("add", "mul", "exp")]


REDUCED = ("bf16", "f16")


def with_dtype(label, spec, dtype):
    """label and spec for dtype's inputs (f32: unchanged, the rows of earlier results)."""
    if dtype == "f32":
        return label, spec
    return f"{label} {dtype}", dict(spec, dtype=dtype)


def matmuls(sizes):
    rows = []
    for dtype in ("f32",) + REDUCED:
        for n in sizes.matmul:
            label, spec = with_dtype(f"matmul {n}x{n} @ {n}x{n}",
                                     {"op": "matmul", "shape": [n, n, n]}, dtype)
            rows.append(Workload(label, spec, "GFLOP/s", 2.0 * n**3,
                                 LIBRARY if dtype == "f32" else FASTER))
    return rows


ELEMENT_BYTES = {"f32": F32, "bf16": 2, "f16": 2}


def elementwise(sizes):
    shape = sizes.elementwise
    rows = []
    for dtype in ("f32",) + REDUCED:
        for op in ("add", "mul", "exp", "tanh"):
            label, spec = with_dtype(f"{op} [{shape_text(shape)}]", {"op": op, "shape": shape},
                                     dtype)
            rows.append(Workload(label, spec, "GB/s", (3 if op in ("add", "mul") else 2) *
                                 numel(shape) * ELEMENT_BYTES[dtype], FASTER))
    rows.append(Workload(f"GELU from 9 primitive ops [{shape_text(sizes.gelu)}]",
                         {"op": "gelu", "shape": sizes.gelu}, "GB/s",
                         2 * numel(sizes.gelu) * F32, FUSED))
    for dtype in REDUCED:  # the fused narrow program (tile loops) against torch's nine bf16 ops
        label, spec = with_dtype(f"GELU from 9 primitive ops [{shape_text(sizes.gelu)}]",
                                 {"op": "gelu", "shape": sizes.gelu}, dtype)
        rows.append(Workload(label, spec, "GB/s", 2 * numel(sizes.gelu) * ELEMENT_BYTES[dtype],
                             FASTER))
    return rows


def reductions(sizes):
    shape = sizes.reduce
    rows = []
    for op, out_bytes in (("sum", F32), ("argmax", I64), ("argmin", I64), ("max", F32),
                          ("min", F32)):
        for dim in range(3):
            out = numel(shape) // shape[dim]
            rows.append(Workload(f"{op} dim {dim} [{shape_text(shape)}]",
                                 {"op": op, "shape": shape, "dim": dim}, "GB/s",
                                 numel(shape) * F32 + out * out_bytes,
                                 FASTER if op == "sum" else BANDWIDTH, op.startswith("arg")))
    return rows


def bandwidth_bound(sizes):
    """Softmax and log_softmax along each dim, the norms over the last, cross_entropy; each
    forward, and with its backward from a seed of ones. Ideal bytes: forward, x read and y
    written (cross_entropy: the logits read); backward, y and the seed read and dx written
    (cross_entropy: the logits read and their gradient written)."""
    n = numel(sizes.softmax)
    last = len(sizes.softmax) - 1
    rows = []
    for op in ("softmax", "log_softmax"):
        for dim in range(len(sizes.softmax)):
            where = "last dim" if dim == last else f"dim {dim}"
            rows.append(Workload(f"{op} {where} [{shape_text(sizes.softmax)}]",
                                 {"op": op, "shape": sizes.softmax, "dim": dim}, "GB/s",
                                 2 * n * F32, BANDWIDTH))
    for op in ("layer_norm", "rms_norm"):
        rows.append(Workload(f"{op} last dim [{shape_text(sizes.softmax)}]",
                             {"op": op, "shape": sizes.softmax}, "GB/s", 2 * n * F32, BANDWIDTH))
    logits = numel(sizes.logits)
    rows.append(Workload(f"cross_entropy [{shape_text(sizes.logits)}]",
                         {"op": "cross_entropy", "shape": sizes.logits}, "GB/s", logits * F32,
                         BANDWIDTH))
    for op in ("softmax", "log_softmax", "layer_norm", "rms_norm"):
        spec = {"op": f"{op}_backward", "shape": sizes.softmax, "dim": last}
        rows.append(Workload(f"{op} forward+backward last dim [{shape_text(sizes.softmax)}]",
                             spec, "GB/s", 5 * n * F32, BANDWIDTH, comparable=op != "softmax"))
    rows.append(Workload(f"cross_entropy forward+backward [{shape_text(sizes.logits)}]",
                         {"op": "cross_entropy_backward", "shape": sizes.logits}, "GB/s",
                         3 * logits * F32, BANDWIDTH))
    return rows


def reduced_precision_reductions(sizes):
    """Softmax, sum and argmax along the last dim (the rows' one kernel) in each reduced dtype
    (their f32 rows are bandwidth_bound's and reductions')."""
    shape = sizes.reduce
    rows = []
    for dtype in REDUCED:
        label, spec = with_dtype(f"softmax last dim [{shape_text(sizes.softmax)}]",
                                 {"op": "softmax", "shape": sizes.softmax, "dim": 2}, dtype)
        rows.append(Workload(label, spec, "GB/s", 2 * numel(sizes.softmax) * ELEMENT_BYTES[dtype],
                             FASTER))
    for dtype in REDUCED:
        for op, out_bytes in (("sum", ELEMENT_BYTES[dtype]), ("argmax", I64)):
            out = numel(shape) // shape[2]
            label, spec = with_dtype(f"{op} dim 2 [{shape_text(shape)}]",
                                     {"op": op, "shape": shape, "dim": 2}, dtype)
            rows.append(Workload(label, spec, "GB/s",
                                 numel(shape) * ELEMENT_BYTES[dtype] + out * out_bytes, FASTER,
                                 op == "argmax"))
    return rows


def spatial(sizes):
    n, c, h, w, out, k = sizes.conv_batch, 64, 56, 56, 64, 3
    shape = [n, c, h, w]
    conv_flops = 2.0 * n * out * h * w * c * k * k  # padding 1 keeps h x w
    pooled = numel(shape) // 4
    convs = [with_dtype(f"conv2d {shape_text(shape)}, {out} out, k3 pad1",
                        {"op": "conv2d", "shape": shape, "out_channels": out, "kernel": k,
                         "padding": 1}, dtype) for dtype in ("f32",) + REDUCED]
    return [Workload(label, spec, "GFLOP/s", conv_flops, LIBRARY if "dtype" not in spec else FASTER)
            for label, spec in convs] + [
        Workload(f"max_pool2d k2 {shape_text(shape)}",
                 {"op": "max_pool2d", "shape": shape, "kernel": 2}, "GB/s",
                 (numel(shape) + pooled) * F32, FASTER),
    ]


def mlp(sizes):
    batch, *widths = sizes.mlp
    label = f"MLP train step {'-'.join(map(str, widths))}, batch {batch}, SGD"
    return [Workload(label, {"op": "mlp_train", "shape": sizes.mlp}, "steps/s", target=FASTER),
            Workload(f"{label}, autocast bf16",
                     {"op": "mlp_train", "shape": sizes.mlp, "dtype": "bf16"}, "steps/s",
                     target=FASTER)]


def stream():
    return [Workload(f"STREAM {kind} (C++), {STREAM_ELEMENTS // 2**20}M f32",
                     {"op": f"stream_{kind}", "shape": [STREAM_ELEMENTS]}, "GB/s",
                     factor * STREAM_ELEMENTS * F32)
            for kind, factor in (("copy", 2), ("triad", 3))]


def workloads(sizes, with_libtorch):
    return (stream() + tiny_ops(with_libtorch) + matmuls(sizes) + elementwise(sizes) +
            reductions(sizes) + bandwidth_bound(sizes) + reduced_precision_reductions(sizes) +
            spatial(sizes) + mlp(sizes))


def op_bench_flags(spec):
    flags = ["--op", spec["op"], "--shape", ",".join(str(d) for d in spec["shape"])]
    for key in ("dim", "out_channels", "kernel", "padding", "dtype"):
        if key in spec:
            flags += ["--" + key.replace("_", "-"), str(spec[key])]
    return flags


class TorchWorker:
    """bench/peer_torch/ops.py running with `threads` threads, answering requests."""

    def __init__(self, python, threads):
        self.process = subprocess.Popen(
            [python, os.path.join(bd.PEER_DIR, "ops.py"), "--threads", str(threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=bd.torch_env(threads))
        self._read()  # the "ready" line: torch is imported

    def _read(self):
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"the PyTorch worker stopped (exit {self.process.wait()})")
        return json.loads(line)

    def measure(self, spec, variant, min_time):
        self.process.stdin.write(json.dumps(dict(spec, variant=variant, min_time=min_time)) + "\n")
        self.process.stdin.flush()
        answer = self._read()
        return None if "error" in answer else answer

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def run_google_benchmark(command, env):
    """Runs a Google Benchmark program (one benchmark) and returns its seconds per iteration,
    its checksum counter and the ember device of its context (None for peers and STREAM)."""
    command = command + ["--benchmark_format=json"]
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
    report = json.loads(result.stdout)
    run = report["benchmarks"][0]
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[run["time_unit"]]
    return {"seconds": run["real_time"] * scale, "checksum": run["checksum"],
            "device": report["context"].get("ember_device")}


def run_ember(args, threads, workload):
    command = [bd.ember_program(args.build_dir, "op_bench"), *op_bench_flags(workload.spec),
               f"--benchmark_min_time={args.min_time}"]
    if workload.target is None:
        command += ["--threads", str(threads)]
    elif args.device:
        command += ["--device", args.device]
    return run_google_benchmark(command, bd.ember_env(threads))


def run_libtorch(args, threads, workload, variant):
    command = [libtorch_program(args.build_dir), *op_bench_flags(workload.spec),
               "--variant", variant, "--threads", str(threads),
               f"--benchmark_min_time={args.min_time}"]
    return run_google_benchmark(command, bd.torch_env(threads))


def libtorch_program(build_dir):
    """The LibTorch C++ peer, or None where it was not built (no libtorch-dev)."""
    path = os.path.join(build_dir, "bench", "tiny_ops_libtorch")
    return path if os.access(path, os.X_OK) else None


def libtorch_dir(build_dir):
    """The Torch_DIR the C++ peer was built with: it need not be the Python peer's torch
    (CMake finds Debian's libtorch-dev, 1.13, unless pointed at another), so the table says."""
    with open(os.path.join(build_dir, "CMakeCache.txt")) as cache:
        for line in cache:
            if line.startswith("Torch_DIR:"):
                return line.split("=", 1)[1].strip()
    return "unknown"


def measure(args, threads, torch_worker, workload):
    """Per side ("ember", "torch", "torch_out"): the runs of each round."""
    runs = {"ember": [], "torch": [], "torch_out": []}
    sides = [("ember", lambda: run_ember(args, threads, workload))]
    variants = (("torch", "call"), ("torch_out", "out"))
    if workload.peer == "libtorch":
        sides += [(name, lambda variant=variant: run_libtorch(args, threads, workload, variant))
                  for name, variant in variants]
    elif workload.target is not None:
        sides += [(name, lambda variant=variant: torch_worker.measure(
            workload.spec, variant, args.min_time)) for name, variant in variants]
    for round_index in range(args.rounds):
        order = sides if round_index % 2 == 0 else sides[::-1]  # alternate who goes first
        for name, run in order:
            result = run()
            if result is not None:
                runs[name].append(result)
    return runs


def figure(workload, seconds):
    if workload.unit == "us/op":
        return seconds * 1e6
    if workload.unit == "steps/s":
        return 1.0 / seconds
    return workload.work / seconds / 1e9


def same_result(workload, runs):
    if workload.target is None or workload.spec["op"] == "mlp_train":
        return "—"  # no peer, or losses of different initializations
    if not workload.comparable:
        return "— (noise around 0)"
    ember, torch = runs["ember"][-1]["checksum"], runs["torch"][-1]["checksum"]
    tolerance = 0.0 if workload.exact else 1e-3 * abs(torch)
    return "yes" if abs(ember - torch) <= tolerance else f"NO ({ember:.6g} vs {torch:.6g})"


def fusion_words(device):
    """How the ember device ran the elementwise chains (the cpu device fuses unless
    EMBER_FUSION=0; flex and ndarray run every op as one eager kernel)."""
    if device == "cpu" and os.environ.get("EMBER_FUSION", "1") != "0":
        return "fusion on: GELU's nine ops run as one fused pass"
    return "no fusion: every op, GELU's nine included, is one eager kernel"


def row(workload, threads, runs, stream_copy_gbs):
    seconds = {side: bd.median([r["seconds"] for r in results])
               for side, results in runs.items() if results}
    cell = lambda side: f"{figure(workload, seconds[side]):.3g}" if side in seconds else "—"
    speedup = lambda side: seconds[side] / seconds["ember"] if side in seconds else None
    ember_gbs = workload.work / seconds["ember"] / 1e9
    of_stream = (f"{ember_gbs / stream_copy_gbs:.0%}"
                 if workload.unit == "GB/s" and workload.target is not None else "—")
    target, met = "—", "—"
    if workload.target is not None:
        target = workload.target.text
        ok = speedup("torch") >= workload.target.min_speedup
        if workload.target.min_stream_fraction:
            ok = ok and ember_gbs >= workload.target.min_stream_fraction * stream_copy_gbs
        met = "yes" if ok else "**no**"
    ratio_cell = lambda side: f"{speedup(side):.2f}" if speedup(side) is not None else "—"
    return [workload.label, threads, cell("ember"), cell("torch"), cell("torch_out"),
            workload.unit, ratio_cell("torch"), ratio_cell("torch_out"), of_stream, target, met,
            same_result(workload, runs)]


def parse_args():
    p = bd.parser(__doc__.splitlines()[0])
    p.add_argument("--min-time", type=float, default=None,
                   help="seconds each measurement runs at least (Google Benchmark's min time; "
                        "default 0.5, with --quick 0.2)")
    p.add_argument("--quick", action="store_true",
                   help="smaller sizes (see QUICK) and a shorter min time: a few minutes "
                        "instead of about twenty on a 2-core machine")
    p.add_argument("--only", default=None,
                   help="run only the workloads whose label contains one of these texts (comma "
                        "separated), and STREAM")
    args = p.parse_args()
    if args.min_time is None:
        args.min_time = 0.2 if args.quick else 0.5
    return args


def main():
    args = parse_args()
    peer = bd.check_peer(args)
    with_libtorch = libtorch_program(args.build_dir) is not None
    if not with_libtorch:
        print("no bench/tiny_ops_libtorch in the build (libtorch-dev missing): the LibTorch C++ "
              "rows are left out", flush=True)
    wanted = None if args.only is None else args.only.split(",")
    chosen = [w for w in workloads(QUICK if args.quick else FULL, with_libtorch)
              if wanted is None or w.target is None or any(text in w.label for text in wanted)]
    rows, device = [], None
    for threads in bd.thread_counts(args.threads):
        worker = TorchWorker(args.python, threads)
        measured = []
        for workload in chosen:
            print(f"{workload.label}, {threads} threads", flush=True)
            runs = measure(args, threads, worker, workload)
            device = device or runs["ember"][0]["device"]
            measured.append((workload, runs))
        worker.close()
        copy_seconds = bd.median([r["seconds"] for r in measured[0][1]["ember"]])
        stream_copy_gbs = measured[0][0].work / copy_seconds / 1e9
        rows += [row(w, threads, runs, stream_copy_gbs) for w, runs in measured]
    headers = ["workload", "threads", "ember", "torch", "torch out=", "unit", "speedup",
               "speedup vs out=", "ember / STREAM copy", "target", "met", "same result"]
    body = "\n".join([
        f"ember device: `{device}` ({fusion_words(device)}). "
        f"{'Quick sizes (--quick). ' if args.quick else ''}"
        f"Medians of {args.rounds} alternating runs of at least {args.min_time} s "
        f"each; inputs are the same deterministic f32 values on both sides (cast to bf16 or "
        f"f16 in those rows).",
        "",
        bd.table(headers, rows),
        "",
        "speedup = torch time / ember time (> 1: ember faster); `speedup vs out=` compares "
        "with torch writing into preallocated outputs (out= / in place), which spares it the "
        "allocation and page faults of a new output: the kernel-level figure. GB/s counts the "
        "bytes an ideal kernel moves (inputs read once, output written once; GELU: its input "
        "and output only); `ember / STREAM copy` is that over the STREAM copy row of the same "
        "thread count. `same result`: sum of |output| within 1e-3 relative (argmax, argmin: "
        "equal); softmax's gradient from a seed of ones is 0 up to rounding, whose sums differ. "
        "Rows marked `LibTorch C++ peer` compare with torch's C++ API "
        "(peer_torch/tiny_ops_libtorch.cpp) instead of Python: dispatch overhead without the "
        "interpreter." + (f" Their LibTorch: {libtorch_dir(args.build_dir)}."
                          if with_libtorch else ""),
    ])
    print()
    print(body)
    bd.write_results(bd.results_path(args.results, "ops"), "Op workloads: ember vs PyTorch CPU",
                     peer, body, keep_rest=True)


if __name__ == "__main__":
    main()
