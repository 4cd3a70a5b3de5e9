#!/usr/bin/env bash
# bench/wrap.sh — what `logwatch wrap` costs a terminal user (issue 5), each
# number against a baseline from the same run (bench/wrapbench):
#   (a) pty pass-through throughput, 100 MiB through `wrap -- cat` vs a
#       minimal Go pty proxy, typed in and echoed back, and printed by cat;
#       target wrap/plain <= 1.2;
#   (b) keystroke echo latency added by wrap, p50/p99 over 1000 keys;
#       target p99 <= 1 ms added;
#   (c) interrupt marker appended → `ready` shown by `logwatch events`, with a
#       key pending and a real daemon, p50/p99 over 200 runs; target p99 <= 10 ms.
# Environment: LOGWATCH_BIN, BENCH_OUT (set by bench/run); optional WRAP_MIB
# (default 100), WRAP_KEYS (1000), WRAP_MARKERS (200).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BENCH_OUT="${BENCH_OUT:-$here/out}"
LOGWATCH_BIN="${LOGWATCH_BIN:-$BENCH_OUT/logwatch}"

# stty (coreutils) and sh are all the benchmark runs besides Go binaries.
if ! command -v stty >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "wrap.sh: stty missing and not root to install coreutils" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq coreutils >/dev/null
fi

cd "$here/.."
go build -o "$BENCH_OUT/wrapbench" ./bench/wrapbench
"$BENCH_OUT/wrapbench" -bin "$LOGWATCH_BIN" -mib "${WRAP_MIB:-100}" -keys "${WRAP_KEYS:-1000}" -markers "${WRAP_MARKERS:-200}"
