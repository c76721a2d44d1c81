#!/usr/bin/env bash
# Usage: dump_rerun_test.sh AMPBENCH HOSTILE_DIR
# --dump follows --out's rule on a folder ampbench itself dumped into: a
# second run without --overwrite is refused before anything is created, one
# with --overwrite reuses it (the marker tells it from a folder of the user's).
set -u
bin="$1"; hostile="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$hostile/rerun-dump"
rm -rf "$dir"
fail() { echo "dump_rerun_test: error: $1" >&2; exit 1; }
run() {
  local out="$1"; shift
  "$bin" run --suite "$hostile/valid-suite.json" --no-throughput --no-report --out "$dir/$out" --dump "$dir/dump" "$@"
}
run out1 >/dev/null || fail "the first run into a new --dump folder failed"
[[ -f "$dir/dump/.ampbench-run" ]] || fail "the dump folder carries no marker"
"$ROOT/ci/expect-exit.sh" 2 --says "--dump $dir/dump: is not empty" \
  "$bin" run --suite "$hostile/valid-suite.json" --no-report --out "$dir/out2" --dump "$dir/dump" \
  || fail "a second run into the same --dump without --overwrite was not refused"
[[ ! -e "$dir/out2" ]] || fail "the refused run created its --out folder"
run out3 --overwrite >/dev/null || fail "--overwrite did not reuse the folder a previous --dump wrote"
ls "$dir"/dump/*/case.json >/dev/null 2>&1 || fail "the rerun wrote no case into the dump"
echo "dump_rerun_test: ok"
