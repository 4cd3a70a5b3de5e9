#!/usr/bin/env bash
# bench/status.sh — the real daemon under large status answers (issue 22
# item 7), with STATUS_SESSIONS (5000) sessions: STATUS_NONREADERS (256)
# clients ask for the status and never read it while hooks are timed on
# fresh connections and the daemon's anonymous memory is sampled; then
# STATUS_CLI (300) `logwatch status --all` run at once (failures, slowest,
# the daemon's CPU), with a probe timing the daemon's first byte meanwhile.
# Wall times here depend on what else the machine runs; memory, failures and
# the daemon's counters (answers built for requests served) do not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
go run ./bench/statusbench -bin "$LOGWATCH_BIN" -sessions "${STATUS_SESSIONS:-5000}" \
  -nonreaders "${STATUS_NONREADERS:-256}" -cli "${STATUS_CLI:-300}"
