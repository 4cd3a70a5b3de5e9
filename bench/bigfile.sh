#!/usr/bin/env bash
# bench/bigfile.sh — `logwatch verify --json` on ONE big file (issue 14).
#
# One long file is what a user's long-running session or a concatenated
# export looks like; verify reads it through the same parsers as the daemon.
# Builds, outside the repo, a file of BIG_MIB (default 380) MiB by
# concatenating every real sample (Claude then Codex, whole lines) as many
# times as needed, and a 40 MiB slice of it (whole lines), then times, in the
# same run and interleaved, page cache warm:
#   wc -l BIG                              the I/O + line-splitting floor
#   $LOGWATCH_BIN verify --json BIG        us
#   jq -c 'select(.type=="user")' SLICE    a general-purpose JSON tool
#   $LOGWATCH_BIN verify --json SLICE      us, on the same bytes as jq
# Medians of RUNS (default 5) runs; CPU time beside wall time.
# Targets: verify/wc <= 4 on BIG; jq/verify >= 15 on SLICE.
# COMPARE_BIN, another build of logwatch (say, of main), is timed in the
# same loop, so that before and after share one machine state.
#
# Environment: BENCH_OUT, LOGWATCH_BIN (set by bench/run); REALWORLD, BIG_MIB,
# RUNS, QUIET_WAIT_S (default 60: seconds to wait for a quiet machine),
# COMPARE_BIN.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BENCH_OUT="${BENCH_OUT:-$here/out}"
LOGWATCH_BIN="${LOGWATCH_BIN:-$BENCH_OUT/logwatch}"
REALWORLD="${REALWORLD:-$(cd "$here/../.." && pwd)/shared/realworld}"
[ -d "$REALWORLD" ] || { echo "no samples at $REALWORLD: set REALWORLD to the shared realworld folder" >&2; exit 2; }
BIG_MIB="${BIG_MIB:-380}"
RUNS="${RUNS:-5}"
JQ=/usr/bin/jq
TIME=/usr/bin/time
export LC_ALL=C
for t in "$JQ" "$TIME"; do
  [ -x "$t" ] || { echo "bigfile.sh: $t missing (apt-get install jq time)" >&2; exit 1; }
done
[ -x "$LOGWATCH_BIN" ] || { echo "bigfile.sh: no binary at $LOGWATCH_BIN (run bench/run)" >&2; exit 1; }

# ---- the file ---------------------------------------------------------------
out="$BENCH_OUT/bigfile"
mkdir -p "$out"
big="$out/big.jsonl"; slice="$out/slice40.jsonl"; unit="$out/unit.jsonl"
mapfile -t srcs < <(cd "$REALWORLD" && find claude codex -type f -name '*.jsonl' | sort)
stamp="$(cd "$REALWORLD" && ls -l "${srcs[@]}" | awk '{print $5, $NF}' | cksum | cut -d' ' -f1) $BIG_MIB"
if [ ! -f "$out/.stamp" ] || [ "$(cat "$out/.stamp")" != "$stamp" ]; then
  rm -f "$big" "$slice" "$unit" "$out/.stamp"
  for f in "${srcs[@]}"; do # whole lines: a sample without a final newline gets one
    cat "$REALWORLD/$f"
    [ ! -s "$REALWORLD/$f" ] || [ "$(tail -c1 "$REALWORLD/$f" | od -An -tx1 | tr -d ' ')" = 0a ] || echo
  done > "$unit"
  ub=$(stat -c %s "$unit")
  copies=$(( (BIG_MIB * 1024 * 1024 + ub - 1) / ub ))
  for ((i = 0; i < copies; i++)); do cat "$unit"; done > "$big"
  head -c $(( 40 * 1024 * 1024 )) "$big" | sed '$d' > "$slice" # drop the cut line
  echo "$copies" > "$out/copies"
  echo "$stamp" > "$out/.stamp"
fi
big_b=$(stat -c %s "$big"); slice_b=$(stat -c %s "$slice"); lines=$(wc -l < "$big")
printf 'file: %d bytes (%.0f MiB), %d lines: %d copies of %d samples; slice %d bytes\n' \
  "$big_b" "$(( big_b / 1048576 ))" "$lines" "$(cat "$out/copies")" "${#srcs[@]}" "$slice_b"

# ---- timing -----------------------------------------------------------------
tfile="$out/time.out"
run_timed() { # run_timed OUTVAR CMD...: appends "wall cpu"
  local -n _acc=$1; shift
  local s e
  s=$EPOCHREALTIME
  # verify exits 1 when a sample's NAME.expect.json is not met: no sidecar here.
  "$TIME" -f '%U %S' -o "$tfile" "$@" >/dev/null 2>"$out/stderr.out" || {
    echo "bigfile.sh: command failed: $*" >&2; cat "$out/stderr.out" >&2; exit 1; }
  e=$EPOCHREALTIME
  _acc+=("$(awk -v s="$s" -v e="$e" '{printf "%.6f %.2f", e-s, $1+$2}' "$tfile")")
}
median() { # median FIELD RECORDS...
  local k=$1; shift
  printf '%s\n' "$@" | awk -v k="$k" '{print $k}' | sort -g |
    awk '{v[NR]=$1} END{ if (NR%2) print v[(NR+1)/2]; else printf "%.6f\n", (v[NR/2]+v[NR/2+1])/2 }'
}
cpu_busy() { awk '/^cpu /{printf "%d\n", $2+$3+$4+$7+$8}' /proc/stat; }

