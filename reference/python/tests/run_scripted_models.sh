#!/usr/bin/env bash
# run_scripted_models.sh BUILD_DIR OUTDIR [MODEL]
#
# Bring your own model, end to end, as docs/your-model.md tells a user to:
# exports three user-style modules with `python -m reference.export` (a
# scripted torchvision ResNet-18 at 32x32, reference.testmodels.TokenAttention:
# embeddings, LayerNorm eps 1e-12 and attention with a padding mask, and
# reference.testmodels.TwoInputs: an image and a feature vector), runs each
# through the suite the export wrote, in fp16, O2 and bf16 with its negative
# controls, and cross-checks every dumped case against the same file replayed
# by the Python oracle (run_crosscheck.sh). Every case must conform, every
# control be caught, every replay agree. MODEL (resnet18, tokattn or twoin)
# does one of the three: they are independent, and CTest runs them side by
# side (ResNet-18 alone takes most of the time).
#
# Exit: 0 all hold; 1 a case does not conform, a control is missed or
# a replay disagrees; 2 bad arguments, or the export or the run could not be done.
set -uo pipefail
MODELS=(resnet18 tokattn twoin)
if [[ $# -lt 2 || $# -gt 3 ]] || [[ $# -eq 3 && ! " ${MODELS[*]} " =~ " $3 " ]]; then
  echo "usage: $0 BUILD_DIR OUTDIR [$(IFS='|'; echo "${MODELS[*]}")]" >&2
  exit 2
fi
[[ $# -eq 3 ]] && MODELS=("$3")
BUILD="$(cd "$1" && pwd)"
OUT="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PY="${AMPBENCH_PYTHON:-${AMPBENCH_HOME:-$HOME/.cache/ampbench}/venv/bin/python}"
# OUT is this script's own folder: one it did not make is never emptied.
MARK=".run_scripted_models"
if [[ -d "$OUT" && -n "$(ls -A "$OUT")" && ! -f "$OUT/$MARK" ]]; then
  echo "run_scripted_models: error: $OUT is not empty and was not made by this script" >&2
  exit 2
fi
rm -rf "$OUT"
mkdir -p "$OUT"
touch "$OUT/$MARK"
OUT="$(cd "$OUT" && pwd)"
cd "$ROOT" || exit 2

# One thread, as the cross-check's run and replay: the export holds the file
# to the module in one process, so the thread count decides nothing, but two
# OpenMP threads beside another test on 2 cores spin against each other
# (ResNet-18's export took 57 s instead of 12).
export_model() {
  if ! OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 "$PY" -m reference.export "$@" 2>"$OUT/export.log"; then
    cat "$OUT/export.log" >&2
    exit 2
  fi
}
export_resnet18() {
  export_model torchvision.models:resnet18 --kwargs '{"num_classes": 10}' --input 3,32,32 --batch 8 \
    --matrix quick --out "$OUT/resnet18.pt"
  # ResNet-18 (11M parameters) at 4 steps instead of the quick suite's 8: one
  # thread on each side (the cross-check's rule) makes every step count. The
  # injected inf of its controls' cases moves from step 4 to 2, so that the
  # whole suite stays one that loads (a step past the run is refused).
  "$PY" - "$OUT/resnet18.suite.json" <<'PY' || exit 2
import json, sys
doc = json.load(open(sys.argv[1]))
doc["defaults"]["steps"] = 4
for case in doc["cases"]:
    if "inject_inf_step" in case:
        case["inject_inf_step"] = 2
json.dump(doc, open(sys.argv[1], "w"), indent=2)
PY
}
export_tokattn() { export_model reference.testmodels:TokenAttention --tokens 12 --vocab 100 --out "$OUT/tokattn.pt"; }
export_twoin() { export_model reference.testmodels:TwoInputs --input 3,8,8 --input 10 --out "$OUT/twoin.pt"; }
for model in "${MODELS[@]}"; do "export_$model"; done

# Smoke-sized selections: ResNet-18 (11M parameters, one thread) runs its
# quick suite's plain cases in fp16, O2 and bf16; the small modules every
# single-process case, every control and the resumed case. ResNet-18's
# controls are left to them and to reference.model_corpus, whose
# MobileNetV3 and LCNet are convolutional networks exported the same way:
# there `fresh_scaler_each_step` is caught by the scale audit (as it was
# here, at step 1: the audit reads the scale, not the model) and
# `step_every_microbatch` by its loss deviation (MobileNetV3 5.4x its bound;
# TokenAttention 24.5x, TwoInputs 7.5x). Here the two controls and the
# baselines they need took about 20 s and 35 s of the test on a 2-core EPYC,
# every one of their steps an emulated float16 convolution.
# Baselines come with the cases that need them. DDP has no Python
# counterpart: its cases run on their own.
declare -A FILTER=(
  [resnet18]='^plain/[^/]+/(fp16|o2|bf16)/sgd$'
  [tokattn]='workload=plain|clip|accumulation|penalty|multi'
  [twoin]='workload=plain|clip|accumulation|penalty|multi'
)
status=0
for model in "${MODELS[@]}"; do
  echo "run_scripted_models: $model" >&2
  AMPBENCH_CROSSCHECK_SUITE="$OUT/$model.suite.json" AMPBENCH_CROSSCHECK_FILTER="${FILTER[$model]}" \
    AMPBENCH_CROSSCHECK_REQUIRE_CONFORMING=1 \
    "$ROOT/reference/python/run_crosscheck.sh" "$BUILD" "$OUT/$model"
  rc=$?
  tail -n 4 "$OUT/$model/run.log" >&2
  if [[ $rc -eq 2 ]]; then exit 2; fi
  if [[ $rc -ne 0 ]]; then status=1; fi
done
for model in "${MODELS[@]}"; do
  [[ $model == resnet18 ]] && continue
  echo "run_scripted_models: $model under DDP (2 ranks)" >&2
  "$BUILD/ampbench" run --suite "$OUT/$model.suite.json" --device cpu --no-report --no-throughput \
    --filter 'workload=ddp' --out "$OUT/$model-ddp" >"$OUT/$model-ddp.log" 2>&1
  rc=$?
  tail -n 3 "$OUT/$model-ddp.log" >&2
  if [[ $rc -eq 2 ]]; then exit 2; fi
  if [[ $rc -ne 0 ]]; then status=1; fi
done
exit $status
