#!/usr/bin/env bash
# Mutation testing: ci/mutants.sh [NAME ...] (see ci/mutants.py and ci/mutants.txt).
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/mutants.py" "$@"
