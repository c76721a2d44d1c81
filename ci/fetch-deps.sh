#!/usr/bin/env bash
# Fills .deps/ (git-ignored) with the build dependencies that Debian packages
# provide (GoogleTest, Google Benchmark, nlohmann/json, CLI11, RE2, and Gloo's
# headers, which c10d's ProcessGroupGloo.hpp includes), extracted from
# their .deb files, so a GPU machine without apt or internet can build:
#   ci/fetch-deps.sh            # on a machine with apt
#   (carry .deps/ along)        # e.g. the device tool's `carry`
#   ci/gpu-check.sh             # on the GPU machine
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPS="$ROOT/.deps"
PACKAGES=(libgtest-dev libgmock-dev googletest libbenchmark-dev libbenchmark1debian nlohmann-json3-dev libcli11-dev libgloo-dev
          libre2-dev libre2-9)
rm -rf "$DEPS" && mkdir -p "$DEPS/debs" "$DEPS/root"
cd "$DEPS/debs"
for p in "${PACKAGES[@]}"; do
  apt-get download "$p" >/dev/null 2>&1 || { echo "fetch-deps: error: could not download Debian package '$p'" >&2; exit 1; }
done
for deb in *.deb; do dpkg -x "$deb" "$DEPS/root"; done
rm -rf "$DEPS/debs"
# What the build will look for there (ci/gpu-check.sh points CMake at it).
for f in include/nlohmann/json.hpp include/gloo/algorithm.h include/CLI/CLI.hpp include/gtest/gtest.h; do
  [[ -f "$DEPS/root/usr/$f" ]] || { echo "fetch-deps: error: $f missing from the extracted packages" >&2; exit 1; }
done
# Pure-Python wheels the oracle imports beyond torch (expecttest: PyTorch's
# own autocast test lists need it); ci/gpu-check.sh puts them on PYTHONPATH.
PY="${AMPBENCH_HOME:-$HOME/.cache/ampbench}/venv/bin/python"
mkdir -p "$DEPS/wheels"
"$PY" -m pip download --disable-pip-version-check -q --no-deps -d "$DEPS/wheels" \
  "$(grep -E '^expecttest==' "$ROOT/ci/requirements.txt")" \
  || { echo "fetch-deps: error: could not download the expecttest wheel" >&2; exit 1; }
echo "fetch-deps: $(du -sh "$DEPS" | cut -f1) in $DEPS"
