#!/usr/bin/env bash
# What coordinating ranks costs: rank 0's waits in the three phase barriers and its gather of
# every rank's document, for RANKS ranks on this machine (files in a scratch directory).
#   bench/mpi-cost.sh [RUNS] [RANKS]     (default 5 runs of 3 ranks; needs mpirun and the MPI
#                                          development files; docs/mpi.md records a run)
# A barrier's wait is the skew between the ranks arriving plus MPI's own cost; the third comes
# after the measured phase, so it holds the ranks' different drain times.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
RANKS=${2:-3}
cargo build --release -q --features mpi --target-dir target/mpi
HP=$PWD/target/mpi/release/halfpower
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated
echo "run  barrier after setup, before measuring, after measuring (µs)  gather (µs)  IOPS spread"
for r in $(seq "$RUNS"); do
  rm -f "$OUT/o.json" # halfpower refuses to replace a result without --force
  mpirun --oversubscribe -np "$RANKS" "$HP" run "$OUT/f.{rank}" --size 16m --rw randread --qd 4 \
    --time 2s --warmup 500ms --json "$OUT/o.json" --quiet >/dev/null
  python3 - "$OUT/o.json" "$r" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["results"]["job"]
b = "  ".join(f"{x:8.0f}" for x in j["barrier_us"])
print(f"{sys.argv[2]:>3}  {b}  {j['gather_us']:8.0f}  {j['spread']['ratio']:.3f}")
PY
done
# Each point of a command other than run is joined the same way (measure::job): a sweep of four
# 1-s points, each point's barrier waits and gathering as a share of its 1 s.
echo "sweep point  barriers (µs)  gather (µs)  share of the 1-s point"
for r in $(seq "$RUNS"); do
  rm -f "$OUT/s.json"
  mpirun --oversubscribe -np "$RANKS" "$HP" sweep "$OUT/f.{rank}" --size 16m --rw randread \
    --bs 4k,8k --qd 1,4 --time 1s --warmup 200ms --json "$OUT/s.json" --quiet >/dev/null
  python3 - "$OUT/s.json" "$r" <<'PY'
import json, sys
for i, p in enumerate(json.load(open(sys.argv[1]))["points"]):
    j = p["results"]["job"]
    b = sum(j["barrier_us"])
    share = (b + j["gather_us"]) / 1e6 * 100
    print(f"{sys.argv[2]:>3}.{i}  {b:12.0f}  {j['gather_us']:10.0f}  {share:6.3f} %")
PY
done
