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
#   * cnn_train_bench on remote://127.0.0.1:PORT and on cpu, alternating, twice each (not when
#     SKIP_CNN=1).
# Prints each program's JSON lines; the server stops at the end.
set -euo pipefail
build=${1:-build}
port=$((20000 + RANDOM % 20000))
"$build/tools/ember/ember" serve --port "$port" --device cpu 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
sleep 1
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), git $(git describe --always --dirty)"
ember_rows=$("$build/bench/remote_bench" --server "127.0.0.1:$port")
echo "$ember_rows"
if [[ -x $build/bench/ggml_rpc_bench ]]; then
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
for round in 1 2; do
  for device in "remote://127.0.0.1:$port" cpu; do
    echo -n "{\"round\": $round, \"device\": \"$device\", \"result\": "
    "$build/bench/cnn_train_bench" --device "$device" --steps 100 --warmup 10
    echo "}"
  done
done
