"""torch.distributed's all_reduce over Gloo on CPU, the peer of bench/allreduce_bench.cpp: one
rank per process, started with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT (the driver
bench/run_allreduce.py sets them). The same measure as ember's side: per size (bytes of f32),
the median time of --iters sums after --warmup; rank 0 prints one JSON line per size."""

import argparse
import json
import statistics
import time

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", required=True)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    args = p.parse_args()
    dist.init_process_group("gloo")
    rank, n = dist.get_rank(), dist.get_world_size()
    for size in (int(s) for s in args.sizes.split(",")):
        x = torch.full((size // 4,), rank + 1.0)
        times = []
        for i in range(args.warmup + args.iters):
            y = x.clone()  # all_reduce sums in place; ember's returns a new tensor
            start = time.perf_counter()
            dist.all_reduce(y)  # synchronous on CPU: the sum is there on return
            if i >= args.warmup:
                times.append(time.perf_counter() - start)
        value = y[0].item()
        seconds = statistics.median(times)
        if rank == 0:
            algbw = size / seconds
            print(json.dumps({"bytes": size, "ranks": n, "processes": n, "seconds": seconds,
                              "algbw": algbw, "busbw": algbw * 2 * (n - 1) / n,
                              "sum_ok": value == n * (n + 1) / 2}), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
