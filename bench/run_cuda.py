#!/usr/bin/env python3
"""ember's cuda device vs PyTorch on the same GPU, in the same run: matmul (bf16, f32, f16), conv2d
(f32, bf16; cuDNN on both sides), elementwise ops, a GELU from nine primitive ops (and torch.compile's), softmax, sums along each
dim, scaled dot-product attention (bf16, f32; forward, and forward + backward), the
device-to-device copy that is the bandwidth ceiling, and the host time of tiny ops.

For each workload of `cuda_bench --list`, ember (bench/cuda_bench.cpp, one process per workload)
runs first, then the PyTorch worker (bench/peer_torch/cuda_ops.py, one process for the whole run)
with ember's iteration count, so both time the same N iterations in one window of the device
clock (CUDA events), median of 5 windows. Prints a markdown table (ratio > 1: ember faster),
writes it with the machine and versions to --results, and the raw JSON lines of both sides
(each with "side": "ember" or "torch") to --out. Exits non-zero, saying why, when ember or torch
finds no GPU.

Needs only the standard library; the peer's Python needs torch. On this repository's machines
(no GPU) `--device cpu --quick` runs the whole path on the CPU, to test the scripts.

How to run it on the GPU machine (no Debian packages there; PyTorch with CUDA as python3):

  1. Here, build and pack the program with the libraries it loads:
       cmake --preset default -B build-bench -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF
       cmake --build build-bench --target cuda_bench
       bench/pack-for-host build-bench out/ember-cuda-bench.tar.xz
  2. There, in a copy of this tree with out/ember-cuda-bench.tar.xz (out/ is git-ignored: bring
     it along explicitly):
       mkdir -p /tmp/ember && tar xJf out/ember-cuda-bench.tar.xz -C /tmp/ember
       python3 bench/run_cuda.py --ember /tmp/ember/bench/cuda_bench --out cuda.jsonl \\
         --results cuda.md

The packed libraries (/tmp/ember/lib, beside the program's bench folder) go on ember's
LD_LIBRARY_PATH only, not torch's. ember opens the CUDA driver, NVRTC, cuBLASLt and cuDNN at run
time; where no CUDA toolkit is installed, ember's LD_LIBRARY_PATH also ends with the folders of
the peer's pip-installed NVIDIA libraries (the nvidia.* packages PyTorch depends on), so it finds
libnvrtc, libcublasLt and libcudnn there (without libcudnn ember's convolutions are column
matrices and cuBLASLt products). --tf32 lets both sides round f32 products to TF32 (ember's
MatmulPrecision::High; torch's allow_tf32 for matmul and cuDNN); without it both compute f32 in
full f32. The first run compiles ember's kernels with NVRTC (cached in
~/.cache/ember/cuda) during the warm-ups, outside the timed windows. A full run takes a few
minutes (torch.compile's GELU alone up to a minute).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

import bench_driver as bd

# Relative tolerance of the checksums (sum of |output|): f32 sums in different orders, bf16
# products accumulated in different orders and rounded to 8 bits of mantissa.
TOLERANCE = {"f32": 1e-3, "bf16": 1e-2, "f16": 1e-2}
UNITS = {"tflops": "TFLOP/s", "gbs": "GB/s", "us_per_op": "µs/op"}
NO_DEVICE = 3  # cuda_bench's and cuda_ops.py's exit status when the device is not there

# Asks the peer's Python where its pip-installed NVRTC, cuBLASLt and cuDNN are (nvidia/cu13/lib,
# nvidia/cudnn/lib, ...).
NVIDIA_LIBRARY_DIRS = """
import glob, os
try:
    import nvidia
except ImportError:
    raise SystemExit
dirs = {os.path.dirname(p) for d in nvidia.__path__
        for name in ("libnvrtc.so*", "libcublasLt.so*", "libcudnn.so*")
        for p in glob.glob(os.path.join(d, "**", name), recursive=True)}
