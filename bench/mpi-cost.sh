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
