#!/usr/bin/env bash
# Provision everything ampbench needs: Debian packages and a persistent Python
# virtual environment (outside the clone) holding the pinned torch that also
# provides LibTorch. Idempotent: a provisioned machine returns in seconds and
# downloads nothing.
#
#   AMPBENCH_HOME   where the venvs live (default: $HOME/.cache/ampbench)
#   AMPBENCH_TORCH  the torch release to provision (default: the pin in
#                   ci/requirements.txt; the window: ci/torch-versions.txt)
#   AMPBENCH_QUIET  1: print nothing when there is nothing to do
# Exit 2: a torch version outside the supported window.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=ci/torch-env.sh
source "$ROOT/ci/torch-env.sh"  # TORCH_VERSION, TORCH_PIN, VENV, REQS
QUIET="${AMPBENCH_QUIET:-0}"

say() { [[ "$QUIET" == 1 ]] || echo "bootstrap: $*" >&2; }
die() { echo "bootstrap: error: $*" >&2; exit 1; }

APT_PACKAGES=(
  build-essential cmake ninja-build ccache git
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
  python3-venv procps  # procps: pgrep, used by the rank-failure test to find orphan ranks
  clang  # the compiler CMakeLists.txt prefers (docs/build-times.md, "Compilers")
  libclang-rt-dev  # clang's libFuzzer and sanitizer runtimes (the fuzz targets; only a Recommends of clang)
  postgresql  # history on PostgreSQL: the tests start a throwaway server (history/tests/pg_server.py)
  libre2-dev  # --filter: linear-time regular expressions (harness/runner/case_filter.h)
  libgloo-dev  # headers only: torch's ProcessGroupGloo.hpp includes them (harness/distributed)
  chromium chromium-driver  # reports/tests/test_browser.py: the report opened in headless Chromium
)

missing_apt_packages() {
  local p
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

provision_apt() {
  local missing
  missing=$(missing_apt_packages | tr '\n' ' ')
  [[ -z "${missing// }" ]] && return 0
  command -v apt-get >/dev/null || die "missing Debian packages ($missing) and no apt-get to install them"
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  say "installing Debian packages: $missing"
  $sudo apt-get update -qq >/dev/null || die "apt-get update failed (no access to Debian's package mirror?)"
  local p
  for p in $missing; do
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$p" >/dev/null \
      || die "could not install Debian package '$p'"
  done
}

# The stamp holds the hash of requirements.txt: the venv is rebuilt only when
# the pins change, so re-runs never touch the network.
requirements_hash() { sha256sum "$REQS" | cut -d' ' -f1; }

provision_venv() {
  local stamp="$VENV/.ampbench-requirements"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$(requirements_hash)" && -x "$VENV/bin/python" ]]; then
    return 0
  fi
  local python="${AMPBENCH_PYTHON:-python3}"
  command -v "$python" >/dev/null || die "no $python to create the virtual environment"
  mkdir -p "$(dirname "$VENV")"
  if [[ ! -x "$VENV/bin/python" ]]; then
    say "creating virtual environment at $VENV"
    "$python" -m venv "$VENV" || die "could not create a virtual environment at $VENV"
  fi
  local line pkg
  while IFS= read -r line; do
    pkg="${line%%#*}"; pkg="${pkg//[[:space:]]/}"
    [[ -z "$pkg" ]] && continue
    say "installing $pkg"
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q "$pkg" \
      || die "could not install Python package '$pkg' from PyPI"
  done < "$REQS"
  local installed
  installed="$(venv_torch_version "$VENV")"
  [[ "$installed" == "$TORCH_VERSION" ]] \
    || die "$VENV holds torch ${installed:-(none)} after installing torch==$TORCH_VERSION"
  requirements_hash > "$stamp"
}

# Before each release had its own venv, the pin's was $AMPBENCH_HOME/venv
# itself. Such a folder moves to its release's place instead of being
# reinstalled: a venv's Python runs from anywhere, and nothing here calls its
# console scripts (whose first lines name the old place).
adopt_unversioned_venv() {
  local legacy="$AMPBENCH_HOME/venv" v
  [[ -d "$legacy" && ! -L "$legacy" ]] || return 0
  v="$(venv_torch_version "$legacy")"
  [[ -n "$v" && -n "$(torch_pairing "$v")" && ! -e "$AMPBENCH_HOME/torch-$v/venv" ]] \
    || die "$legacy is a folder holding torch ${v:-(none)}, and that release's place ($AMPBENCH_HOME/torch-${v:-V}/venv) is taken or outside the window: move $legacy away; nothing was changed"
  mkdir -p "$AMPBENCH_HOME/torch-$v"
  mv "$legacy" "$AMPBENCH_HOME/torch-$v/venv"
  say "moved the torch $v venv from $legacy to $AMPBENCH_HOME/torch-$v/venv"
}

# $AMPBENCH_HOME/venv always names the pin's venv, whichever release it is.
link_default_venv() {
  [[ "$TORCH_VERSION" == "$TORCH_PIN" ]] || return 0
  local link="$AMPBENCH_HOME/venv" target="torch-$TORCH_VERSION/venv"
  [[ -L "$link" && "$(readlink "$link")" == "$target" ]] && return 0
  ln -sfn "$target" "$link"
  say "$link -> $target"
}

provision_apt
adopt_unversioned_venv
provision_venv
link_default_venv
say "ready: torch $TORCH_VERSION in $VENV"
