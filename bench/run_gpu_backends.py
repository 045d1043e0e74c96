#!/usr/bin/env python3
"""ember's GPU backends side by side on one GPU, in one run: `cuda`, `vulkan` and `wgpu` (each a
column) against PyTorch CUDA, on the CUDA issue's workloads (issue 20's table): the D2D copy (the
bandwidth ceiling), add, exp, the GELU from nine primitive ops, softmax, sums along each dim,
matmul in f16 and f32, conv2d, and the encoder training step.

For each workload, every ember device runs it (bench/cuda_bench.cpp, one process a device, the
same program run_cuda.py drives), then the PyTorch worker (bench/peer_torch/cuda_ops.py) with the
first device's iteration count; each figure is the median of 5 windows of the device clock (CUDA
events on cuda and torch, timestamp queries on vulkan and wgpu). The encoder step is
bench/encoder_step_bench on each device, and bench/peer_torch/encoder_step.py (eager with fused
AdamW) for torch. Prints a markdown table, writes it to --results and the raw lines to --out.

How to run it on the GPU machine: build cuda_bench and encoder_step_bench with the cuda, vulkan
and wgpu backends (bench/pack-for-host packs them and their libraries; carry libvulkan.so.1 where
the machine has no Vulkan loader), then there:

  python3 bench/run_gpu_backends.py --ember /tmp/ember/bench/cuda_bench \\
    --encoder /tmp/ember/bench/encoder_step_bench --devices cuda:0,vulkan,wgpu

A headless NVIDIA machine whose Vulkan ICD is libGLX_nvidia finds no Vulkan device (the ICD gives
no vkCreateInstance without a display); point the loader at libEGL_nvidia instead
(docs/backends/vulkan.md, "On an NVIDIA GPU"). `--quick --devices cpu,ndarray` runs the whole path
on the CPU, to test the script.
"""

import argparse
import json
import os
import subprocess
import sys

import bench_driver as bd
import run_cuda as rc
import run_encoder

# (workload, shape, dtype, extra flags): the CUDA issue's rows, f16 matmul for the shader devices'
# cooperative matrices (no graphics device computes bf16).
FULL = [
    ("copy", [32, 512, 1024], "f32", {}),
    ("add", [32, 512, 1024], "f32", {}),
    ("exp", [32, 512, 1024], "f32", {}),
    ("gelu", [32, 512, 2048], "f32", {}),
    ("softmax", [64, 1024, 1024], "f32", {"dim": 2}),
    ("sum", [64, 1024, 1024], "f32", {"dim": 0}),
    ("sum", [64, 1024, 1024], "f32", {"dim": 1}),
    ("sum", [64, 1024, 1024], "f32", {"dim": 2}),
    ("matmul", [4096, 4096, 4096], "f16", {}),
    ("matmul", [4096, 4096, 4096], "f32", {}),
    ("conv2d", [16, 64, 56, 56], "f32", {"out_channels": 64, "kernel": 3, "padding": 1}),
]
QUICK = [
    ("copy", [2, 64, 2048], "f32", {}),
    ("add", [2, 64, 1024], "f32", {}),
    ("gelu", [2, 64, 2048], "f32", {}),
    ("softmax", [4, 64, 1024], "f32", {"dim": 2}),
    ("sum", [4, 64, 1024], "f32", {"dim": 1}),
    ("matmul", [128, 128, 128], "f16", {}),
    ("conv2d", [2, 8, 12, 12], "f32", {"out_channels": 8, "kernel": 3, "padding": 1}),
]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ember", default=os.path.join(bd.REPO_DIR, "build", "bench", "cuda_bench"),
                   help="the cuda_bench program (default: build/bench/cuda_bench)")
    p.add_argument("--encoder", default=None,
                   help="the encoder_step_bench program (default: beside --ember)")
    p.add_argument("--python", default="python3", help="the peer's Python (default: python3)")
    p.add_argument("--devices", default="cuda:0,vulkan,wgpu",
                   help="ember's devices, one column each (default cuda:0,vulkan,wgpu)")
    p.add_argument("--torch-device", default="cuda:0",
                   help="PyTorch's device (default cuda:0; cpu to test the script)")
    p.add_argument("--quick", action="store_true", help="small shapes (to test on the CPU)")
    p.add_argument("--steps", type=int, default=10, help="encoder steps per window (default 10)")
    p.add_argument("--no-encoder", action="store_true", help="leave the encoder step out")
    p.add_argument("--timeout", type=int, default=300,
                   help="seconds each program may run before its cell reads failed (default 300)")
    p.add_argument("--out", default=os.path.join(bd.BENCH_DIR, "results", "gpu_backends.jsonl"),
                   help="the raw JSON lines (default bench/results/gpu_backends.jsonl)")
    p.add_argument("--results", default=None,
                   help="the markdown table (default bench/results/gpu_backends.md)")
    return p.parse_args()


