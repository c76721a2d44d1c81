# Sourced by bootstrap.sh and build.sh: which torch this command builds and
# runs against (AMPBENCH_TORCH; unset: ci/requirements.txt's pin), checked
# against the supported window (ci/torch-versions.txt), and where that
# version's virtual environment and build folder live. Sets TORCH_VERSION,
# TORCH_PIN, VENV, BUILD and REQS (the requirements file for that version), or exits 2
# with the reason. Every release has its own venv, so moving the pin or
# comparing two releases never reinstalls one over another; bootstrap.sh
# keeps $AMPBENCH_HOME/venv a link to the pin's, the Python the docs name.
#   default pin    $AMPBENCH_HOME/torch-V/venv (= $AMPBENCH_HOME/venv)   build/
#   any other      $AMPBENCH_HOME/torch-V/venv                           build-torch-V/
AMPBENCH_HOME="${AMPBENCH_HOME:-$HOME/.cache/ampbench}"
TORCH_VERSIONS_FILE="$ROOT/ci/torch-versions.txt"

torch_window() { sed -e 's/#.*//' "$TORCH_VERSIONS_FILE" | awk 'NF == 4 { print $1 }'; }
torch_pin() { sed -n 's/^torch==\([^[:space:]#]*\).*/\1/p' "$ROOT/ci/requirements.txt"; }
# "torchvision transformers torchao" paired with torch $1, empty when unsupported.
torch_pairing() { sed -e 's/#.*//' "$TORCH_VERSIONS_FILE" | awk -v v="$1" 'NF == 4 && $1 == v { print $2, $3, $4 }'; }

torch_refuse() { echo "${0##*/}: error: $*" >&2; exit 2; }

select_torch() {
  local pin requested pairing window
  pin="$(torch_pin)"
  TORCH_PIN="$pin"
  window="$(torch_window | tr '\n' ' ')"
  # Set but empty is a slip (a CI variable left blank), not a request for
  # the default: only an unset AMPBENCH_TORCH means the pin.
  [[ -n "${AMPBENCH_TORCH-unset}" ]] \
    || torch_refuse "AMPBENCH_TORCH is set but empty: name a release (supported: ${window% }) or unset it for the default, $pin"
  requested="${AMPBENCH_TORCH:-$pin}"
  [[ "$requested" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] \
    || torch_refuse "torch version '$requested' is not a release number like 2.14.1 (supported: ${window% })"
  pairing="$(torch_pairing "$requested")"
  [[ -n "$pairing" ]] || torch_refuse "torch $requested is outside the supported window (ci/torch-versions.txt: ${window% })"
  TORCH_VERSION="$requested"
  VENV="$AMPBENCH_HOME/torch-$requested/venv"
  if [[ "$requested" == "$pin" ]]; then
    BUILD="${AMPBENCH_BUILD_DIR:-$ROOT/build}"
    REQS="$ROOT/ci/requirements.txt"
  else
    BUILD="${AMPBENCH_BUILD_DIR:-$ROOT/build-torch-$requested}"
    REQS="$AMPBENCH_HOME/torch-$requested/requirements.txt"
    local vision transformers torchao
    read -r vision transformers torchao <<<"$pairing"
    mkdir -p "$AMPBENCH_HOME/torch-$requested"
    # The default requirements with this release train's four pins: the
    # rest of the environment is the same on every side of a comparison.
    sed -e "s/^torch==[^[:space:]#]*/torch==$requested/" \
        -e "s/^torchvision==[^[:space:]#]*/torchvision==$vision/" \
        -e "s/^transformers==[^[:space:]#]*/transformers==$transformers/" \
        -e "s/^torchao==[^[:space:]#]*/torchao==$torchao/" \
        "$ROOT/ci/requirements.txt" >"$REQS.new"
    cmp -s "$REQS.new" "$REQS" 2>/dev/null && rm -f "$REQS.new" || mv "$REQS.new" "$REQS"
  fi
}

# The torch version installed in a venv, read from its files (no import: 2 s).
venv_torch_version() {
  local f
  f="$(ls "$1"/lib/python3*/site-packages/torch/version.py 2>/dev/null | head -n 1)"
  [[ -n "$f" ]] && sed -n "s/^__version__ = '\([0-9.]*\).*/\1/p" "$f"
}

select_torch
