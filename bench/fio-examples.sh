#!/usr/bin/env bash
# fio's own example job files, run by fio and by `halfpower fio` on the same loop device
# throttled by blkio to 2000 IOPS and 40 MB/s each way; prints each job's IOPS in both and the
# ratio. fio's examples are GPL and not part of this repository: point the script at a copy
# (`git clone https://github.com/axboe/fio` and pass fio/examples).
#   bench/fio-examples.sh EXAMPLES_DIR [RUNTIME_S]
# Each example that `halfpower fio --parse-only` accepts is copied with every job pointed at the
# loop device: filename=LOOP, size=48m, runtime=RUNTIME_S, time_based, direct=1 (so the page
# cache does not decide the figures), directory and the example's own filename lines removed
# (fio adds a job's filename to an inherited one rather than replacing it). An example that
# plans only with --ignore-unknown runs so in halfpower (marked `*`; fio runs all of it).
# Examples halfpower refuses are listed with the reason; planning is given 30 s, and the end
# counts accepted / accepted with --ignore-unknown / refused naming the option / refused for
# another reason / crashed (a signal or a panic) / hung (past 30 s). Each tool gets 300 s per
# example (fio 3.33 never ends io_submit_mode=offload with time_based here).
# Needs root (loop device, cgroup v1 blkio) and fio.
set -euo pipefail
cd "$(dirname "$0")/.."
EXAMPLES=$(realpath "${1:?usage: bench/fio-examples.sh EXAMPLES_DIR [RUNTIME_S]}")
RUNTIME=${2:-3}
source bench/targets.sh
bench_targets fioex 16m
CG=/sys/fs/cgroup/blkio/halfpower-fioex-$$
mkdir "$CG"
# KEEP=DIR keeps the rewritten jobs and both tools' JSON there.
cleanup() {
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$OUT"/*.fio "$OUT"/*.json "$KEEP"/ 2>/dev/null || true; fi
  rmdir "$CG" 2>/dev/null || true
  bench_cleanup
}
trap cleanup EXIT
DEV=$(lsblk -ndo MAJ:MIN "$LOOP" | tr -d ' ')
for f in read_bps write_bps; do echo "$DEV 40000000" > "$CG/blkio.throttle.${f}_device"; done
for f in read_iops write_iops; do echo "$DEV 2000" > "$CG/blkio.throttle.${f}_device"; done
# Runs a command inside the throttled cgroup.
throttled() { sh -c 'echo $$ > "$0/cgroup.procs" && shift && exec "$@"' "$CG" _ "$@"; }
printf '%-28s %-22s %10s %10s %7s\n' example job fio halfpower ratio
declare -A count=()
for ex in "$EXAMPLES"/*.fio; do
  name=$(basename "$ex" .fio)
  ignore=()
  label=$name
  set +e
  why=$(timeout 30 "$HP" fio "$ex" --parse-only 2>&1 >/dev/null); rc=$?
  if [ "$rc" = 2 ]; then
    ignore=(--ignore-unknown)
    why=$(timeout 30 "$HP" fio "$ex" --parse-only --ignore-unknown 2>&1 >/dev/null); rc=$?
  fi
  set -e
  why=$(echo "$why" | { grep -v '^halfpower: warning' || true; } | head -1 | cut -c1-110)
  case "$rc" in
    0) if [ ${#ignore[@]} = 0 ]; then count[accepted]=$((${count[accepted]:-0} + 1));
       else count[ignore-unknown]=$((${count[ignore-unknown]:-0} + 1)); label="$name*"; fi ;;
    124) count[hung]=$((${count[hung]:-0} + 1)); printf '%-28s hung planning\n' "$name"; continue ;;
    2) if echo "$why" | grep -q "option '"; then count[refused-naming]=$((${count[refused-naming]:-0} + 1));
       else count[refused-other]=$((${count[refused-other]:-0} + 1)); fi
       printf '%-28s refused: %s\n' "$name" "$why"; continue ;;
    *) count[crashed]=$((${count[crashed]:-0} + 1)); printf '%-28s exit %s: %s\n' "$name" "$rc" "$why"; continue ;;
  esac
  job=$OUT/$name.fio
  # The overrides go at the end of each job section, so they win over the job's own lines.
  awk -v loop="$LOOP" -v rt="$RUNTIME" '
    function close_job() {
      if (job) {
        print "filename=" loop; print "size=48m"; print "runtime=" rt; print "time_based"
        print "direct=1"
      }
    }
    /^[ \t]*(directory|filename)[ \t]*=/ { next }
    /^\[/ { close_job(); job = ($0 !~ /^\[global/) }
    { print }
    END { close_job() }' "$ex" > "$job"
  throttled timeout 300 fio "$job" --output-format=json --output="$OUT/$name.fio.json" >/dev/null 2>&1 || {
    printf '%-28s fio failed on the rewritten job\n' "$name"; continue; }
  throttled timeout 300 "$HP" fio "$job" "${ignore[@]}" --allow-write --quiet --output-format=json \
    --output="$OUT/$name.hp.json" 2>"$OUT/$name.hp.err" || {
    printf '%-28s halfpower failed: %s\n' "$name" "$(grep -v warning "$OUT/$name.hp.err" | head -1)"; continue; }
  python3 - "$OUT/$name.fio.json" "$OUT/$name.hp.json" "$label" <<'PY' || printf '%-28s the JSON could not be compared\n' "$name"
import json, sys
def load(path):
    # fio writes its warnings (e.g. "verification read phase will never start") before the JSON.
    text = open(path).read()
    return json.loads(text[text.index("{"):])
fio, hp, name = (load(sys.argv[1]), load(sys.argv[2]), sys.argv[3])
def iops(j):
    return sum(j.get(d, {}).get("iops", 0) for d in ("read", "write", "mixed"))
# fio reports each numjobs clone as a job unless group_reporting; halfpower reports one per job.
per = {}
for j in fio["jobs"]:
    per.setdefault(j["jobname"], 0.0)
    per[j["jobname"]] += iops(j)
for j in hp["jobs"]:
    a, b = per.get(j["jobname"], 0.0), iops(j)
    r = b / a if a else float("nan")
    print(f"{name:<28} {j['jobname']:<22} {a:>10.4g} {b:>10.4g} {r:>7.3f}")
PY
done
for k in accepted ignore-unknown refused-naming refused-other crashed hung; do
  printf '%s %s  ' "$k" "${count[$k]:-0}"
done
echo