cat "$big" > /dev/null; "$LOGWATCH_BIN" verify --json "$big" > /dev/null # warm
hz=$(getconf CLK_TCK); cores=$(nproc); waited=0; quiet=0
while (( waited < ${QUIET_WAIT_S:-60} )); do
  b0=$(cpu_busy); sleep 1; b1=$(cpu_busy)
  if (( (b1 - b0) * 10 < hz * cores )); then (( ++quiet >= 2 )) && break; else quiet=0; fi
  waited=$(( waited + 1 ))
done
(( quiet >= 2 )) && echo "machine: quiet after ${waited}s" || echo "machine: still busy after ${waited}s; timing anyway"
busy0=$(cpu_busy); loop0=$EPOCHREALTIME
wc_r=(); vb_r=(); jq_r=(); vs_r=(); cb_r=(); cs_r=()
for ((i = 1; i <= RUNS; i++)); do
  run_timed wc_r wc -l "$big"
  run_timed vb_r "$LOGWATCH_BIN" verify --json "$big"
  run_timed jq_r "$JQ" -c 'select(.type=="user")' "$slice"
  run_timed vs_r "$LOGWATCH_BIN" verify --json "$slice"
  if [ -n "${COMPARE_BIN:-}" ]; then
    run_timed cb_r "$COMPARE_BIN" verify --json "$big"
    run_timed cs_r "$COMPARE_BIN" verify --json "$slice"
  fi
done
loop1=$EPOCHREALTIME; busy1=$(cpu_busy)
ours=$(printf '%s\n' "${wc_r[@]}" "${vb_r[@]}" "${jq_r[@]}" "${vs_r[@]}" "${cb_r[@]}" "${cs_r[@]}" | awk '{s+=$2} END{print s}')
cmp_b=0; cmp_s=0; cmp_bc=0; cmp_sc=0
if [ -n "${COMPARE_BIN:-}" ]; then
  cmp_b=$(median 1 "${cb_r[@]}"); cmp_s=$(median 1 "${cs_r[@]}")
  cmp_bc=$(median 2 "${cb_r[@]}"); cmp_sc=$(median 2 "${cs_r[@]}")
fi

awk -v wc="$(median 1 "${wc_r[@]}")" -v vb="$(median 1 "${vb_r[@]}")" -v jq="$(median 1 "${jq_r[@]}")" \
    -v vs="$(median 1 "${vs_r[@]}")" -v wcc="$(median 2 "${wc_r[@]}")" -v vbc="$(median 2 "${vb_r[@]}")" \
    -v jqc="$(median 2 "${jq_r[@]}")" -v vsc="$(median 2 "${vs_r[@]}")" -v bb="$big_b" -v sb="$slice_b" \
    -v runs="$RUNS" -v busy="$(( busy1 - busy0 ))" -v hz="$hz" -v cores="$cores" -v ours="$ours" \
    -v cb="$cmp_b" -v cs="$cmp_s" -v cbc="$cmp_bc" -v csc="$cmp_sc" -v cmp="${COMPARE_BIN:-}" \
    -v loop="$(awk -v s="$loop0" -v e="$loop1" 'BEGIN{print e-s}')" 'BEGIN{
  printf "\n%-44s %9s %8s %8s\n", "medians of " runs " runs, page cache warm", "wall s", "MB/s", "cpu s"
  printf "  %-42s %9.3f %8.0f %8.2f\n", "wc -l BIG", wc, bb/1e6/wc, wcc
  printf "  %-42s %9.3f %8.0f %8.2f\n", "logwatch verify --json BIG", vb, bb/1e6/vb, vbc
  printf "  %-42s %9.3f %8.0f %8.2f\n", "jq -c select(.type==\"user\") SLICE", jq, sb/1e6/jq, jqc
  printf "  %-42s %9.3f %8.0f %8.2f\n", "logwatch verify --json SLICE", vs, sb/1e6/vs, vsc
  r1 = vb/wc; r2 = jq/vs
  printf "\nratios\n  verify/wc   %6.2f   target <= 4    %s\n", r1, (r1 <= 4 ? "PASS" : "FAIL")
  printf "  jq/verify   %6.2f   target >= 15   %s\n", r2, (r2 >= 15 ? "PASS" : "FAIL")
  printf "  (by cpu time: verify/wc %.2f, jq/verify %.2f; verify uses every core, wc and jq one)\n", vbc/wcc, jqc/vsc
  if (cmp != "") {
    printf "\nCOMPARE_BIN %s, same runs:\n", cmp
    printf "  %-42s %9.3f %8.0f %8.2f\n", "verify --json BIG", cb, bb/1e6/cb, cbc
    printf "  %-42s %9.3f %8.0f %8.2f\n", "verify --json SLICE", cs, sb/1e6/cs, csc
    printf "  verify/wc   %6.2f   jq/verify %6.2f   (by cpu time: %.2f, %.2f)\n", cb/wc, jq/cs, cbc/wcc, jqc/csc
  }
  other = busy/hz - ours; cap = loop*cores; if (other < 0) other = 0
  printf "\nmachine during timing: %.1fs x %d cores; other processes %.1f cpu-s (%.0f%%)\n", loop, cores, other, 100*other/cap
  if (other > 0.10*cap) printf "WARNING: other processes used more than 10%% of the CPU while timing; rerun on a quiet machine\n"
}'