def run_json(command, env, timeout):
    """The last JSON line command prints, or {"error": why} when it printed none, failed or ran
    past timeout seconds."""
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"{' '.join(command)} ran past {timeout} s", file=sys.stderr)
        return {"error": f"past {timeout} s"}
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines or "error" in lines[-1]:
        why = (lines[-1].get("message") if lines else None) or result.stderr.strip()[-300:]
        print(f"{' '.join(command)} failed ({result.returncode}): {why}", file=sys.stderr)
        return {"error": why or f"exit {result.returncode}"}
    return lines[-1]


def spec_of(workload, shape, dtype, extra):
    return dict({"workload": workload, "shape": shape, "dtype": dtype}, **extra)


def work_of(line):
    """The iteration count and the work (bytes or flops) torch's worker needs, from an ember
    line: its figure times its time."""
    work = {"iterations": line["iterations"]}
    if "gbs" in line:
        work["bytes"] = round(line["gbs"] * line["ms"] * 1e6)
    if "tflops" in line:
        work["flops"] = round(line["tflops"] * line["ms"] * 1e9)
    return work


def measure_ops(args, env, worker, out):
    """(spec, {device: line}, torch line) per workload."""
    rows = []
    for workload, shape, dtype, extra in (QUICK if args.quick else FULL):
        spec = spec_of(workload, shape, dtype, extra)
        lines = {}
        for device in args.device_list:
            lines[device] = run_json([args.ember, "--device", device,
                                      *rc.ember_workload_flags(spec)], env, args.timeout)
        done = [line for line in lines.values() if "error" not in line]
        request = dict(spec, **work_of(done[0])) if done else spec
        torch = worker.measure(request)
        for side, line in [*lines.items(), ("torch", torch)]:
            out.write(json.dumps(dict(line, side=side)) + "\n")
        out.flush()
        print(f"{rc.label(spec)}: " + ", ".join(
            f"{side} {rc.progress(spec, line)}" for side, line in [*lines.items(),
                                                                   ("torch", torch)]),
              flush=True)
        rows.append((spec, lines, torch))
    return rows


def measure_encoder(args, env, out):
    """{device: line} and torch's line for the f32 encoder step (eager with fused AdamW)."""
    sizes = ["--quick"] if args.quick else []
    lines = {}
    for device in args.device_list:
        lines[device] = run_json([args.encoder, "--device", device, "--steps", str(args.steps),
                                  *sizes], env, args.timeout)
    done = [line for line in lines.values() if "error" not in line]
    if done:  # the model ember ran
        sizes = [flag for name in run_encoder.SIZES for flag in (f"--{name}", str(done[0][name]))]
    torch = run_json([args.python, os.path.join(bd.PEER_DIR, "encoder_step.py"), "--device",
                      args.torch_device, "--mode", "eager_fused_adamw", "--precision", "f32",
                      "--steps", str(args.steps), *sizes], dict(os.environ), args.timeout)
    for side, line in [*lines.items(), ("torch", torch)]:
        out.write(json.dumps(dict(line, side=side, workload="encoder_step")) + "\n")
    print("encoder step: " + ", ".join(f"{side} {line.get('ms', 'failed')} ms"
                                       for side, line in [*lines.items(), ("torch", torch)]))
    return lines, torch