print(os.pathsep.join(sorted(dirs)))
"""


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ember", default=os.path.join(bd.REPO_DIR, "build", "bench", "cuda_bench"),
                   help="the cuda_bench program (default: build/bench/cuda_bench)")
    p.add_argument("--python", default="python3", help="the peer's Python (default: python3)")
    p.add_argument("--device", default="cuda:0",
                   help="ember's device (default cuda:0); torch runs on the same GPU, or on the "
                        "CPU for a device that is not cuda")
    p.add_argument("--quick", action="store_true",
                   help="cuda_bench's small shapes (for testing on the CPU)")
    p.add_argument("--tf32", action="store_true",
                   help="f32 products in TF32 on both sides (ember's MatmulPrecision::High, "
                        "torch's allow_tf32 for matmul and cuDNN); default: full f32")
    p.add_argument("--only", default=None,
                   help="run only the rows whose label contains one of these texts (comma "
                        "separated), and the copy")
    p.add_argument("--out", default=os.path.join(bd.BENCH_DIR, "results", "cuda.jsonl"),
                   help="the file the raw JSON lines go to (default bench/results/cuda.jsonl)")
    p.add_argument("--results", default=None,
                   help="the markdown file the table goes to (default bench/results/cuda.md)")
    return p.parse_args()


def torch_device(device):
    return device if device.startswith("cuda") else "cpu"


def ember_env(ember, python):
    """ember's environment (torch's stays the caller's): LD_LIBRARY_PATH starting with the lib
    folder beside a packed program's bench folder (bench/pack-for-host's layout) and ending with
    the peer's NVIDIA library folders, so that ember finds NVRTC and cuBLASLt where no toolkit is
    installed (a toolkit on the caller's path, or CUDA_HOME, still comes first)."""
    packed = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(ember))), "lib")
    probe = subprocess.run([python, "-c", NVIDIA_LIBRARY_DIRS], capture_output=True, text=True)
    nvidia = probe.stdout.strip() if probe.returncode == 0 else ""
    dirs = [packed if os.path.isdir(packed) else "", os.environ.get("LD_LIBRARY_PATH", ""), nvidia]
    return dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join(d for d in dirs if d))


def run_ember(args, env, flags):
    """cuda_bench's JSON lines for flags; exits saying so when the device is not there, and
    returns None (after printing its error) when it failed otherwise."""
    command = [args.ember, "--device", args.device, *flags, *(["--tf32"] if args.tf32 else [])]
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode == NO_DEVICE:
        message = lines[-1]["message"] if lines else result.stderr.strip()
        sys.exit(f"run_cuda.py: ember reports no GPU on {args.device}: {message}")
    if result.returncode != 0:
        print(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}",
              file=sys.stderr)
        return None
    return lines


def ember_workload_flags(spec):
    flags = ["--workload", spec["workload"], "--shape", ",".join(map(str, spec["shape"])),
             "--dtype", spec["dtype"]]
    for key in ("dim", "out_channels", "kernel", "padding"):
        if key in spec:
            flags += ["--" + key.replace("_", "-"), str(spec[key])]
    return flags


