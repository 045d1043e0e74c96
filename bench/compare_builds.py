#!/usr/bin/python3
"""ember against ember: the op workloads of run_ops.py, a few activations, and the CNN training
step of run_cnn_train.py, timed from two build folders (a commit before a change and the change)
in one run, alternately, round after round, on the same machine. Prints one markdown table of
medians and the ratio after / before in the direction "higher is better" (> 1: the change is
faster), and writes it to bench/results/compare.md.

    bench/compare_builds.py --before /tmp/before/build --after build --quick --rounds 5
"""

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_driver as bd  # noqa: E402
import run_ops  # noqa: E402

ACTIVATIONS = ("sigmoid", "gelu_erf", "mish")


def activation_workloads(sizes):
    shape = sizes.elementwise
    return [run_ops.Workload(f"{op} [{run_ops.shape_text(shape)}]", {"op": op, "shape": shape},
                             "GB/s", 2 * run_ops.numel(shape) * run_ops.F32, run_ops.FASTER)
            for op in ACTIVATIONS]


def op_seconds(build_dir, workload, threads, args):
    command = [bd.ember_program(build_dir, "op_bench"), *run_ops.op_bench_flags(workload.spec),
               f"--benchmark_min_time={args.min_time}"]
    if workload.target is None:
        command += ["--threads", str(threads)]
    elif args.device:
        command += ["--device", args.device]
    return run_ops.run_google_benchmark(command, bd.ember_env(threads))["seconds"]


def cnn_seconds(build_dir, threads, args):
    command = [bd.ember_program(build_dir, "cnn_train_bench"), "--batch", str(args.cnn_batch),
               "--steps", "10", "--warmup", "3"]
    if args.device:
        command += ["--device", args.device]
    return 1.0 / bd.run_json_line(command, bd.ember_env(threads))["samples_per_s"]


def knows(build_dir, workload):
    """Whether the build's op_bench has the workload's op: a commit older than a workload (the
    activations joined op_bench during the one-definition issue) leaves its row out."""
    command = [bd.ember_program(build_dir, "op_bench"), *run_ops.op_bench_flags(workload.spec),
               "--benchmark_list_tests=true"]
    return subprocess.run(command, capture_output=True, text=True).returncode == 0


def alternate(measure, rounds):
    """Medians of measure(side) over the rounds, the side that runs first alternating."""
    runs = {"before": [], "after": []}
    for round_index in range(rounds):
        sides = ["before", "after"] if round_index % 2 == 0 else ["after", "before"]
        for side in sides:
            runs[side].append(measure(side))
    return {side: bd.median(values) for side, values in runs.items()}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", required=True, help="the build folder of the earlier commit")
    p.add_argument("--after", required=True, help="the build folder of the change")
    p.add_argument("--device", default=None, help="ember device (default: the default device)")
    p.add_argument("--threads", default="2", help="thread counts, comma separated")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="run_ops.py's --quick sizes")
    p.add_argument("--min-time", type=float, default=None)
    p.add_argument("--cnn-batch", type=int, default=32)
    p.add_argument("--only", default=None,
                   help="only the workloads whose label holds one of these texts (comma "
                        "separated; CNN for the training step)")
    args = p.parse_args()
    if args.min_time is None:
        args.min_time = 0.2 if args.quick else 0.5
    return args


def main():
    args = parse_args()
    sizes = run_ops.QUICK if args.quick else run_ops.FULL
    wanted = None if args.only is None else args.only.split(",")
    chosen = [w for w in run_ops.workloads(sizes, False) + activation_workloads(sizes)
              if wanted is None or any(text in w.label for text in wanted)]
    builds = {"before": args.before, "after": args.after}
    rows = []
    for threads in bd.thread_counts(args.threads):
        for workload in chosen:
            missing = [side for side, build in builds.items() if not knows(build, workload)]
            if missing:
                print(f"{workload.label}: not in the {' and '.join(missing)} build, left out",
                      flush=True)
                continue
            print(f"{workload.label}, {threads} threads", flush=True)
            seconds = alternate(lambda side: op_seconds(builds[side], workload, threads, args),
                                args.rounds)
            rows.append([workload.label, threads, f"{seconds['before'] * 1e3:.3f}",
                         f"{seconds['after'] * 1e3:.3f}", f"{seconds['before'] / seconds['after']:.3f}"])
        if wanted is None or "CNN" in wanted:
            print(f"CNN training step, {threads} threads", flush=True)
            seconds = alternate(lambda side: cnn_seconds(builds[side], threads, args), args.rounds)
            rows.append([f"CNN train step (run_cnn_train.py's model), batch {args.cnn_batch}",
                         threads, f"{seconds['before'] * 1e3:.3f}", f"{seconds['after'] * 1e3:.3f}",
                         f"{seconds['before'] / seconds['after']:.3f}"])
    headers = ["workload", "threads", "before ms", "after ms", "before / after (> 1: faster)"]
    body = "\n".join([
        f"before: `{args.before}`, after: `{args.after}`. Medians of {args.rounds} alternating "
        f"runs of at least {args.min_time} s each (CNN: per sample over 10 steps).",
        "",
        bd.table(headers, rows),
    ])
    print()
    print(body)
    bd.write_results(os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                  "compare.md"), "ember before and after a change",
                     None, body)


if __name__ == "__main__":
    main()
