"""PyTorch side of the encoder training-step comparison (bench/run_encoder.py drives it; the ember
side is bench/encoder_step_bench.cpp, whose top comment describes the model): one training step of
a RoBERTa-base-sized encoder, timed on the device clock. By hand:

    python3 bench/peer_torch/encoder_step.py --mode eager --precision f32 [--device cuda:0]

The model is ember's: nn.Embedding(vocab, hidden) + nn.Embedding(max(seq, 514), hidden) of the
positions, LayerNorm, Dropout(0.1) (--vocab 0: fixed features instead), then --layers
nn.TransformerEncoderLayer(hidden, heads, ffn, dropout=0.1, activation="gelu", batch_first=True,
norm_first=False), then nn.Linear(hidden, 2) on the first token and cross-entropy against the
labels b % 2; AdamW(lr=1e-4, weight_decay=0.01), training mode, the same fixed token ids.

--mode:
  eager                    AdamW's default implementation (foreach on CUDA)
  eager_fused_adamw        AdamW(fused=True)
  compile                  torch.compile(model) (forward and backward), AdamW(fused=True) eager
  compile_reduce_overhead  torch.compile(model, mode="reduce-overhead") (CUDA graphs),
                           AdamW(fused=True) eager
--precision:
  f32            f32 model, no TF32 (allow_tf32 off for matmul and cuDNN)
  bf16           model.to(torch.bfloat16): parameters, activations, gradients, AdamW's state and
                 the loss in bf16, as ember's bf16 model
  bf16_autocast  f32 model (f32 parameters and AdamW), forward and loss under
                 torch.autocast(bfloat16)

Timing: 3 warm-up steps (5 for the compile modes: compilation and CUDA-graph recording), then 3
windows of --steps steps between two CUDA events (no host sync per step), the median window /
steps. On the CPU (to test the scripts) windows are host time between two syncs, and the compile
modes are skipped unless --cpu-compile (they need a C++ compiler and take minutes).

Output: first {"ready": version, "device", "gpu", "cuda"} (cuda_ops.py's), or {"error":
"no_device", "message"} and exit 3; then one line {"bench": "encoder_step", "mode", "precision",
"device", sizes, "params", "optimizer", "warmups", "steps", "windows", "ms", "ms_windows",
"loss_first", "loss_last", "finite"}, or {"mode", "precision", "skipped": why} for a compile mode
on the CPU, or {"mode", "precision", "error"} (exit 2) when the step failed.
"""

import argparse
import json
import math
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F
from torch import nn

import common
from cuda_ops import answers_stream, ready_line, same_math

MODES = ("eager", "eager_fused_adamw", "compile", "compile_reduce_overhead")
PRECISIONS = ("f32", "bf16", "bf16_autocast")
QUICK = dict(layers=2, hidden=64, heads=4, ffn=256, batch=2, seq=32, vocab=1000)
FULL = dict(layers=12, hidden=768, heads=12, ffn=3072, batch=2, seq=256, vocab=50265)
ROBERTA_POSITIONS = 514
LABELS = 2
DROPOUT = 0.1
LR = 1e-4
WEIGHT_DECAY = 0.01
SEED = 42
WINDOWS = 3
NO_DEVICE = 3


class Encoder(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.vocab = s["vocab"]
        if self.vocab > 0:
            self.tokens = nn.Embedding(s["vocab"], s["hidden"])
            self.positions = nn.Embedding(max(s["seq"], ROBERTA_POSITIONS), s["hidden"])
            self.norm = nn.LayerNorm(s["hidden"], eps=1e-5)
            self.dropout = nn.Dropout(DROPOUT)
        layer = nn.TransformerEncoderLayer(s["hidden"], s["heads"], s["ffn"], dropout=DROPOUT,
                                           activation="gelu", layer_norm_eps=1e-5,
                                           batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(layer, s["layers"], enable_nested_tensor=False)
        self.head = nn.Linear(s["hidden"], LABELS)

    def forward(self, inputs, position_ids):
        if self.vocab > 0:
            x = self.dropout(self.norm(self.tokens(inputs) + self.positions(position_ids)))
        else:
            x = inputs
        return self.head(self.encoder(x)[:, 0])


def make_batch(s, device, dtype):
    """(inputs, position ids, labels): ember's fixed token ids (token b·L + l is
    (7919 (b·L + l) + 12345) mod vocab), or with --vocab 0 common.pattern features."""
    b, length = s["batch"], s["seq"]
    labels = (torch.arange(b) % LABELS).to(device)
    positions = torch.arange(b * length).remainder(length).reshape(b, length).to(device)
    if s["vocab"] > 0:
        ids = ((torch.arange(b * length, dtype=torch.int64) * 7919 + 12345) % s["vocab"])
        return ids.reshape(b, length).to(device), positions, labels
    return common.pattern([b, length, s["hidden"]], 0).to(device).to(dtype), positions, labels


def optimizer_for(mode, model):
    if mode == "eager":
        return torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY), \
            "AdamW default (foreach on CUDA)"
    return torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY, fused=True), \
        "AdamW(fused=True)"


