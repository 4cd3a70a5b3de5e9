#!/usr/bin/env bash
# bench/daemon.sh — the real daemon: anonymous memory (RssAnon, Pss_Anon)
# after start-up over 10 000 existing two-line transcripts in 500 project
# folders, and at most while it then idles for DAEMON_IDLE (30s: checkpoints,
# sweeps) (beside the same daemon with empty roots); append → published
# state for Codex rollouts, pi sessions and OpenCode's database (a commit as
# OpenCode makes it: WAL, its connection settings) beside Claude transcripts
# in one run (3 live sessions each; a writer that keeps its files open, then
# open-append-close per write; files and folders that appear while it runs;
# the first append after start-up, in fresh daemons); and over OpenCode's
# database of DAEMON_OPENCODE stored sessions (beside the same daemon with
# an empty OpenCode root): start-up to the first status answer and to the
# relay's boot, anonymous memory with them and twice as many, and CPU while
# the database sits untouched for DAEMON_IDLE.
#
# Environment: DAEMON_FILES (default 10000), DAEMON_DIRS (500), DAEMON_IDLE
# (30s), DAEMON_N (200 appends per agent and writer mode), DAEMON_OPENCODE
# (1000).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
out="${BENCH_OUT:-$here/out}/daemon"
mkdir -p "$out"
go build -o "$out/daemonbench" ./bench/daemonbench
"$out/daemonbench" rss -files "${DAEMON_FILES:-10000}" -dirs "${DAEMON_DIRS:-500}" -idle "${DAEMON_IDLE:-30s}"
echo
"$out/daemonbench" latency -n "${DAEMON_N:-200}"
echo
"$out/daemonbench" opencode -sessions "${DAEMON_OPENCODE:-1000}" -idle "${DAEMON_IDLE:-30s}"