def cell(spec, line):
    value = rc.figure(spec, line)
    return f"{value:.4g}" if value is not None else "failed"


def share(value, of):
    return f"{value / of:.0%}" if value is not None and of else "—"


def op_table(args, rows):
    ceiling = max((rc.figure(spec, line) or 0 for spec, lines, torch in rows
                   if spec["workload"] == "copy" for line in [*lines.values(), torch]),
                  default=0)
    headers = ["workload", "unit", "PyTorch"] + [f"`{d}`" for d in args.device_list] + [
        f"`{d}` / PyTorch" for d in args.device_list] + [
        f"`{d}` % of copy" for d in args.device_list]
    body = []
    for spec, lines, torch in rows:
        figures = [rc.figure(spec, lines[d]) for d in args.device_list]
        peer = rc.figure(spec, torch)
        body.append([rc.label(spec), rc.UNITS[rc.unit_key(spec)], cell(spec, torch)]
                    + [cell(spec, lines[d]) for d in args.device_list]
                    + [share(f, peer) if peer else "—" for f in figures]
                    + [share(f, ceiling) if rc.unit_key(spec) == "gbs" else "—"
                       for f in figures])
    return bd.table(headers, body)


def encoder_table(args, lines, torch):
    first = lines[args.device_list[0]].get("ms")
    headers = ["side", "ms per step", f"vs `{args.device_list[0]}`", "loss after the windows"]
    peer = torch.get("ms")
    body = [["PyTorch eager, fused AdamW", f"{peer:.4g}" if peer else "failed", "—",
             f"{torch.get('loss_last', '—')}"]]
    for device in args.device_list:
        ms = lines[device].get("ms")
        body.append([f"`{device}`", f"{ms:.4g}" if ms else "failed",
                     f"{ms / first:.2f}x" if ms and first else "—",
                     f"{lines[device].get('loss_last', '—')}"])
    return bd.table(headers, body)


def main():
    args = parse_args()
    args.device_list = args.devices.split(",")
    args.encoder = args.encoder or os.path.join(os.path.dirname(args.ember), "encoder_step_bench")
    env = rc.ember_env(args.ember, args.python)
    worker = rc.TorchWorker(args.python, args.torch_device, False)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        rows = measure_ops(args, env, worker, out)
        worker.close()
        encoder = None if args.no_encoder else measure_encoder(args, env, out)
    text = [f"ember devices {', '.join(f'`{d}`' for d in args.device_list)}; PyTorch "
            f"{worker.about['ready']} (CUDA {worker.about['cuda']}) on `{worker.about['device']}` "
            f"({worker.about['gpu']}). {'Quick sizes. ' if args.quick else ''}Each figure: 3 "
            "warm-ups, then N iterations in one window of the device clock, median of 5 windows "
            "(torch runs the first device's N); full f32 (no TF32). `/ PyTorch`: throughput over "
            "PyTorch's (> 1: ember faster); `% of copy`: GB/s over the fastest D2D copy of the "
            "run.", "", op_table(args, rows)]
    if encoder:
        text += ["", "Encoder training step (RoBERTa-base sized, f32, AdamW; "
                 "bench/encoder_step_bench.cpp):", "", encoder_table(args, *encoder)]
    body = "\n".join(text)
    print()
    print(body)
    bd.write_results(bd.results_path(args.results, "gpu_backends"),
                     "ember's GPU backends (cuda, vulkan, wgpu) vs PyTorch CUDA on one GPU",
                     [f"- GPU: {worker.about['gpu']}"], body, threads_line=False)


if __name__ == "__main__":
    main()
