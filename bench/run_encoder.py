#!/usr/bin/env python3
"""ember vs PyTorch on one training step of a RoBERTa-base-sized encoder, in the same run: 768
hidden, 12 heads, 12 layers, FFN 3072 (GELU, post-norm), batch 2 x 256 tokens, dropout 0.1,
AdamW, f32 and bf16.

For each dtype, ember (bench/encoder_step_bench.cpp, one process) runs first, then PyTorch
(bench/peer_torch/encoder_step.py, one process per configuration) with ember's sizes and step
count: eager, eager with AdamW(fused=True), torch.compile and torch.compile(mode="reduce-overhead")
(CUDA graphs); f32 against an f32 model (no TF32 on either side), bf16 against a bf16 model
(ember has no autocast: its bf16 row is a bf16 model) and against autocast(bf16) over an f32
model. Each figure: ms per step, the median of 3 windows of N steps on the device clock (CUDA
events). Prints a markdown table (ratio torch / ember > 1: ember faster), writes it with the
machine and versions to --results, and the raw JSON lines of both sides (each with "side":
"ember" or "torch") to --out. Exits non-zero, saying why, when ember or torch finds no GPU.

Needs only the standard library; the peer's Python needs torch. On this repository's machines
(no GPU) `--device cpu --quick` runs the whole path on the CPU with a tiny model, to test the
scripts (the compile modes are skipped there).

How to run it on the GPU machine (PyTorch with CUDA as python3), with the program packed as
run_cuda.py's header says (target encoder_step_bench; bench/pack-for-host) and unpacked so that
the program is /tmp/e/bin/encoder_step_bench or /tmp/e/bench/encoder_step_bench:

  python3 bench/run_encoder.py --ember /tmp/e/bench/encoder_step_bench --out encoder.jsonl \\
    --results encoder.md

ember's LD_LIBRARY_PATH gets the packed lib folder (beside the program's folder) and the peer's
pip-installed NVIDIA libraries (run_cuda.py's ember_env). A full run: ember's first steps compile
its kernels with NVRTC (cached in ~/.cache/ember/cuda); torch.compile takes about a minute per
configuration; in all some 10 to 15 minutes.
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

import bench_driver as bd
from run_cuda import NO_DEVICE, ember_env, torch_device

MODES = ["eager", "eager_fused_adamw", "compile", "compile_reduce_overhead"]
MODE_TEXT = {"eager": "eager", "eager_fused_adamw": "eager, AdamW(fused=True)",
             "compile": "torch.compile", "compile_reduce_overhead":
             "torch.compile reduce-overhead (CUDA graphs)"}
# Per ember dtype: the torch precisions it is compared with.
PRECISIONS = {"f32": ["f32"], "bf16": ["bf16", "bf16_autocast"]}
PRECISION_TEXT = {"f32": "f32", "bf16": "bf16 model",
                  "bf16_autocast": "bf16 (torch: autocast over an f32 model)"}
SIZES = ["layers", "hidden", "heads", "ffn", "batch", "seq", "vocab"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ember", default=os.path.join(bd.REPO_DIR, "build", "bench",
                                                   "encoder_step_bench"),
                   help="the encoder_step_bench program (default: build/bench/encoder_step_bench)")
    p.add_argument("--python", default="python3", help="the peer's Python (default: python3)")
    p.add_argument("--device", default="cuda:0",
                   help="ember's device (default cuda:0); torch runs on the same GPU, or on the "
                        "CPU for a device that is not cuda")
    p.add_argument("--quick", action="store_true",
                   help="a tiny model (2 layers, 64 hidden, 32 tokens) for testing on the CPU")
    p.add_argument("--dtypes", default="f32,bf16", help="ember dtypes (default f32,bf16)")
    p.add_argument("--modes", default=",".join(MODES),
                   help=f"torch modes (default all: {','.join(MODES)})")
    p.add_argument("--steps", type=int, default=20, help="steps per window (default 20)")
    p.add_argument("--vocab", type=int, default=None,
                   help="vocabulary of both sides (default 50265; 0: no embeddings, fixed "
                        "features go in)")
    p.add_argument("--threads", type=int, default=os.cpu_count(),
                   help="CPU threads of both sides (EMBER_NUM_THREADS, torch.set_num_threads; "
                        "default all cores)")
    p.add_argument("--out", default=os.path.join(bd.BENCH_DIR, "results", "encoder.jsonl"),
                   help="the file the raw JSON lines go to (default bench/results/encoder.jsonl)")
    p.add_argument("--results", default=None,
                   help="the markdown file the table goes to (default bench/results/encoder.md)")
    return p.parse_args()


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def run_ember(args, env, dtype):
    """encoder_step_bench's line for dtype, or None (after printing why) when it failed; exits
    when the device is not there."""
    command = [args.ember, "--device", args.device, "--dtype", dtype, "--steps", str(args.steps)]
    command += (["--quick"] if args.quick else []) + (
        ["--vocab", str(args.vocab)] if args.vocab is not None else [])
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    lines = json_lines(result.stdout)
    if result.returncode == NO_DEVICE:
        message = lines[-1]["message"] if lines else result.stderr.strip()
        if dtype == "f32" or "no CUDA" in message:
            sys.exit(f"run_encoder.py: ember reports no usable {args.device}: {message}")
    if result.returncode != 0 or not lines or "error" in lines[-1]:
        print(f"{shlex.join(command)} failed ({result.returncode}):\n{result.stderr}",
              file=sys.stderr)
        return lines[-1] if lines and "ms" in lines[-1] else None
    return lines[-1]


def run_torch(args, ember, mode, precision):
    """(encoder_step.py's ready line, its result line) for one configuration, with ember's sizes
    where ember ran; exits when torch sees no GPU."""
    command = [args.python, os.path.join(bd.PEER_DIR, "encoder_step.py"),
               "--device", torch_device(args.device), "--mode", mode, "--precision", precision,
               "--steps", str(args.steps), "--threads", str(args.threads)]
    if ember is not None:
        for name in SIZES:
            command += [f"--{name}", str(ember[name])]
    else:
        command += (["--quick"] if args.quick else []) + (
            ["--vocab", str(args.vocab)] if args.vocab is not None else [])
    result = subprocess.run(command, env=bd.torch_env(args.threads), capture_output=True,
                            text=True)
    lines = json_lines(result.stdout)
    if not lines:
        print(f"{shlex.join(command)} failed ({result.returncode}):\n{result.stderr}",
              file=sys.stderr)
        return None, {"mode": mode, "precision": precision, "error": "no output"}
    if "error" in lines[0]:
        sys.exit(f"run_encoder.py: PyTorch reports no GPU: {lines[0]['message']}")
    if len(lines) < 2 or "error" in lines[-1]:
        print(f"{shlex.join(command)} failed ({result.returncode}):\n{result.stderr[-4000:]}",
              file=sys.stderr)
    return lines[0], lines[-1] if len(lines) > 1 else {"mode": mode, "precision": precision,
                                                       "error": "no result line"}


def cell_ms(line):
    if line is None:
        return "failed"
    if "skipped" in line:
        return "skipped"
    return f"{line['ms']:.4g}" if "ms" in line else "failed"


def cell_loss(line):
    if line is None or "loss_first" not in line:
        return "—"
    return f"{line['loss_first']:.4g} → {line['loss_last']:.4g}"


def progress(line):
    if line is None or "ms" not in line:
        return line.get("skipped", line.get("error", "failed")) if line else "failed"
    return f"{line['ms']:.4g} ms/step, loss {cell_loss(line)}"


def ratio(ember, torch):
    if ember is None or torch is None or "ms" not in ember or "ms" not in torch:
        return "—"
    return f"{torch['ms'] / ember['ms']:.2f}"


def measure_all(args, env, out):
    """(precision, mode, ember line, torch line) per row, and torch's ready line."""
    rows, about = [], None
    for dtype in args.dtypes.split(","):
        ember = run_ember(args, env, dtype)
        if ember is not None:
            out.write(json.dumps(dict(ember, side="ember")) + "\n")
        print(f"ember {dtype}: {progress(ember)}", flush=True)
        for precision in PRECISIONS[dtype]:
            for mode in args.modes.split(","):
                ready, torch = run_torch(args, ember, mode, precision)
                about = about or ready
                out.write(json.dumps(dict(torch, side="torch")) + "\n")
                out.flush()
                print(f"torch {precision} {mode}: {progress(torch)}", flush=True)
                rows.append((precision, mode, ember, torch))
    return rows, about


def model_text(line):
    if line is None:
        return "the model of encoder_step_bench.cpp's top comment"
    return (f"{line['layers']} x TransformerEncoderLayer({line['hidden']}, {line['heads']} heads, "
            f"FFN {line['ffn']}, GELU, post-norm, dropout {line['dropout']}), embeddings: "
            f"{line['embedding']}; head: {line['head']}; loss: {line['loss']}; batch "
            f"{line['batch']} x {line['seq']} tokens; {line['params']:,} parameters; "
            f"{line['optimizer']}")


def notes(args, about, ember_line):
    gpu = f" on `{about['device']}` ({about['gpu']}, CUDA {about['cuda']})" if about else ""
    version = about["ready"] if about else "?"
    return (
        f"ember device `{args.device}`, PyTorch {version}{gpu}. "
        f"{'Quick sizes (--quick, a tiny model for testing). ' if args.quick else ''}"
        f"Model: {model_text(ember_line)}. Each figure: ms per training step (forward, "
        "cross-entropy, backward, AdamW), the median of 3 windows of N steps (N = "
        f"{args.steps}) after the warm-ups (3; torch.compile rows 5), on the device clock (CUDA "
        "events: launch gaps count, no host sync per step; on the CPU, wall clock between two "
        "syncs); ember runs first, then torch, dtype by dtype. ember: autodiff, nn's "
        "TransformerEncoderLayer, fusion on, `device.flush()` after each step, parameters "
        "created in persistent allocations; its bf16 is a bf16 model (no autocast: parameters, "
        "activations, gradients and AdamW's state in bf16), compared with torch's bf16 model and "
        "with torch's autocast over an f32 model. torch: nn.TransformerEncoderLayer (training: "
        "the scaled_dot_product_attention path), eager with AdamW's default (foreach) or "
        "fused=True; the torch.compile rows compile the model (forward and backward) and use "
        "AdamW(fused=True) uncompiled. Both: f32 matmuls in full f32 (no TF32). ratio = torch "
        "ms / ember ms: > 1 means ember is faster. The losses (first warm-up step → last timed "
        "step) only show that both sides train (finite, falling): the initial weights and the "
        "dropout draws differ.")


def main():
    args = parse_args()
    if not os.access(args.ember, os.X_OK):
        sys.exit(f"run_encoder.py: {args.ember} not found: build it (cmake --build build "
                 f"--target encoder_step_bench) or pass --ember")
    if shutil.which(args.python) is None:
        sys.exit(f"run_encoder.py: no Python {args.python!r} (--python names the peer's)")
    env = dict(ember_env(args.ember, args.python), EMBER_NUM_THREADS=str(args.threads))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        rows, about = measure_all(args, env, out)
    ember_line = next((e for _, _, e, _ in rows if e is not None), None)
    headers = ["precision", "PyTorch mode", "ember ms/step", "PyTorch ms/step", "ratio",
               "ember loss", "PyTorch loss"]
    table = [[PRECISION_TEXT[p], MODE_TEXT[m], cell_ms(e), cell_ms(t), ratio(e, t),
              cell_loss(e), cell_loss(t)] for p, m, e, t in rows]
    body = "\n".join([notes(args, about, ember_line), "", bd.table(headers, table, left=2)])
    print()
    print(body)
    cuda = about is not None and about["device"].startswith("cuda")
    peer = [f"- GPU: {about['gpu'] if about else '?'}",
            f"- peer: PyTorch {about['ready'] if about else '?'}, CUDA "
            f"{about['cuda'] if about else '?'} ({args.python})"]
    bd.write_results(bd.results_path(args.results, "encoder"),
                     "ember vs PyTorch: encoder training step", peer, body,
                     threads_line=not cuda)
    print(f"raw lines written to {args.out}")
    if any(e is None or t is None or "error" in t for _, _, e, t in rows):
        sys.exit("run_encoder.py: some runs failed (above)")


if __name__ == "__main__":
    main()