class TorchWorker:
    """bench/peer_torch/cuda_ops.py, answering one request a line."""

    def __init__(self, python, device, tf32):
        self.process = subprocess.Popen(
            [python, os.path.join(bd.PEER_DIR, "cuda_ops.py"), "--device", device,
             *(["--tf32"] if tf32 else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.about = self._read()
        if "error" in self.about:
            sys.exit(f"run_cuda.py: PyTorch reports no GPU on {device}: "
                     f"{self.about['message']}")

    def _read(self):
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"run_cuda.py: the PyTorch worker stopped (exit {self.process.wait()})")
        return json.loads(line)

    def measure(self, request):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def label(spec, side_note=""):
    shape, dtype, workload = spec["shape"], spec["dtype"], spec["workload"]
    dims = "x".join(map(str, shape))
    if workload == "matmul":
        m, k, n = shape
        return f"matmul {m}x{k} @ {k}x{n} {dtype}"
    if workload in ("attention", "attention_backward"):
        b, h, length, e = shape
        direction = "forward" if workload == "attention" else "forward + backward"
        return f"attention {direction} B{b} H{h} L=S={length} E{e} {dtype}"
    if workload == "conv2d":
        k = spec["kernel"]
        return (f"conv2d [{dims}] {dtype}, {spec['out_channels']} out, {k}x{k} kernel, "
                f"padding {spec['padding']}")
    texts = {
        "copy": f"D2D copy [{dims}] {dtype} (ember: cat of one tensor; torch: y.copy_(x))",
        "gelu": f"GELU from 9 primitive ops [{dims}] {dtype}{side_note}",
        "softmax": f"softmax last dim [{dims}] {dtype}",
        "sum": f"sum dim {spec.get('dim')} [{dims}] {dtype}",
        "tiny_add": f"tiny add_scalar x10000 chained [{dims}] (ember: fusion runs the chain)",
        "tiny_add_flush": f"tiny add_scalar x10000 chained [{dims}] (ember: a flush per op)",
    }
    return texts.get(workload, f"{workload} [{dims}] {dtype}")


def unit_key(spec):
    """The figure a workload's lines carry: a key of UNITS."""
    if spec["workload"] in ("matmul", "conv2d", "attention", "attention_backward"):
        return "tflops"
    return "us_per_op" if spec["workload"].startswith("tiny_add") else "gbs"


def figure(spec, result):
    """The figure of a result line, or None for a failed run."""
    return None if result is None or "error" in result else result[unit_key(spec)]


def progress(spec, result):
    value = figure(spec, result)
    return f"{value:.4g} {UNITS[unit_key(spec)]}" if value is not None else "failed"


def ratio(spec, ember, torch):
    """> 1: ember faster (throughputs ember / torch, times torch / ember)."""
    e, t = figure(spec, ember), figure(spec, torch)
    if e is None or t is None:
        return "—"
    return f"{(t / e if unit_key(spec) == 'us_per_op' else e / t):.2f}"


def same_result(spec, ember, torch):
    if ember is None or torch is None or "error" in torch:
        return "—"
    e, t = ember["checksum"], torch["checksum"]
    if abs(e - t) <= TOLERANCE.get(spec["dtype"], 1e-3) * abs(t):
        return "yes"
    return f"NO ({e:.6g} vs {t:.6g})"


def of_copy(spec, result, ceiling):
    value = figure(spec, result)
    if value is None or unit_key(spec) != "gbs" or not ceiling:
        return "—"
    return f"{value / ceiling:.0%}"


def copy_ceiling(measured):
    """The faster of the two sides' D2D copies, in GB/s: the card's bandwidth as measured."""
    rates = [figure(spec, r) for spec, ember, torch in measured if spec["workload"] == "copy"
             for r in (ember, torch)]
    return max((r for r in rates if r is not None), default=None)


def table_row(spec, ember, torch, ceiling, side_note=""):
    cell = lambda result: f"{figure(spec, result):.4g}" if figure(spec, result) else "failed"
    return [label(spec, side_note), UNITS[unit_key(spec)], cell(ember), cell(torch),
            ratio(spec, ember, torch), of_copy(spec, ember, ceiling),
            of_copy(spec, torch, ceiling), same_result(spec, ember, torch)]


def measure_all(args, specs, worker, env, out):
    """(spec, ember line, torch line) per row, ember and torch alternating workload by workload;
    GELU gets a second row against torch.compile."""
    measured = []
    for spec in specs:
        lines = run_ember(args, env, ember_workload_flags(spec))
        ember = lines[-1] if lines else None
        requests = [spec] + ([dict(spec, workload="gelu_compiled")]
                             if spec["workload"] == "gelu" else [])
        for request in requests:
            if ember is not None:
                request = dict(request, iterations=ember["iterations"])
            torch = worker.measure(request)
            for side, line in (("ember", ember), ("torch", torch)):
                if line is not None:
                    out.write(json.dumps(dict(line, side=side)) + "\n")
            out.flush()
            measured.append((dict(spec, peer=request["workload"]), ember, torch))
            print(f"{label(spec)}: ember {progress(spec, ember)}, torch {progress(spec, torch)}"
                  f"{' (torch.compile)' if request['workload'] == 'gelu_compiled' else ''}",
                  flush=True)
    return measured


def notes(args, worker, device):
    return (
        f"ember device `{device}`, PyTorch {worker.about['ready']} (CUDA "
        f"{worker.about['cuda']}) on `{worker.about['device']}` ({worker.about['gpu']}). "
        f"{'Quick sizes (--quick). ' if args.quick else ''}"
        "Each figure: 3 warm-ups, then N iterations (about 20 ms, at least 10; torch runs "
        "ember's N) in one window of the device clock (CUDA events: launch gaps count, no host "
        "sync per iteration), median of 5 windows; ember runs first, then torch, workload by "
        "workload. ember: fusion on (GELU's nine ops run as one kernel), `device.flush()` after "
        "each iteration (else the fusion layer drops results nobody holds); torch: eager, and "
        "`torch.compile` of the same nine ops in the row so marked. Both: "
        + ("f32 matmul and convolutions in TF32 (--tf32)" if args.tf32 else
           "f32 matmul and convolutions in full f32 (no TF32)")
        + ", bf16 matmul with f32 accumulation "
        "(`allow_bf16_reduced_precision_reduction = False`). The tiny rows are host time per op "
        "(wall clock of 10000 chained adds and one sync). ratio > 1: ember faster (throughput "
        "ember / torch, time torch / ember). GB/s counts the bytes of the minimal kernel (inputs "
        "read once, output written once); `% of copy` is that over the faster side's D2D copy. "
        "`same result`: sum of |output| within 1e-3 relative (bf16: 1e-2).")


def main():
    args = parse_args()
    if not os.access(args.ember, os.X_OK):
        sys.exit(f"run_cuda.py: {args.ember} not found: build it (cmake --build build-bench "
                 f"--target cuda_bench) or pass --ember")
    if shutil.which(args.python) is None:
        sys.exit(f"run_cuda.py: no Python {args.python!r} (--python names the peer's)")
    env = ember_env(args.ember, args.python)
    check = run_ember(args, env, ["--check"])
    specs = run_ember(args, env, ["--list"] + (["--quick"] if args.quick else []))
    if not check or not specs:
        sys.exit(f"run_cuda.py: {args.ember} did not answer --check and --list (above)")
    device = check[0]["device"]
    wanted = None if args.only is None else args.only.split(",")
    specs = [s for s in specs if wanted is None or s["workload"] == "copy"
             or any(text in label(s) for text in wanted)]
    worker = TorchWorker(args.python, torch_device(args.device), args.tf32)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        measured = measure_all(args, specs, worker, env, out)
    worker.close()
    ceiling = copy_ceiling(measured)
    rows = [table_row(spec, ember, torch, ceiling,
                      " vs torch.compile" if spec["peer"] == "gelu_compiled" else "")
            for spec, ember, torch in measured]
    headers = ["workload", "unit", "ember", "PyTorch", "ratio", "ember % of copy",
               "torch % of copy", "same result"]
    body = "\n".join([notes(args, worker, device), "", bd.table(headers, rows)])
    print()
    print(body)
    peer = [f"- GPU: {worker.about['gpu']}",
            f"- peer: PyTorch {worker.about['ready']}, CUDA {worker.about['cuda']} ({args.python})"]
    bd.write_results(bd.results_path(args.results, "cuda"), "ember cuda vs PyTorch on the GPU",
                     peer, body, threads_line=False)
    print(f"raw lines written to {args.out}")


if __name__ == "__main__":
    main()
