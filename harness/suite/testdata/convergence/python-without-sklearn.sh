#!/usr/bin/env bash
# The venv's Python as it would be without scikit-learn (the shadow package
# next to this script fails to import), for the missing-dataset bad-input test.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHONPATH="$here/no-sklearn${PYTHONPATH:+:$PYTHONPATH}" exec "$AMPBENCH_REAL_PYTHON" "$@"
