#!/usr/bin/python3
"""All-reduce bus bandwidth on CPU, ember vs torch.distributed (Gloo): f32 sums of each size over
two processes on loopback (ember: bench/allreduce_bench, one rank per process, Gloo under ember's
collective; torch: bench/peer_torch/allreduce.py, init_process_group("gloo")), both launched with
RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT, alternately, --rounds times; and ember's two ranks
of one process (shared memory), which has no torch counterpart. Figures are medians. Prints one
markdown table and writes it to bench/results/allreduce.md.

    bench/run_allreduce.py --build-dir build --threads 1
"""

import json
import os
import socket
import subprocess
import sys

import bench_driver as bd

SIZES = "4096,65536,1048576,16777216"


def parse_args():
    p = bd.parser(__doc__.splitlines()[0])
    p.add_argument("--sizes", default=SIZES, help=f"bytes of f32 per all-reduce (default {SIZES})")
    p.add_argument("--iters", type=int, default=20, help="timed all-reduces per size and run")
    p.add_argument("--warmup", type=int, default=5, help="untimed all-reduces before them")
    return p.parse_args()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_processes(command, env, world=2):
    """Starts world processes of command with the launcher's variables; rank 0's JSON lines."""
    port = free_port()
    processes = []
    for rank in range(world):
        rank_env = dict(env, RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                        MASTER_PORT=str(port))
        processes.append(subprocess.Popen(command, env=rank_env, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
    outputs = [p.communicate(timeout=600) for p in processes]
    for p, (out, err) in zip(processes, outputs):
        if p.returncode != 0:
            sys.exit(f"{' '.join(command)} failed ({p.returncode}):\n{err}")
    return [json.loads(line) for line in outputs[0][0].splitlines() if line.startswith("{")]


def by_size(lines):
    return {line["bytes"]: line for line in lines}


def main():
    args = parse_args()
    peer = bd.check_peer(args)
    threads = max(bd.thread_counts(args.threads))
    common = ["--sizes", args.sizes, "--iters", str(args.iters), "--warmup", str(args.warmup)]
    ember = [bd.ember_program(args.build_dir, "allreduce_bench"), *common]
    if args.device:
        ember += ["--device", args.device]
    torch = [args.python, os.path.join(bd.PEER_DIR, "allreduce.py"), *common]
    runs = {"ember": [], "torch": [], "ember_local": []}
    for round_index in range(args.rounds):
        sides = [("ember", lambda: run_processes(ember + ["--ranks", "1"], bd.ember_env(threads))),
                 ("torch", lambda: run_processes(torch, bd.torch_env(threads)))]
        if round_index % 2 == 1:
            sides.reverse()  # alternate which side runs first
        for name, run in sides:
            runs[name].append(by_size(run()))
        runs["ember_local"].append(by_size(
            bd.run_json_lines(ember + ["--ranks", "2"], bd.ember_env(threads))))
        print(f"  round {round_index + 1}/{args.rounds} done", flush=True)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        busbw = {side: bd.median([r[size]["busbw"] for r in results]) / 1e9
                 for side, results in runs.items()}
        ok = all(r[size]["sum_ok"] for results in runs.values() for r in results)
        rows.append([f"{size / 1024:.0f} KiB", f"{busbw['ember_local']:.3f}",
                     f"{busbw['ember']:.3f}", f"{busbw['torch']:.3f}",
                     f"{bd.ratio(busbw['ember'], busbw['torch']):.2f}", "yes" if ok else "NO"])
    headers = ["f32 all-reduce", "ember 2 ranks, 1 process (GB/s)",
               "ember 2 processes (GB/s)", "torch gloo 2 processes (GB/s)",
               "ember / torch (processes)", "same result"]
    body = "\n".join([
        f"Bus bandwidth = size / median time x 2 (n - 1) / n (n = 2 ranks; the NCCL tests' "
        f"convention), {args.iters} timed all-reduces after {args.warmup}, medians of "
        f"{args.rounds} alternating runs. Processes on loopback (127.0.0.1), launched with "
        f"RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT; {threads} thread(s) each. ember's sum returns "
        f"a new tensor (host copy in, reduction, tensor out); torch's sums in place.",
        "",
        bd.table(headers, rows),
    ])
    print(body)
    bd.write_results(bd.results_path(args.results, "allreduce"),
                     "All-reduce bus bandwidth on CPU: ember vs torch.distributed (Gloo)", peer,
                     body)


if __name__ == "__main__":
    main()
