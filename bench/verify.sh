#!/usr/bin/env bash
# bench/verify.sh — throughput and memory of `logwatch verify --json`.
#
# Builds a corpus of many session files by repeating the real samples (Claude
# Code transcripts including subagent files, and Codex rollouts), then times,
# on the same files in the same run, after warming the page cache:
#   wc -l                                 the I/O + line-splitting floor
#   jq -c 'select(.type=="user")'         a general-purpose JSON tool
#   $LOGWATCH_BIN verify --json DIR       us
# Each is run several times and the median wall time is taken. Peak RSS of
# verify is measured on the full corpus and on its half to show that memory is
# flat in the corpus size.
#
# Targets: verify/wc <= 4, jq/verify >= 15 (both by median wall time; verify
# uses every core, wc and jq one), rss(full)/rss(half) <= 1.25 (our reading of
# "flat": a reader that held the corpus, or a per-line leak, would give ~2.0).
# CPU time is printed beside wall time, as a cross-check less sensitive to
# other load on the machine.
#
# The machine may be shared: before timing, the script waits up to
# QUIET_WAIT_S (default 60) seconds for the CPU to go idle, and afterwards it
# reports how much CPU other processes took during the timing (from
# /proc/stat), with a warning when that exceeds 10%.
#
# Environment: BENCH_OUT, LOGWATCH_BIN (set by bench/run); optional
# REALWORLD (default ../../shared/realworld from bench/), CORPUS_MIB (default 300), RUNS (default 5),
# JQ_RUNS (default 3), JQ_BUDGET_S (default 20: if jq over the whole corpus
# would take longer than this per run, it is timed on a fixed subset and
# scaled by bytes, and the output says so), QUIET_WAIT_S.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
BENCH_OUT="${BENCH_OUT:-$here/out}"
LOGWATCH_BIN="${LOGWATCH_BIN:-$BENCH_OUT/logwatch}"
REALWORLD="${REALWORLD:-$(cd "$here/../.." && pwd)/shared/realworld}"
[ -d "$REALWORLD" ] || { echo "no samples at $REALWORLD: set REALWORLD to the shared realworld folder" >&2; exit 2; }
CORPUS_MIB="${CORPUS_MIB:-300}"
RUNS="${RUNS:-5}"
JQ_RUNS="${JQ_RUNS:-3}"
JQ_BUDGET_S="${JQ_BUDGET_S:-20}"
JQ=/usr/bin/jq
TIME=/usr/bin/time

export LC_ALL=C

# ---- tools ------------------------------------------------------------------
need=()
[ -x "$TIME" ] || need+=(time)
[ -x "$JQ" ] || need+=(jq)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "verify.sh: missing ${need[*]} and not root to install them" >&2
    exit 1
  fi
  echo "installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
[ -x "$LOGWATCH_BIN" ] || { echo "verify.sh: no binary at $LOGWATCH_BIN (run bench/run)" >&2; exit 1; }

# ---- corpus -----------------------------------------------------------------
# Layout: corpus/{a,b}/rNNN/{claude,codex}/... — each rNNN is a verbatim copy
# of every *.jsonl sample (subagent files keep their subagents/ directory).
# "a" alone is the half corpus; "a" and "b" together the full one. Copies
# are real files (not hard links), so the page cache holds the whole corpus.
corpus="$BENCH_OUT/corpus"
srcs=()
for agent in claude codex; do
  [ -d "$REALWORLD/$agent" ] || { echo "verify.sh: no samples at $REALWORLD/$agent" >&2; exit 1; }
done
mapfile -t srcs < <(cd "$REALWORLD" && find claude codex -type f -name '*.jsonl' | sort)
unit_bytes=$(cd "$REALWORLD" && cat "${srcs[@]}" | wc -c)
for f in "${srcs[@]}"; do # + the newline added below to any sample missing one
  [ ! -s "$REALWORLD/$f" ] || [ "$(tail -c1 "$REALWORLD/$f" | od -An -tx1 | tr -d ' ')" = 0a ] ||
    unit_bytes=$(( unit_bytes + 1 ))
done
half_target=$(( CORPUS_MIB * 1024 * 1024 / 2 ))
reps=$(( (half_target + unit_bytes - 1) / unit_bytes )) # per half
stamp="samples=$(cd "$REALWORLD" && ls -l "${srcs[@]}" | awk '{print $5, $NF}' | cksum | cut -d' ' -f1) unit=$unit_bytes reps=$reps"

