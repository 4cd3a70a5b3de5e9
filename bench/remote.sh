#!/usr/bin/env bash
# bench/remote.sh — remote hosts over a real sshd on loopback: a remote
# transcript's change → published by this machine's daemon through ssh,
# beside the remote's own daemon (baseline); and CPU with REMOTE_COUNT (10)
# remotes linked and idle for REMOTE_IDLE (20s), beside the same daemon with
# none. Needs openssh-server (and, as root, useradd for the throwaway user).
#
# Environment: REMOTE_N (200 appends), REMOTE_IDLE (20s), REMOTE_COUNT (10).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
out="${BENCH_OUT:-$here/out}/remote"
mkdir -p "$out"
go build -o "$out/remotebench" ./bench/remotebench
"$out/remotebench" -n "${REMOTE_N:-200}" -idle "${REMOTE_IDLE:-20s}" -remotes "${REMOTE_COUNT:-10}"
