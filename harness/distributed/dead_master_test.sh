#!/usr/bin/env bash
# A rank whose master cannot be reached (nothing listens at MASTER_ADDR:PORT)
# exits 3 with one line on stderr: c10d's per-attempt connection warnings and
# its C++ backtrace are not the user's to read.
#   dead_master_test.sh AMPBENCH OUT_DIR
set -uo pipefail
BIN="$1"; OUT="$2"
rm -rf "$OUT"; mkdir -p "$OUT"
# A port nothing listens on: bind one, release it, use it.
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$PORT" \
  "$BIN" run --suite smoke --device cpu --filter '^ddp/mlp/fp32/sgd@2ranks$' --no-report --rank-timeout 3 \
  --out "$OUT/run" >"$OUT/stdout" 2>"$OUT/stderr"
rc=$?
cat "$OUT/stderr" >&2
fail() { echo "FAIL: $1" >&2; exit 1; }
[[ "$rc" == 3 ]] || fail "expected exit 3, got $rc"
lines="$(grep -c . "$OUT/stderr")"
[[ "$lines" == 1 ]] || fail "expected one line on stderr, got $lines"
grep -q "could not join the process group at 127.0.0.1:$PORT" "$OUT/stderr" || fail "the line does not name the master"
echo "PASS: exit 3, one line"