corpus_ok() {
  [ -f "$corpus/.stamp" ] && [ "$(cat "$corpus/.stamp")" = "$stamp" ] || return 1
  local want=$(( 2 * reps * unit_bytes )) have
  have=$(find "$corpus/a" "$corpus/b" -type f -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END{print s+0}')
  [ "$have" = "$want" ]
}

t0=$EPOCHREALTIME
if corpus_ok; then
  echo "corpus: reusing $corpus"
else
  echo "corpus: building $corpus ($reps copies of ${#srcs[@]} sample files per half)"
  rm -rf "$corpus" "$corpus.tmp"
  mkdir -p "$corpus.tmp/unit"
  (cd "$REALWORLD" && tar -cf - "${srcs[@]}") | tar -xf - -C "$corpus.tmp/unit" --no-same-permissions
  chmod -R u+w "$corpus.tmp/unit"
  # Whole lines only: a sample without a final newline gets one, so that
  # repeating it never glues two records together or leaves a partial tail.
  for f in "${srcs[@]}"; do
    [ ! -s "$corpus.tmp/unit/$f" ] || [ "$(tail -c1 "$corpus.tmp/unit/$f" | od -An -tx1 | tr -d ' ')" = 0a ] ||
      printf '\n' >> "$corpus.tmp/unit/$f"
  done
  mkdir -p "$corpus.tmp/a"
  for i in $(seq -f '%03g' 1 "$reps"); do cp -r "$corpus.tmp/unit" "$corpus.tmp/a/r$i"; done
  cp -r "$corpus.tmp/a" "$corpus.tmp/b"
  rm -rf "$corpus.tmp/unit"
  printf '%s\n' "$stamp" > "$corpus.tmp/.stamp"
  mv "$corpus.tmp" "$corpus"
  corpus_ok || { echo "verify.sh: corpus size check failed" >&2; exit 1; }
fi
t1=$EPOCHREALTIME

full_list="$BENCH_OUT/corpus.full.list"
half_list="$BENCH_OUT/corpus.half.list"
sub_list="$BENCH_OUT/corpus.jqsub.list"
find "$corpus/a" "$corpus/b" -type f -name '*.jsonl' -print0 | sort -z > "$full_list"
find "$corpus/a" -type f -name '*.jsonl' -print0 | sort -z > "$half_list"
# jq fallback subset: the first 8 copies (fixed, ~8 x one copy of the samples).
find "$corpus/a" -type f -name '*.jsonl' -path "$corpus/a/r00[1-8]/*" -print0 | sort -z > "$sub_list"
bytes_of() { xargs -0 -a "$1" stat -c %s | awk '{s+=$1} END{printf "%d", s}'; }
count_of() { tr -cd '\0' < "$1" | wc -c; }
full_bytes=$(bytes_of "$full_list"); half_bytes=$(bytes_of "$half_list"); sub_bytes=$(bytes_of "$sub_list")
full_files=$(count_of "$full_list"); half_files=$(count_of "$half_list")
full_lines=$(xargs -0 -a "$full_list" cat | wc -l)
awk -v b="$full_bytes" -v h="$half_bytes" -v f="$full_files" -v hf="$half_files" -v l="$full_lines" \
    -v s="$t0" -v e="$t1" 'BEGIN{
  printf "corpus: full %d bytes (%.1f MiB) in %d files, %d lines; half %d bytes (%.1f MiB) in %d files; ready in %.1fs\n",
    b, b/1048576, f, l, h, h/1048576, hf, e-s }'

# ---- timing -----------------------------------------------------------------
# run_timed OUTVAR CMD...: one run; wall time from EPOCHREALTIME (µs), and
# user/sys CPU and peak RSS from /usr/bin/time. Appends "wall user sys rssKB"
# to the array named OUTVAR.
tfile="$BENCH_OUT/time.out"
run_timed() {
  local -n _acc=$1; shift
  local s e
  s=$EPOCHREALTIME
  "$TIME" -f '%U %S %M' -o "$tfile" "$@" >/dev/null 2>"$BENCH_OUT/stderr.out" || {
    # jq exits non-zero on a bad line; the corpus has none, so any failure is real.
    echo "verify.sh: command failed: $*" >&2; cat "$BENCH_OUT/stderr.out" >&2; exit 1; }
  e=$EPOCHREALTIME
  _acc+=("$(awk -v s="$s" -v e="$e" '{printf "%.6f %s %s %s", e-s, $1, $2, $3}' "$tfile")")
}
# median FIELD RECORDS...: the median of field FIELD (1 wall, 2 user, 3 sys,
# 4 rss, c: user+sys).
median() {
  local k=$1; shift
  printf '%s\n' "$@" | awk -v k="$k" '{print (k == "c" ? $2+$3 : $k)}' | sort -g |
    awk '{v[NR]=$1} END{ if (NR%2) print v[(NR+1)/2]; else printf "%.6f\n", (v[NR/2]+v[NR/2+1])/2 }'
}

