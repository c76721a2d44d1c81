#!/usr/bin/env bash
# Usage: untouched.sh DIR COMMAND...  Runs COMMAND and passes on its exit
# status, unless DIR changed meanwhile: an entry added, removed, rewritten or
# re-timed (a refused output folder must be left exactly as the user had it,
# not just hold the same names).
set -u
dir="$1"; shift
snapshot() {
  (cd "$dir" && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort &&
     find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}
[[ -d "$dir" ]] || { echo "untouched.sh: error: $dir is not a folder" >&2; exit 1; }
before="$(snapshot)"
"$@"
rc=$?
after="$(snapshot)"
if [[ "$before" != "$after" ]]; then
  echo "untouched.sh: error: $dir changed:" >&2
  diff <(echo "$before") <(echo "$after") >&2
  exit 1
fi
exit $rc
