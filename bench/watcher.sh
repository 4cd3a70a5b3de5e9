#!/usr/bin/env bash
# bench/watcher.sh — the watcher's measurements (issue 3): delivery latency
# against a raw fsnotify round trip, the idle cost of 10 000 quiet session
# files, a sustained write load, the nxadm/tail follower it replaced, and the
# long model-based reliability run.
#
# Environment: WATCHER_IDLE (default 60s), WATCHER_LOAD (default 30s),
# WATCHER_MODEL_SEQS (default 3000 sequences; 0 skips the model run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
out="${BENCH_OUT:-$here/out}/watcher"
mkdir -p "$out"
go build -o "$out/watchbench" ./bench/watchbench
wb="$out/watchbench"

"$wb" latency -dir "$out/latency" -n 300
echo
"$wb" idle -dir "$out/idle" -files 10000 -dirs 500 -for "${WATCHER_IDLE:-60s}"
echo
"$wb" load -dir "$out/load" -files 200 -rate 50 -for "${WATCHER_LOAD:-30s}"
echo
"$wb" nxadm -dir "$out/nxadm" -n 50
rm -rf "$out/latency" "$out/idle" "$out/load" "$out/nxadm"

seqs="${WATCHER_MODEL_SEQS:-3000}"
if [ "$seqs" != 0 ]; then
  echo
  echo "model-based reliability run: $seqs random sequences (seeded; a failure names its seed)"
  start=$(date +%s)
  WATCHER_MODEL_SEQS="$seqs" go test -run '^TestModel$' -count=1 -timeout 2h ./watcher/ | tail -1
  echo "  $seqs sequences in $(( $(date +%s) - start )) s"
fi
