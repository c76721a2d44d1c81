#!/usr/bin/env bash
# The torch window's two ends: provision, build and run a suite against the
# oldest supported torch and the newest (ci/torch-versions.txt), each in its
# own venv and build folder (ci/torch-env.sh). ci/test.sh covers the default
# pin; this is the scheduled job that keeps both ends building and conforming.
#
#   ci/torch-matrix.sh [OUT] [-- RUN-ARGS...]   (default: --suite smoke --device cpu --no-report)
#
# Exit: 0 both ends conform; 1 a side does not conform; 2 a side did not
# provision, build or run.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/results/torch-matrix"
if [[ $# -gt 0 && "$1" != "--" ]]; then OUT="$1"; shift; fi
[[ "${1:-}" == "--" ]] && shift
RUN_ARGS=("$@")
((${#RUN_ARGS[@]})) || RUN_ARGS=(--suite smoke --device cpu --no-report)
versions="$(sed -e 's/#.*//' "$ROOT/ci/torch-versions.txt" | awk 'NF == 4 { print $1 }')"
ends=("$(head -n 1 <<<"$versions")" "$(tail -n 1 <<<"$versions")")
mkdir -p "$OUT" || { echo "torch-matrix: error: cannot create $OUT" >&2; exit 2; }

status=0
for v in "${ends[@]}"; do
  start=$SECONDS
  if ! AMPBENCH_TORCH="$v" "$ROOT/ci/bootstrap.sh" || ! AMPBENCH_TORCH="$v" "$ROOT/ci/build.sh" ampbench; then
    echo "torch $v: error: could not provision or build" >&2
    status=2; continue
  fi
  build="$(AMPBENCH_TORCH="$v" bash -c 'ROOT="$1"; source "$ROOT/ci/torch-env.sh"; echo "$BUILD"' _ "$ROOT")"
  built=$((SECONDS - start))
  "$build/ampbench" run "${RUN_ARGS[@]}" --overwrite --out "$OUT/torch-$v" >"$OUT/torch-$v.log" 2>&1
  rc=$?
  summary="$(grep -E "^verdicts: " "$OUT/torch-$v.log" | tail -n 1)"
  teeth="$(grep -E "^teeth:" "$OUT/torch-$v.log" | tail -n 1)"
  echo "torch $v: exit $rc (provision + build ${built}s, run $((SECONDS - start - built))s): $summary; $teeth"
  ((rc == 0)) || status=$((rc > status ? rc : status))
done
exit $status
