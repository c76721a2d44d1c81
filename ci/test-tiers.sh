#!/usr/bin/env bash
# Every CTest test carries a tier label (unit, suite or build), so that
# `ctest -L unit` stays the whole fast loop: lists any test without one.
#   ci/test-tiers.sh BUILD_DIR
set -euo pipefail
untiered="$(ctest --test-dir "$1" -N -LE '^(unit|suite|build)$' | grep -E '^ *Test +#' || true)"
if [[ -n "$untiered" ]]; then
  echo "error: tests without a tier label (LABELS unit, suite or build):" >&2
  echo "$untiered" >&2
  exit 1
fi
total="$(ctest --test-dir "$1" -N | sed -n 's/^Total Tests: //p')"
echo "every one of $total tests has a tier"
