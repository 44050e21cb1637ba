# Sourced by the bench scripts: builds halfpower and prepares the two targets every bench uses,
# removed again on exit (also on failure or Ctrl-C).
#   bench_targets TAG FILE_SIZE
# sets HP (the binary), OUT (a scratch directory), LOOP (a 1 GiB loop device over /dev/shm,
# filled with random data so no read hits a hole) and FILE (a prefilled file of FILE_SIZE on the
# filesystem of BENCH_DIR, default: the repository). Needs root for the loop device.
bench_targets() {
  local tag=$1 file_size=$2
  cargo build --release -q
  HP=$PWD/target/release/halfpower
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
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  rm -f "$IMG" "$FILE"
  rm -rf "$OUT"
}
