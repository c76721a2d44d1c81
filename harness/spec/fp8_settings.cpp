#include "spec/fp8_settings.h"

namespace ampbench {

std::optional<fp8::Scaling> fp8_scaling(const PrecisionPolicy& precision) {
  switch (precision.precision()) {
    case Precision::kFp8Tensorwise: return fp8::Scaling::kTensorwise;
    case Precision::kFp8Rowwise: return fp8::Scaling::kRowwise;
    case Precision::kFp8Delayed: return fp8::Scaling::kDelayed;
    case Precision::kMxfp8: return fp8::Scaling::kMxfp8;
    case Precision::kNvfp4: return fp8::Scaling::kNvfp4;
    case Precision::kFp8Blockwise: return fp8::Scaling::kBlockwise;
    default: return std::nullopt;
  }
}

bool is_fp8_control(Control control) {
  return control == Control::kFp8FrozenScales || control == Control::kFp8InputAmaxFromWeight ||
         control == Control::kFp8E4m3Gradients || control == Control::kFp8HistoryNotRolled ||
         control == Control::kFp8NoSaturation || control == Control::kFp8RowwiseUnroundedScales ||
         control == Control::kResumeWithoutFp8State || control == Control::kMxfp8CeilScales ||
         control == Control::kMxfp8Block16 || control == Control::kMxfp8E8m0Wrap ||
         control == Control::kNvfp4SameStream || control == Control::kNvfp4NoHadamard ||
         control == Control::kNvfp4Block32 || control == Control::kNvfp4NoTensorScale ||
         control == Control::kFp8BlockwiseTile64 || control == Control::kFp8BlockwiseTensorAmax;
}

std::string apply_fp8_control(Control control, const PrecisionPolicy& precision, fp8::RecipeOptions& recipe) {
  if (!is_fp8_control(control)) return "";
  if (!precision.is_fp8())
    return "negative control '" + to_string(control) + "' is an FP8 mistake: it needs an fp8_* precision, not " +
           precision.name();
  const std::string recipe_name = fp8::scaling_name(recipe.scaling());
  const bool per_tensor = recipe.scaling() != fp8::Scaling::kRowwise && recipe.scaling() != fp8::Scaling::kMxfp8 &&
                          recipe.scaling() != fp8::Scaling::kNvfp4 && recipe.scaling() != fp8::Scaling::kBlockwise;
  const bool nv = recipe.scaling() == fp8::Scaling::kNvfp4;
  const bool mx = recipe.scaling() == fp8::Scaling::kMxfp8;
  switch (control) {
    case Control::kFp8FrozenScales:
      if (!per_tensor) break;
      recipe.freeze_scales(true);
      return "";
    case Control::kFp8InputAmaxFromWeight:
      if (!per_tensor) break;
      recipe.input_amax_from_weight(true);
      return "";
    case Control::kFp8E4m3Gradients:
      // Rowwise casts every operand to e4m3 already: no e5m2 to lose.
      if (!per_tensor) break;
      recipe.e4m3_gradients(true);
      return "";
    case Control::kFp8HistoryNotRolled:
      if (recipe.scaling() != fp8::Scaling::kDelayed) break;
      recipe.roll_history(false);
      return "";
    case Control::kFp8NoSaturation:
      // Scales from the current amax put every value inside the range: the
      // clamp never acts, so leaving it out is no mistake there.
      if (recipe.scaling() != fp8::Scaling::kDelayed)
        return "negative control 'fp8_no_saturation' changes nothing under the " + recipe_name +
               " recipe: its scales come from the current amax, so no value reaches the clamp (a mistake of "
               "fp8_delayed only)";
      recipe.saturate(false);
      return "";
    case Control::kFp8RowwiseUnroundedScales:
      if (recipe.scaling() != fp8::Scaling::kRowwise) break;
      recipe.pow2_scales(false);
      return "";
    case Control::kResumeWithoutFp8State:
      // A fault of the resume, not of the recipe: nothing to set here.
      if (recipe.scaling() != fp8::Scaling::kDelayed)
        return "negative control 'resume_without_fp8_state' forgets a scaling state the " + recipe_name +
               " recipe does not keep (its scales come from the tensors being cast: a mistake of fp8_delayed only)";
      return "";
    case Control::kMxfp8CeilScales:
      if (!mx || recipe.mx_scale_mode() != fp8::MxScaleMode::kFloor) break;
      recipe.mx_scale_mode(fp8::MxScaleMode::kCeil);
      return "";
    case Control::kMxfp8Block16:
      if (!mx) break;
      recipe.mx_block(16);
      return "";
    case Control::kMxfp8E8m0Wrap:
      if (!mx) break;
      recipe.mx_clamp_exponent(false);
      return "";
    case Control::kNvfp4SameStream:
      if (!nv) break;
      recipe.nvfp4_fresh_stream(false);
      return "";
    case Control::kNvfp4NoHadamard:
      if (!nv) break;
      recipe.nvfp4_hadamard(false);
      return "";
    case Control::kNvfp4Block32:
      if (!nv) break;
      recipe.nvfp4_block(32);
      return "";
    case Control::kFp8BlockwiseTile64:
      if (recipe.scaling() != fp8::Scaling::kBlockwise) break;
      recipe.blockwise_tile(64);
      return "";
    case Control::kFp8BlockwiseTensorAmax:
      if (recipe.scaling() != fp8::Scaling::kBlockwise) break;
      recipe.blockwise_own_amax(false);
      return "";
    case Control::kNvfp4NoTensorScale:
      if (!nv) break;
      recipe.nvfp4_tensor_scale(false);
      return "";
    default: break;
  }
  return "negative control '" + to_string(control) + "' is not a mistake the " + recipe_name +
         " recipe can make (docs/fp8.md, \"The FP8 mistakes\")";
}

}  // namespace ampbench
