#!/usr/bin/env bash
# The remote device's benchmark (issue 17), every row in one run on this machine:
#   bench/run_remote.sh [BUILD_DIR]     (default: build; needs remote_bench, cnn_train_bench, ember)
# Starts `ember serve` (serving cpu) on a free loopback port, then runs
#   * remote_bench against it: tiny ops batched and unbatched against the local cpu device, and
#     upload/download GB/s against a raw loopback TCP copy;
#   * cnn_train_bench on remote://127.0.0.1:PORT and on cpu, alternating, twice each.
# Prints each program's JSON lines; the server stops at the end.
set -euo pipefail
build=${1:-build}
port=$((20000 + RANDOM % 20000))
"$build/tools/ember/ember" serve --port "$port" --device cpu 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
sleep 1
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), git $(git describe --always --dirty)"
"$build/bench/remote_bench" --server "127.0.0.1:$port"
for round in 1 2; do
  for device in "remote://127.0.0.1:$port" cpu; do
    echo -n "{\"round\": $round, \"device\": \"$device\", \"result\": "
    "$build/bench/cnn_train_bench" --device "$device" --steps 100 --warmup 10
    echo "}"
  done
done