# Warm the page cache: read every file once, then one untimed run of each tool.
xargs -0 -a "$full_list" cat > /dev/null
xargs -0 -a "$full_list" wc -l > /dev/null
"$LOGWATCH_BIN" verify --json "$corpus" > /dev/null

# jq: the whole corpus if it fits the budget, else a fixed subset scaled by bytes.
jq_est=()
run_timed jq_est xargs -0 -a "$sub_list" "$JQ" -c 'select(.type=="user")'
jq_scope=full
jq_list=$full_list
jq_bytes=$full_bytes
if awk -v w="${jq_est[0]%% *}" -v sb="$sub_bytes" -v fb="$full_bytes" -v bud="$JQ_BUDGET_S" \
     'BEGIN{exit !(w*fb/sb > bud)}'; then
  jq_scope=subset
  jq_list=$sub_list
  jq_bytes=$sub_bytes
fi

# Interleave the tools run by run so drift on a noisy machine hits all alike.
# /proc/stat before and after tells how much CPU other processes took meanwhile.
cpu_busy() { awk '/^cpu /{printf "%d %d\n", $2+$3+$4+$7+$8, $9}' /proc/stat; }
# Wait (up to QUIET_WAIT_S, default 60) for two quiet seconds in a row (other
# processes below 10% of the machine), so the timing starts undisturbed.
quiet_wait="${QUIET_WAIT_S:-60}"
hz=$(getconf CLK_TCK); cores=$(nproc)
waited=0; quiet=0
while (( waited < quiet_wait )); do
  read -r qb0 _ < <(cpu_busy); sleep 1; read -r qb1 _ < <(cpu_busy)
  if (( (qb1 - qb0) * 10 < hz * cores )); then
    (( ++quiet >= 2 )) && break
  else
    quiet=0
  fi
  waited=$(( waited + 1 ))
done
if (( quiet >= 2 )); then
  echo "machine: quiet after ${waited}s of waiting"
else
  echo "machine: still busy after ${quiet_wait}s of waiting; timing anyway"
fi
read -r busy0 steal0 < <(cpu_busy)
loop0=$EPOCHREALTIME
wc_r=(); jq_r=(); vf_r=(); vh_r=()
for ((i = 1; i <= RUNS; i++)); do
  run_timed wc_r xargs -0 -a "$full_list" wc -l
  run_timed vf_r "$LOGWATCH_BIN" verify --json "$corpus"
  run_timed vh_r "$LOGWATCH_BIN" verify --json "$corpus/a"
  if (( i <= JQ_RUNS )); then
    run_timed jq_r xargs -0 -a "$jq_list" "$JQ" -c 'select(.type=="user")'
  fi
done

loop1=$EPOCHREALTIME
read -r busy1 steal1 < <(cpu_busy)
ours=$(printf '%s\n' "${wc_r[@]}" "${jq_r[@]}" "${vf_r[@]}" "${vh_r[@]}" | awk '{s+=$2+$3} END{printf "%.2f", s}')

wc_t=$(median 1 "${wc_r[@]}")
vf_t=$(median 1 "${vf_r[@]}"); vf_u=$(median 2 "${vf_r[@]}"); vf_s=$(median 3 "${vf_r[@]}")
vh_t=$(median 1 "${vh_r[@]}")
jq_t_raw=$(median 1 "${jq_r[@]}")
jq_t=$(awk -v t="$jq_t_raw" -v b="$jq_bytes" -v fb="$full_bytes" 'BEGIN{printf "%.6f", t*fb/b}')
wc_c=$(median c "${wc_r[@]}"); vf_c=$(median c "${vf_r[@]}")
jq_c=$(awk -v t="$(median c "${jq_r[@]}")" -v b="$jq_bytes" -v fb="$full_bytes" 'BEGIN{printf "%.6f", t*fb/b}')
vf_rss=$(median 4 "${vf_r[@]}"); vh_rss=$(median 4 "${vh_r[@]}")
vf_rss_max=$(printf '%s\n' "${vf_r[@]}" | awk '{if ($4>m) m=$4} END{print m}')
vh_rss_max=$(printf '%s\n' "${vh_r[@]}" | awk '{if ($4>m) m=$4} END{print m}')

