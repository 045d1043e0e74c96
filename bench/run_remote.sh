#!/usr/bin/env bash
# The remote device's benchmark (issue 17), every row in one run on this machine:
#   bench/run_remote.sh [BUILD_DIR]     (default: build; needs remote_bench, cnn_train_bench, ember)
# Starts `ember serve` (serving cpu) on a free loopback port, then runs
#   * remote_bench against it: tiny ops batched and unbatched against the local cpu device, and
#     upload/download GB/s against a raw loopback TCP copy;
#   * ggml_rpc_bench, where the build has it (cmake -DEMBER_GGML_DIR=..., docs/backends/remote.md):
#     ggml's RPC server (its own, in a child process) moving the same tensors, then one line of
#     ratios: ember's upload and download GB/s over ggml's (and over ggml's upload in pieces too
#     small for its client to hash them), and ggml's over the raw TCP copy of remote_bench's row
#     (the best of the repeats on both sides: remote_bench's statistic);
#   * cnn_train_bench on a remote cpu device and on the local cpu device, alternating, three
#     rounds (not when SKIP_CNN=1): the client on core 0, the device's threads on the other cores
#     in both cases (below).
# ONLY_CNN=1 runs the CNN rows alone; PER_STEP=1 adds the per-step rows (below).
# Prints each program's JSON lines; the server stops at the end.
set -euo pipefail
build=${1:-build}
port=$((20000 + RANDOM % 20000))
"$build/tools/ember/ember" serve --port "$port" --device cpu 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
sleep 1
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), git $(git describe --always --dirty)"
if [[ ${ONLY_CNN:-0} == 1 ]]; then
  ember_rows=""
else
  ember_rows=$("$build/bench/remote_bench" --server "127.0.0.1:$port")
fi
echo "$ember_rows"
if [[ -n $ember_rows && -x $build/bench/ggml_rpc_bench ]]; then
  ggml_row=$("$build/bench/ggml_rpc_bench")
  echo "$ggml_row"
  python3 - "$ember_rows" "$ggml_row" <<'PYTHON'
import json, sys
ember = next(json.loads(line) for line in sys.argv[1].splitlines() if '"transfer"' in line)
ggml = json.loads(sys.argv[2])
print(json.dumps({"row": "transfer vs ggml",
                  "upload_vs_ggml": round(ember["upload_gbps"] / ggml["upload_best_gbps"], 3),
                  "download_vs_ggml": round(ember["download_gbps"] / ggml["download_best_gbps"], 3),
                  "upload_vs_ggml_pieces":
                      round(ember["upload_gbps"] / ggml["upload_pieces_best_gbps"], 3),
                  "ggml_upload_vs_raw": round(ggml["upload_best_gbps"] / ember["raw_tcp_gbps"], 3),
                  "ggml_download_vs_raw":
                      round(ggml["download_best_gbps"] / ember["raw_tcp_gbps"], 3)}))
PYTHON
fi
if [[ ${SKIP_CNN:-0} == 1 ]]; then exit 0; fi
# The CNN step as two machines would run it: the client on a core of its own (core 0), the
# device's work on the others, with as many threads, for the remote device (a second server, on
# those cores) and for the local device alike. The local step also builds its ops and its tape on
# those cores; the remote step's client does that on core 0, as a client machine would.
cores=$(nproc)
if (( cores < 2 )); then echo "the CNN rows need 2 cores (client and device apart)" >&2; exit 1; fi
device_cores=1-$((cores - 1))
cnn_port=$((port + 1))
EMBER_NUM_THREADS=$((cores - 1)) taskset -c "$device_cores" \
  "$build/tools/ember/ember" serve --port "$cnn_port" --device cpu 2>/dev/null &
cnn_server=$!
trap 'kill $server $cnn_server 2>/dev/null; wait $server $cnn_server 2>/dev/null || true' EXIT
sleep 1
for round in 1 2 3; do
  echo -n "{\"round\": $round, \"device\": \"remote (client on core 0)\", \"result\": "
  taskset -c 0 "$build/bench/cnn_train_bench" --device "remote://127.0.0.1:$cnn_port" \
    --steps 200 --warmup 10
  echo "}"
  echo -n "{\"round\": $round, \"device\": \"cpu\", \"result\": "
  EMBER_NUM_THREADS=$((cores - 1)) taskset -c "$device_cores" "$build/bench/cnn_train_bench" \
    --device cpu --steps 200 --warmup 10
  echo "}"
done
# PER_STEP=1: the step's marginal wall clock, from a 400-step and a 100-step run back to back
# (their seconds differenced over 300 steps: each run's fixed costs, its first step and its final
# sync, drop out), remote and local alternating, three rounds.
if [[ ${PER_STEP:-0} != 1 ]]; then exit 0; fi
seconds() { grep -o '"seconds": [0-9.]*' | cut -d' ' -f2; }
marginal_ms() {  # the command, run with --steps 100 and then 400
  local short long
  short=$("$@" --steps 100 --warmup 10 | seconds)
  long=$("$@" --steps 400 --warmup 10 | seconds)
  python3 -c "print(round(($long - $short) * 1000 / 300, 2))"
}
for round in 1 2 3; do
  remote=$(marginal_ms taskset -c 0 "$build/bench/cnn_train_bench" \
    --device "remote://127.0.0.1:$cnn_port")
  local_ms=$(EMBER_NUM_THREADS=$((cores - 1)) marginal_ms taskset -c "$device_cores" \
    "$build/bench/cnn_train_bench" --device cpu)
  echo "{\"round\": $round, \"row\": \"CNN ms a step (400 - 100 steps)\", \"remote\": $remote," \
    "\"cpu\": $local_ms, \"ratio\": $(python3 -c "print(round($local_ms / $remote, 3))")," \
    "\"load\": \"$(cut -d' ' -f1 /proc/loadavg)\"}"
done
