# Sourced by the bench scripts: builds halfpower and prepares the two targets every bench uses,
# removed again on exit (also on failure or Ctrl-C).
#   bench_targets TAG FILE_SIZE
# sets HP (the binary; HALFPOWER_BIN=PATH for another build), OUT (a scratch directory), LOOP (a 1 GiB loop device over /dev/shm,
# filled with random data so no read hits a hole) and FILE (a prefilled file of FILE_SIZE on the
# filesystem of BENCH_DIR, default: the repository). Needs root for the loop device.
bench_targets() {
  local tag=$1 file_size=$2
  # HALFPOWER_BIN=PATH runs another build (an older commit's, for a before/after comparison).
  if [ -n "${HALFPOWER_BIN:-}" ]; then
    HP=$(realpath "$HALFPOWER_BIN")
  else
    cargo build --release -q
    HP=$PWD/target/release/halfpower
  fi
  OUT=$(mktemp -d)
  IMG=/dev/shm/halfpower-$tag.img
  FILE=${BENCH_DIR:-$PWD}/halfpower-$tag.dat
  LOOP=""
  trap bench_cleanup EXIT
  dd if=/dev/urandom of="$IMG" bs=1M count=1024 status=none
  LOOP=$(losetup -f --show "$IMG")
  "$HP" run "$FILE" --size "$file_size" --bytes 4k --warmup 0 --keep --quiet >/dev/null
}

bench_cleanup() {
  [ -n "${CG:-}" ] && rmdir "$CG" 2>/dev/null || true
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  rm -f "$IMG" "$FILE"
  rm -rf "$OUT"
}

# bench_throttled TAG FILE_SIZE: bench_targets, plus a blkio (cgroup v1) group CG for LOOP,
# removed on exit. `limit IOPS BYTES` caps LOOP there (0 0: no cap); `incg CMD...` runs CMD in it.
bench_throttled() {
  [ -d /sys/fs/cgroup/blkio ] || { echo "needs cgroup v1 blkio (/sys/fs/cgroup/blkio)" >&2; exit 1; }
  bench_targets "$@"
  CG=/sys/fs/cgroup/blkio/halfpower-bench-$$
  mkdir -p "$CG"
  NUM=$(lsblk -no MAJ:MIN "$LOOP" | tr -d ' ')
}

limit() {
  for f in read_iops_device write_iops_device; do echo "$NUM $1" >"$CG/blkio.throttle.$f"; done
  for f in read_bps_device write_bps_device; do echo "$NUM $2" >"$CG/blkio.throttle.$f"; done
}

incg() { sh -c "echo \$\$ > $CG/cgroup.procs && exec \"\$0\" \"\$@\"" "$@"; }