def make_step(mode, precision, model, optimizer, batch, device, backend=None):
    """The training step: returns the loss (not read)."""
    inputs, positions, labels = batch
    forward = model
    if backend is not None and mode.startswith("compile"):
        forward = torch.compile(model, backend=backend)  # a test of the path: mode ignored
    elif mode == "compile":
        forward = torch.compile(model)
    elif mode == "compile_reduce_overhead":
        forward = torch.compile(model, mode="reduce-overhead")
    graphs = mode == "compile_reduce_overhead"
    autocast = precision == "bf16_autocast"

    def step():
        if graphs:
            torch.compiler.cudagraph_mark_step_begin()
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=autocast):
            loss = F.cross_entropy(forward(inputs, positions), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    return step


class Clock:
    """CUDA events on a GPU; host time between two syncs elsewhere."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"
        self.device = device

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize(self.device)

    def window_ms(self, step, n):
        """(ms of n steps, the last loss)."""
        if not self.cuda:
            self.sync()
            begin = time.perf_counter()
            for _ in range(n):
                loss = step()
            self.sync()
            return (time.perf_counter() - begin) * 1e3, loss
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            loss = step()
        end.record()
        end.synchronize()
        return start.elapsed_time(end), loss


def measure(args, s, device):
    torch.manual_seed(SEED)
    model_dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
    model = Encoder(s).to(device=device, dtype=model_dtype).train()
    batch = make_batch(s, device, model_dtype)
    optimizer, optimizer_text = optimizer_for(args.mode, model)
    step = make_step(args.mode, args.precision, model, optimizer, batch, device,
                     args.compile_backend)
    clock = Clock(device)
    warmups = args.warmups if args.warmups is not None else (
        5 if args.mode.startswith("compile") else 3)
    loss_first = step().item()
    for _ in range(warmups - 1):
        step()
    clock.sync()
    per_step, last = [], None
    for _ in range(WINDOWS):
        ms, last = clock.window_ms(step, args.steps)
        per_step.append(ms / args.steps)
    clock.sync()
    loss_last = last.item()
    return dict(
        bench="encoder_step", mode=args.mode, precision=args.precision, device=str(device),
        clock="device (CUDA events)" if clock.cuda else "wall (between two syncs)", **s,
        dropout=DROPOUT, params=sum(p.numel() for p in model.parameters()),
        optimizer=f"{optimizer_text}, lr 1e-4, weight decay 0.01",
        **({"compile_backend": args.compile_backend} if args.compile_backend else {}),
        warmups=warmups,
        steps=args.steps, windows=WINDOWS, ms=statistics.median(per_step), ms_windows=per_step,
        loss_first=loss_first, loss_last=loss_last,
        finite=math.isfinite(loss_first) and math.isfinite(loss_last))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda:0", help="torch device (default cuda:0)")
    p.add_argument("--mode", choices=MODES, default="eager")
    p.add_argument("--precision", choices=PRECISIONS, default="f32")
    p.add_argument("--quick", action="store_true", help="the tiny model of ember's --quick")
    for name in FULL:
        p.add_argument(f"--{name}", type=int, default=None)
    p.add_argument("--steps", type=int, default=20, help="steps per window (default 20)")
    p.add_argument("--warmups", type=int, default=None,
                   help="warm-up steps (default 3, 5 for the compile modes)")
    p.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (CPU)")
    p.add_argument("--cpu-compile", action="store_true",
                   help="run the compile modes on the CPU too (default: skipped there)")
    p.add_argument("--compile-backend", default=None,
                   help="torch.compile's backend instead of inductor, ignoring the mode (e.g. "
                        "aot_eager, to test the compile path on the CPU)")
    return p.parse_args()


def main():
    args = parse_args()
    out = answers_stream()
    write = lambda line: print(json.dumps(line), file=out, flush=True)
    device = torch.device(args.device)
    ready = ready_line(device)
    write(ready)
    if "error" in ready:
        sys.exit(NO_DEVICE)
    if args.threads:
        torch.set_num_threads(args.threads)
    same_math(tf32=False)  # f32 matmuls in full f32, bf16 ones reduced in f32
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    s = {name: getattr(args, name) if getattr(args, name) is not None else
         (QUICK if args.quick else FULL)[name] for name in FULL}
    label = dict(mode=args.mode, precision=args.precision)
    if args.mode.startswith("compile") and device.type != "cuda" and not args.cpu_compile:
        write(dict(label, skipped="compile modes are skipped on the CPU (--cpu-compile runs "
                                  "them; reduce-overhead's CUDA graphs need a GPU)"))
        return
    try:
        write(measure(args, s, device))
    except Exception as error:
        traceback.print_exc()
        write(dict(label, error=f"{type(error).__name__}: {error}"))
        sys.exit(2)


if __name__ == "__main__":
    main()
