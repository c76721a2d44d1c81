#include "fp8/fp8_recipe.h"

#include <c10/util/Exception.h>

namespace ampbench::fp8 {

std::optional<Scaling> parse_scaling(const std::string& name) {
  for (const Scaling s : {Scaling::kTensorwise, Scaling::kRowwise, Scaling::kDelayed, Scaling::kMxfp8,
                          Scaling::kNvfp4, Scaling::kBlockwise})
    if (scaling_name(s) == name) return s;
  return std::nullopt;
}

std::string scaling_name(Scaling scaling) {
  switch (scaling) {
    case Scaling::kTensorwise: return "tensorwise";
    case Scaling::kRowwise: return "rowwise";
    case Scaling::kDelayed: return "delayed";
    case Scaling::kMxfp8: return "mxfp8";
    case Scaling::kNvfp4: return "nvfp4";
    case Scaling::kBlockwise: return "blockwise";
  }
  return "?";
}

std::optional<AmaxCompute> parse_amax_compute(const std::string& name) {
  if (name == "max") return AmaxCompute::kMax;
  if (name == "most_recent") return AmaxCompute::kMostRecent;
  return std::nullopt;
}

std::string amax_compute_name(AmaxCompute algo) { return algo == AmaxCompute::kMax ? "max" : "most_recent"; }

std::optional<MxScaleMode> parse_mx_scale_mode(const std::string& name) {
  if (name == "floor") return MxScaleMode::kFloor;
  if (name == "ceil") return MxScaleMode::kCeil;
  if (name == "rceil") return MxScaleMode::kRceil;
  return std::nullopt;
}

std::string mx_scale_mode_name(MxScaleMode mode) {
  switch (mode) {
    case MxScaleMode::kFloor: return "floor";
    case MxScaleMode::kCeil: return "ceil";
    case MxScaleMode::kRceil: return "rceil";
  }
  return "?";
}

void RecipeOptions::validate() const {
  // Transformer Engine's default is 1024; the bound keeps three histories per
  // Linear under 48 KiB, so a typo fails here instead of as an allocation
  // error half way through a run.
  TORCH_CHECK(history_len_ >= 1 && history_len_ <= kMaxHistoryLen, "fp8 recipe: history_len must be in [1, ",
              kMaxHistoryLen, "] (got ", history_len_, ")");
  TORCH_CHECK(margin_ >= 0 && margin_ <= 32, "fp8 recipe: margin must be in [0, 32] (got ", margin_, ")");
  // Per-row scales change shape with the batch: no single scale to freeze or
  // to take from another tensor.
  TORCH_CHECK(scaling_ != Scaling::kRowwise || !(freeze_scales_ || input_amax_from_weight_),
              "fp8 recipe: freeze_scales and input_amax_from_weight need per-tensor scales (tensorwise or delayed), "
              "not ", scaling_name(scaling_));
  TORCH_CHECK(roll_history_ || scaling_ == Scaling::kDelayed,
              "fp8 recipe: roll_history is a delayed-scaling setting, not one of ", scaling_name(scaling_));
  TORCH_CHECK(pow2_scales_ || scaling_ == Scaling::kRowwise,
              "fp8 recipe: pow2_scales is a rowwise setting, not one of ", scaling_name(scaling_));
  const bool mx = scaling_ == Scaling::kMxfp8;
  TORCH_CHECK(mx || (mx_scale_mode_ == MxScaleMode::kFloor && mx_block_ == kMxBlock && mx_clamp_exponent_),
              "fp8 recipe: mx_scale_mode, mx_block and mx_clamp_exponent are MXFP8 settings, not ones of ",
              scaling_name(scaling_));
  TORCH_CHECK(mx_block_ == 16 || mx_block_ == kMxBlock || mx_block_ == 64,
              "fp8 recipe: mx_block must be 32 (or 16 or 64, as mistakes), not ", mx_block_);
  // MXFP8's per-block scales come from the current block: no scale to freeze,
  // nothing past the clamp, and every operand is e4m3 already.
  TORCH_CHECK(!mx || (saturate_ && !e4m3_gradients_ && !freeze_scales_ && !input_amax_from_weight_),
              "fp8 recipe: saturate, e4m3_gradients, freeze_scales and input_amax_from_weight are per-tensor "
              "settings, not ones of mxfp8");
  validate_nvfp4();
  validate_blockwise();
}

void RecipeOptions::validate_blockwise() const {
  const bool bw = scaling_ == Scaling::kBlockwise;
  TORCH_CHECK(bw || (blockwise_tile_ == kBlockwiseTileEdge && blockwise_own_amax_),
              "fp8 recipe: blockwise_tile and blockwise_own_amax are blockwise settings, not ones of ",
              scaling_name(scaling_));
  TORCH_CHECK(blockwise_tile_ == kBlockwiseTileEdge || blockwise_tile_ == 64,
              "fp8 recipe: blockwise_tile must be 128 (or 64, as a mistake), not ", blockwise_tile_);
  // Each tile's scale comes from its own current amax: no scale to freeze,
  // nothing past the clamp, and every operand is e4m3 already.
  TORCH_CHECK(!bw || (saturate_ && !e4m3_gradients_ && !freeze_scales_ && !input_amax_from_weight_),
              "fp8 recipe: saturate, e4m3_gradients, freeze_scales and input_amax_from_weight are per-tensor "
              "settings, not ones of blockwise");
}

void RecipeOptions::validate_nvfp4() const {
  const bool nv = scaling_ == Scaling::kNvfp4;
  TORCH_CHECK(nv || (nvfp4_block_ == kNvfp4Block && nvfp4_tensor_scale_ && nvfp4_hadamard_ && nvfp4_fresh_stream_ &&
                     nvfp4_seed_ == 0),
              "fp8 recipe: nvfp4_block, nvfp4_tensor_scale, nvfp4_hadamard, nvfp4_fresh_stream and nvfp4_seed are "
              "NVFP4 settings, not ones of ", scaling_name(scaling_));
  TORCH_CHECK(nvfp4_block_ == kNvfp4Block || nvfp4_block_ == 32,
              "fp8 recipe: nvfp4_block must be 16 (or 32, as a mistake), not ", nvfp4_block_);
  TORCH_CHECK(nvfp4_seed_ >= 0, "fp8 recipe: nvfp4_seed must be non-negative, not ", nvfp4_seed_);
  TORCH_CHECK(!nv || (saturate_ && !e4m3_gradients_ && !freeze_scales_ && !input_amax_from_weight_),
              "fp8 recipe: saturate, e4m3_gradients, freeze_scales and input_amax_from_weight are per-tensor "
              "settings, not ones of nvfp4");
}

bool RecipeOptions::faulted() const {
  return !saturate_ || e4m3_gradients_ || freeze_scales_ || input_amax_from_weight_ || !roll_history_ || !pow2_scales_ ||
         mx_scale_mode_ == MxScaleMode::kCeil || mx_block_ != kMxBlock || !mx_clamp_exponent_ ||
         nvfp4_block_ != kNvfp4Block || !nvfp4_tensor_scale_ || !nvfp4_hadamard_ || !nvfp4_fresh_stream_ ||
         blockwise_tile_ != kBlockwiseTileEdge || !blockwise_own_amax_;
}

double fp8_max(at::ScalarType fp8) {
  switch (fp8) {
    case at::kFloat8_e4m3fn: return 448.0;
    case at::kFloat8_e5m2: return 57344.0;
    default: TORCH_CHECK(false, "fp8: ", fp8, " is not an fp8 format this harness casts to");
  }
}

double fp8_overflow_boundary(at::ScalarType fp8) {
  switch (fp8) {
    case at::kFloat8_e4m3fn: return 464.0;
    case at::kFloat8_e5m2: return 61440.0;
    default: TORCH_CHECK(false, "fp8: ", fp8, " is not an fp8 format this harness casts to");
  }
}

}  // namespace ampbench::fp8
