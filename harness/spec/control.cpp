#include "spec/control.h"

#include <array>
#include <utility>

namespace ampbench {
namespace {

constexpr std::array<std::pair<Control, std::string_view>, 29> kNames = {{
    {Control::kNone, "correct"},
    {Control::kNoScaler, "no_scaler"},
    {Control::kFreshScalerEachStep, "fresh_scaler_each_step"},
    {Control::kResumeWithoutScalerState, "resume_without_scaler_state"},
    {Control::kClipBeforeUnscale, "clip_before_unscale"},
    {Control::kStepEveryMicrobatch, "step_every_microbatch"},
    {Control::kPenaltyFromScaledGrads, "penalty_from_scaled_grads"},
    {Control::kUpdatePerOptimizer, "update_per_optimizer"},
    {Control::kRankDisagreement, "rank_disagreement"},
    {Control::kFp8FrozenScales, "fp8_frozen_scales"},
    {Control::kFp8InputAmaxFromWeight, "fp8_input_amax_from_weight"},
    {Control::kFp8E4m3Gradients, "fp8_e4m3_gradients"},
    {Control::kFp8HistoryNotRolled, "fp8_history_not_rolled"},
    {Control::kFp8NoSaturation, "fp8_no_saturation"},
    {Control::kFp8RowwiseUnroundedScales, "fp8_rowwise_unrounded_scales"},
    {Control::kResumeWithoutFp8State, "resume_without_fp8_state"},
    {Control::kMxfp8CeilScales, "mxfp8_ceil_scales"},
    {Control::kMxfp8Block16, "mxfp8_block_16"},
    {Control::kMxfp8E8m0Wrap, "mxfp8_e8m0_wrap"},
    {Control::kFp16WeightsNoMaster, "fp16_weights_no_master"},
    {Control::kBf16WeightsNoMaster, "bf16_weights_no_master"},
    {Control::kScalerGrowthOff, "scaler_growth_off"},
    {Control::kScaleNeverRecovers, "scale_never_recovers"},
    {Control::kNvfp4SameStream, "nvfp4_same_stream"},
    {Control::kNvfp4NoHadamard, "nvfp4_no_hadamard"},
    {Control::kNvfp4Block32, "nvfp4_block_32"},
    {Control::kNvfp4NoTensorScale, "nvfp4_no_tensor_scale"},
    {Control::kFp8BlockwiseTile64, "fp8_blockwise_tile_64"},
    {Control::kFp8BlockwiseTensorAmax, "fp8_blockwise_tensor_amax"},
}};

}  // namespace

std::string to_string(Control control) {
  for (const auto& [c, name] : kNames)
    if (c == control) return std::string(name);
  return "unknown";
}

std::vector<Control> all_controls() {
  std::vector<Control> out;
  for (const auto& [c, name] : kNames)
    if (c != Control::kNone) out.push_back(c);
  return out;
}

std::optional<Control> parse_control(std::string_view name) {
  for (const auto& [c, n] : kNames)
    if (n == name) return c;
  return std::nullopt;
}

}  // namespace ampbench
