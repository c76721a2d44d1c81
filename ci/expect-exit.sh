#!/usr/bin/env bash
# Usage: expect-exit.sh CODE [--says TEXT] COMMAND...  Passes when COMMAND
# exits with CODE and says "error" on stderr (bad input must be named, not
# just refused), and TEXT too when given (the message names the problem).
expected="$1"; shift
says=""
if [[ "${1:-}" == "--says" ]]; then says="$2"; shift 2; fi
CMD=("$@")
err="$(mktemp)"
"$@" >/dev/null 2>"$err"
rc=$?
head -c 4000 "$err" >&2
fail() { echo "$1: ${CMD[*]}" >&2; rm -f "$err"; exit 1; }
[[ "$rc" == "$expected" ]] || fail "expected exit $expected, got $rc"
grep -qi "error" "$err" || fail "no error message on stderr"
if [[ -n "$says" ]] && ! grep -qF -- "$says" "$err"; then fail "stderr does not say '$says'"; fi
rm -f "$err"
