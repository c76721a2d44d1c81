// The FP8 scale audit: every per-tensor cast of a recorded FP8 run held to
// its recipe's published rule, recomputed from the amaxes of the tensors the
// run actually cast. Input and weight are e4m3 (largest value 448), the
// output gradient e5m2 (57344).
//
//   tensorwise  the scale of cast i is 448 (or 57344) / max(amax_i, 1e-12),
//               in float64 rounded to float32 (torchao's amax_to_scale);
//   delayed     cast i uses the scale computed after cast i - 1 (1 before
//               the first) from the last history_len amaxes, cast i - 1's
//               included: fp8_max / (their max, or the newest for
//               most_recent) / 2^margin in float32, the previous scale kept
//               when that amax is 0 or not finite (Transformer Engine's
//               DelayedScaling).
//
// Scales that never change, an amax taken from another tensor, e4m3's
// largest value for the gradients and a history that does not roll all
// break it, whatever they do to the training run. Rowwise scales are per
// row and are not traced.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fp8/cast_trace.h"
#include "fp8/fp8_recipe.h"

namespace ampbench {

struct Fp8ScaleMismatch {
  std::size_t layer = 0;  // index among the converted layers
  int operand = 0;        // 0 input, 1 weight, 2 output gradient
  std::size_t cast = 0;   // index among that operand's casts
  double used = 0, expected = 0;
};

using Fp8LayerCasts = std::array<std::vector<fp8::CastTrace>, 3>;

// The first cast whose scale differs from the rule's by more than float32
// rounding (a relative 1e-6), layer by layer and operand by operand;
// nullopt when every cast follows the rule or the recipe is rowwise.
std::optional<Fp8ScaleMismatch> first_fp8_scale_mismatch(const fp8::RecipeOptions& recipe,
                                                         const std::vector<Fp8LayerCasts>& layers);

// "the output gradient" etc., for messages.
std::string fp8_operand_name(int operand);

}  // namespace ampbench
