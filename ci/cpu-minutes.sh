#!/usr/bin/env bash
# The figures docs/build-times.md keeps per CPU kind, taken on the machine
# this runs on, the way that page measures them: a fresh clone of this
# repository's HEAD with an empty ccache, `time ./ampbench run` (the build,
# the smoke suite, the report), the build's figures from ninja's log
# (ci/build-times.py), then `time ci/test.sh` in the same clone and where
# its CTest time went (ci/ctest-times.py).
#
#   ci/cpu-minutes.sh OUT [--no-test] [--from-nothing]
#
# OUT            a new or empty folder: the clone, its ccache, each command's
#                log and minutes.md (the CPU's kind and flags, the commit,
#                each command with its time and exit status, the build's
#                slowest jobs, CTest's longest tests and any that failed)
# --no-test      stop after `./ampbench run`
# --from-nothing provision a new venv too (AMPBENCH_HOME in OUT, pip's cache
#                off): "from nothing" but the Debian packages; needs PyPI
#
# Exit: 0 every command passed; 1 one failed (minutes.md names it and its
# log; the figures of those that ran are kept); 2 bad usage.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# What is cloned: this repository, or (for ci/tests/test_cpu_minutes.py) another.
SOURCE="${AMPBENCH_MINUTES_SOURCE:-$ROOT}"
usage() { echo "usage: ci/cpu-minutes.sh OUT [--no-test] [--from-nothing]" >&2; exit 2; }
fail() { echo "cpu-minutes: error: $*" >&2; exit 2; }

[[ $# -ge 1 && "$1" != -* ]] || usage
OUT="$1"; shift
test_too=1; from_nothing=0
for arg in "$@"; do
  case "$arg" in
    --no-test) test_too=0 ;;
    --from-nothing) from_nothing=1 ;;
    *) fail "unknown option '$arg'" ;;
  esac
done
if [[ -e "$OUT" && ! -d "$OUT" ]]; then fail "$OUT is not a folder"; fi
if [[ -d "$OUT" && -n "$(ls -A "$OUT")" ]]; then fail "$OUT is not empty; give a new folder"; fi
mkdir -p "$OUT" || fail "cannot create $OUT"
OUT="$(cd "$OUT" && pwd)"

# The flags that decide this project's speed: half-precision arithmetic in
# hardware or emulated (docs/build-times.md, "The smoke suite per CPU kind").
cpu_model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
# Its generation, which a hypervisor's model name may hide ("AMD EPYC" for
# Zen 4, family 25, and Zen 5, family 26): the fingerprint's cpu_id.
cpu_field() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -n1; }
cpu_vendor="$(cpu_field vendor_id)"; cpu_family="$(cpu_field 'cpu family')"
if [[ -n "$cpu_vendor" && -n "$cpu_family" ]]; then
  cpu_id="$cpu_vendor family $cpu_family model $(cpu_field model)"
else
  cpu_id="generation not read"
fi
read -r -a cpu_flags <<< "$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
kept=()
for f in avx2 avx512f avx512_bf16 avx512_fp16 amx_bf16 amx_fp16; do
  [[ " ${cpu_flags[*]} " == *" $f "* ]] && kept+=("$f")
done

git clone -q "$SOURCE" "$OUT/clone" || fail "cannot clone $SOURCE"
commit="$(git -C "$OUT/clone" rev-parse --short HEAD)"
export CCACHE_DIR="$OUT/ccache"
if [[ $from_nothing == 1 ]]; then
  export AMPBENCH_HOME="$OUT/home" PIP_NO_CACHE_DIR=1
fi

rows=(); status=0
# timed NAME COMMAND...: runs it in the clone, its output in OUT/NAME.log.
timed() {
  local name="$1" start end rc
  shift
  start=$(date +%s)
  (cd "$OUT/clone" && "$@") > "$OUT/$name.log" 2>&1
  rc=$?
  end=$(date +%s)
  rows+=("| \`$*\` | $(( (end - start) / 60 ))m$(printf '%02d' $(( (end - start) % 60 )))s | exit $rc, [$name.log]($name.log) |")
  [[ $rc -eq 0 ]] || status=1
  return $rc
}

timed run ./ampbench run
(cd "$OUT/clone" && python3 ci/build-times.py build) > "$OUT/build-times.txt" 2>&1 || status=1
if [[ $test_too == 1 ]]; then
  timed test ci/test.sh
  # Where CTest's time went, for a CPU kind not measured before (a run that
  # stopped before CTest has nothing to show: the log says why).
  (cd "$OUT/clone" && python3 ci/ctest-times.py "$OUT/test.log" --top 15) > "$OUT/ctest-times.txt" 2>&1
fi

{
  echo "# Minutes on $(uname -n), $(date -u +%Y-%m-%d)"
  echo
  echo "- CPU: ${cpu_model:-unknown} ($cpu_id), $(nproc) cores; flags: ${kept[*]:-none of avx2, avx512f, avx512_bf16, avx512_fp16, amx_bf16, amx_fp16}"
  echo "- commit $commit, a fresh clone, ccache empty (CCACHE_DIR=$CCACHE_DIR)$([[ $from_nothing == 1 ]] && echo ", a new venv (AMPBENCH_HOME=$AMPBENCH_HOME)")"
  echo
  echo "| command | wall | result |"
  echo "|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "The build (ci/build-times.py build):"
  echo
  echo '```'
  cat "$OUT/build-times.txt"
  echo '```'
  if [[ $test_too == 1 ]]; then
    echo
    echo "CTest in \`ci/test.sh\` (ci/ctest-times.py test.log):"
    echo
    echo '```'
    cat "$OUT/ctest-times.txt"
    echo '```'
  fi
} > "$OUT/minutes.md"
cat "$OUT/minutes.md"
exit $status
