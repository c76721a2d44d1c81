// A FP8 case's settings as JSON, written the same way wherever a case is
// serialised (dumps for the oracle, results files).
#pragma once

#include "core/json.h"
#include "spec/fp8_settings.h"

namespace ampbench {

// {"scaling", "history_len", "margin", "amax_compute", "convert_first",
// "convert_last", and the faults: "saturate", "e4m3_gradients",
// "freeze_scales", "input_amax_from_weight", "roll_history", "pow2_scales"; and MXFP8's
// "mx_scale_mode", "mx_block", "mx_clamp_exponent"; NVFP4's "nvfp4_block",
// "nvfp4_tensor_scale", "nvfp4_hadamard", "nvfp4_fresh_stream", "nvfp4_seed"; blockwise's "blockwise_tile", "blockwise_own_amax"}: what a dump
// gives the oracle and a results file records.
inline nlohmann::json fp8_settings_json(const Fp8Settings& fp8) {
  const fp8::RecipeOptions& r = fp8.recipe;
  return {{"scaling", fp8::scaling_name(r.scaling())},
          {"history_len", r.history_len()},
          {"margin", r.margin()},
          {"amax_compute", fp8::amax_compute_name(r.amax_compute())},
          {"convert_first", fp8.conversion.convert_first()},
          {"convert_last", fp8.conversion.convert_last()},
          {"saturate", r.saturate()},
          {"e4m3_gradients", r.e4m3_gradients()},
          {"freeze_scales", r.freeze_scales()},
          {"input_amax_from_weight", r.input_amax_from_weight()},
          {"roll_history", r.roll_history()},
          {"pow2_scales", r.pow2_scales()},
          {"mx_scale_mode", fp8::mx_scale_mode_name(r.mx_scale_mode())},
          {"mx_block", r.mx_block()},
          {"mx_clamp_exponent", r.mx_clamp_exponent()},
          {"nvfp4_block", r.nvfp4_block()},
          {"nvfp4_tensor_scale", r.nvfp4_tensor_scale()},
          {"nvfp4_hadamard", r.nvfp4_hadamard()},
          {"nvfp4_fresh_stream", r.nvfp4_fresh_stream()},
          {"nvfp4_seed", r.nvfp4_seed()},
          {"blockwise_tile", r.blockwise_tile()},
          {"blockwise_own_amax", r.blockwise_own_amax()}};
}

}  // namespace ampbench
