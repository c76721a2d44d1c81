#!/usr/bin/env bash
# Usage: expect-exit.sh CODE COMMAND...  Passes when COMMAND exits with CODE
# and says "error" on stderr (bad input must be named, not just refused).
expected="$1"; shift
err="$(mktemp)"
"$@" >/dev/null 2>"$err"
rc=$?
cat "$err" >&2
if [[ "$rc" != "$expected" ]]; then echo "expected exit $expected, got $rc: $*" >&2; rm -f "$err"; exit 1; fi
if ! grep -qi "error" "$err"; then echo "no error message on stderr: $*" >&2; rm -f "$err"; exit 1; fi
rm -f "$err"
