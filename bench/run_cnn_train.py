#!/usr/bin/python3
"""CNN training, ember vs PyTorch CPU (issue 5): examples/fashion_mnist.h's Cnn and its PyTorch
twin, Adam lr 2e-3, cross-entropy, the same real Fashion-MNIST batches and thread count on both
sides. Each side runs in its own process (bench/cnn_train_bench, bench/peer_torch/cnn_train.py),
ember and torch alternately, --rounds times; figures are medians. Prints one markdown table and
writes it to bench/results/cnn_train.md.

    bench/run_cnn_train.py --build-dir build --device flex --threads 2,1
"""

import os

import bench_driver as bd


def parse_args():
    p = bd.parser(__doc__.splitlines()[0])
    p.add_argument("--batch", default="64", help="comma-separated batch sizes (default 64)")
    p.add_argument("--steps", type=int, default=200, help="timed steps per run")
    p.add_argument("--warmup", type=int, default=20, help="untimed steps before them")
    return p.parse_args()


def measure(args, threads, batch):
    """Medians over the rounds of each side's figures, and ember's device name."""
    common = ["--batch", str(batch), "--steps", str(args.steps), "--warmup", str(args.warmup)]
    ember = [bd.ember_program(args.build_dir, "cnn_train_bench"), *common]
    if args.device:
        ember += ["--device", args.device]
    torch = [args.python, os.path.join(bd.PEER_DIR, "cnn_train.py"), "--threads", str(threads),
             *common]
    runs = {"ember": [], "torch": []}
    for round_index in range(args.rounds):
        sides = [("ember", ember, bd.ember_env(threads)), ("torch", torch, bd.torch_env(threads))]
        if round_index % 2 == 1:
            sides.reverse()  # alternate which side runs first
        for name, command, env in sides:
            runs[name].append(bd.run_json_line(command, env))
            print(f"  {name}: {runs[name][-1]['samples_per_s']:.1f} samples/s", flush=True)
    medians = {side: {key: bd.median([r[key] for r in results]) for key in results[0]
                      if key != "device"} for side, results in runs.items()}
    return medians, runs["ember"][0]["device"]


def memory_cell(figures):
    return f"{figures['peak_mib']:.0f} (+{figures['train_peak_mib'] - figures['baseline_mib']:.0f})"


def main():
    args = parse_args()
    peer = bd.check_peer(args)
    rows, sanity = [], []
    device = None
    for threads in bd.thread_counts(args.threads):
        for batch in (int(b) for b in args.batch.split(",")):
            print(f"CNN training, batch {batch}, {threads} threads", flush=True)
            figures, device = measure(args, threads, batch)
            e, t = figures["ember"], figures["torch"]
            workload = f"CNN train, batch {batch}, {threads} thread{'s' * (threads > 1)}"
            rows.append([workload, f"{e['samples_per_s']:.0f}", f"{t['samples_per_s']:.0f}",
                         f"{bd.ratio(e['samples_per_s'], t['samples_per_s']):.2f}",
                         memory_cell(e), memory_cell(t)])
            sanity.append([workload, f"{e['final_loss']:.3f}", f"{t['final_loss']:.3f}"])
    headers = ["workload", "ember samples/s", "torch samples/s", "speedup", "ember peak MB",
               "torch peak MB"]
    body = "\n".join([
        f"ember device: `{device}`. Data: real Fashion-MNIST, the first (warmup + steps) x batch "
        f"training images in file order, built into batches before the clock starts (same "
        f"images, normalization, model, Adam lr 2e-3 and dropout on both sides). "
        f"{args.steps} timed steps after {args.warmup} warm-up steps, each side in its own "
        f"process; medians of {args.rounds} alternating runs. speedup = ember / torch "
        f"samples/s (> 1: ember faster).",
        "",
        bd.table(headers, rows),
        "",
        "Peak MB: the process's peak resident memory (VmHWM) over its whole run, MiB; in "
        "parentheses the peak during training minus the resident memory before it (after "
        "`import torch` / program start, data preparation and model creation).",
        "",
        "Sanity (each side's loss after its last step, median over runs; the two differ by "
        "initialization and dropout draws):",
        "",
        bd.table(["workload", "ember loss", "torch loss"], sanity),
    ])
    print()
    print(body)
    bd.write_results(bd.results_path(args.results, "cnn_train"),
                     "CNN training: ember vs PyTorch CPU", peer, body)


if __name__ == "__main__":
    main()
