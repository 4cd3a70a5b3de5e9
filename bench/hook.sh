#!/usr/bin/env bash
# bench/hook.sh — what starting `logwatch hook` costs (issue 35 item 7):
# this tree's binary against one built from HOOK_BASE (default b61422a, the
# commit before the hook client's start-up work was cut: no configuration
# read without a file, config's patterns compiled on first use), interleaved
# in the same run: wall time with no daemon (p50, p99; a fresh home, and
# one with the example config.yaml),
# package init (GODEBUG=inittrace=1), and hook → change published with a
# daemon up (target p99 <= 10 ms).
# Environment: LOGWATCH_BIN, BENCH_OUT (set by bench/run); optional HOOK_BASE,
# HOOK_N (default 200).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BENCH_OUT="${BENCH_OUT:-$here/out}"
LOGWATCH_BIN="${LOGWATCH_BIN:-$BENCH_OUT/logwatch}"
cd "$here/.."
[ -x "$LOGWATCH_BIN" ] || go build -o "$LOGWATCH_BIN" ./cmd/logwatch
base="${HOOK_BASE:-b61422a}"
src="$BENCH_OUT/hook-base-src"
rm -rf "$src" && mkdir -p "$src"
git archive "$base" | tar -x -C "$src"
(cd "$src" && go build -o "$BENCH_OUT/logwatch-base" ./cmd/logwatch)
rm -rf "$src"
go run ./bench/hookbench -bin "$LOGWATCH_BIN" -base "$BENCH_OUT/logwatch-base" -n "${HOOK_N:-200}"
