#!/usr/bin/env bash
# Claude Code's session registry (issue 11): a registry rewrite → the
# published change (p50/p99, limit p99 ≤ 10 ms), and what 200 live registry
# files add to memory and idle CPU beside 0 files in the same run (limits
# ≤ 1 MB, no idle CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
{
  go test -run XXX -bench 'BenchmarkRegistryToChange' -benchtime "${REGISTRY_N:-500}x" ./relay/ingest/
  go test -run XXX -bench 'BenchmarkRegistryLive' -benchtime 1x ./relay/ingest/
} | awk '
  function metric(name,   i) { for (i = 1; i <= NF; i++) if ($i == name) return $(i-1) }
  /^BenchmarkRegistryToChange/ { p50 = metric("p50-ms"); p99 = metric("p99-ms") }
  /^BenchmarkRegistryLive\/0-/ { m0 = metric("MB-rss"); c0 = metric("cpu-ms/s") }
  /^BenchmarkRegistryLive\/200-/ { m2 = metric("MB-rss"); c2 = metric("cpu-ms/s") }
  END {
    printf "registry write -> published change: p50 %.3f ms, p99 %.3f ms (%.2f of the 10 ms limit)\n", p50, p99, p99 / 10
    printf "200 live registry files: %.2f MB RSS with reader and relay, %.2f MB with 0 files: the files add %.2f MB (limit 1 MB)\n", m2, m0, m2 - m0
    printf "idle CPU: %.3f ms/s with 200 files, %.3f ms/s with 0 (exits told by pidfds: no polling)\n", c2, c0
  }'