# ---- report -----------------------------------------------------------------
awk -v fb="$full_bytes" -v hb="$half_bytes" -v wc="$wc_t" -v jq="$jq_t" -v jqraw="$jq_t_raw" \
    -v jqb="$jq_bytes" -v jqscope="$jq_scope" -v vf="$vf_t" -v vh="$vh_t" -v vu="$vf_u" -v vs="$vf_s" \
    -v rf="$vf_rss" -v rh="$vh_rss" -v rfm="$vf_rss_max" -v rhm="$vh_rss_max" \
    -v runs="$RUNS" -v jqruns="$JQ_RUNS" -v cores="$(nproc)" -v hz="$(getconf CLK_TCK)" \
    -v busy="$(( busy1 - busy0 ))" -v steal="$(( steal1 - steal0 ))" -v ours="$ours" \
    -v loop="$(awk -v s="$loop0" -v e="$loop1" 'BEGIN{print e-s}')" \
    -v ff="$full_files" -v hf="$half_files" -v wcc="$wc_c" -v jqc="$jq_c" -v vfc="$vf_c" 'BEGIN{
  mb = 1e6
  printf "\n%-44s %9s %8s %8s\n", "full corpus, page cache warm, medians", "wall s", "MB/s", "cpu s"
  printf "  %-42s %9.3f %8.0f %8.2f\n", "wc -l  (" runs " runs)", wc, fb/mb/wc, wcc
  if (jqscope == "full")
    printf "  %-42s %9.3f %8.0f %8.2f\n", "jq -c select(.type==\"user\")  (" jqruns " runs)", jq, fb/mb/jq, jqc
  else {
    printf "  %-42s %9.3f %8.0f %8.2f   SCALED: timed on a %d-byte subset (%.3fs), x%.2f by bytes\n", \
      "jq -c select(.type==\"user\")  (" jqruns " runs)", jq, fb/mb/jq, jqc, jqb, jqraw, fb/jqb
  }
  printf "  %-42s %9.3f %8.0f %8.2f   (user %.2f + sys %.2f; %d workers on %d cores)\n", \
    "logwatch verify --json  (" runs " runs)", vf, fb/mb/vf, vfc, vu, vs, cores, cores
  printf "  %-42s %9.3f %8.0f\n", "logwatch verify --json, half corpus", vh, hb/mb/vh
  printf "\nratios\n"
  r1 = vf/wc; r2 = jq/vf; r3 = rf/rh
  printf "  verify/wc   %7.2f   target <= 4     %s\n", r1, (r1 <= 4 ? "PASS" : "FAIL")
  printf "  jq/verify   %7.2f   target >= 15    %s%s\n", r2, (r2 >= 15 ? "PASS" : "FAIL"), \
    (jqscope == "full" ? "" : "   (jq scaled from a subset)")
  printf "  (by cpu time, for reference: verify/wc %.2f, jq/verify %.2f)\n", vfc/wcc, jqc/vfc
  printf "\npeak RSS of verify (median of %d runs; max in parentheses)\n", runs
  printf "  full  %8.1f MiB (%.1f)   %d bytes\n", rf/1024, rfm/1024, fb
  printf "  half  %8.1f MiB (%.1f)   %d bytes\n", rh/1024, rhm/1024, hb
  printf "  full/half   %5.2f   target flat (<= 1.25; linear would be %.2f)   %s\n", \
    r3, fb/hb, (r3 <= 1.25 ? "PASS" : "FAIL")
  printf "  growth      %+.1f MiB for %+d MB in %+d files: %.1f KiB/file, %.1f KiB/MB\n", \
    (rf-rh)/1024, (fb-hb)/mb, ff-hf, (rf-rh)/(ff-hf), (rf-rh)/((fb-hb)/mb)
  other = busy/hz - ours; cap = loop*cores
  printf "\nmachine during timing: %.1fs x %d cores; our commands %.1f cpu-s, other processes %.1f cpu-s (%.0f%%), steal %.1fs\n", \
    loop, cores, ours, (other > 0 ? other : 0), 100*(other > 0 ? other : 0)/cap, steal/hz
  if (other > 0.10*cap)
    printf "WARNING: other processes used more than 10%% of the CPU while timing; ratios are disturbed, rerun on a quiet machine\n"
}'
