// The rowwise scale audit: every cast of a recorded rowwise FP8 run held to
// torchao's rowwise rule, recomputed from the amaxes of the rows it actually
// cast (fp8::RowwiseCastTrace). Every operand is e4m3 (largest value 448):
//
//   scale = 448 / max(row_amax, 1e-12), in float64 rounded to float32
//           (torchao's amax_to_scale), then rounded down to a power of two
//           (its round_scales_to_power_of_2).
//
// Scales left unrounded, taken along the other dimension (another number of
// rows) or from another tensor's amax all break it, whatever they do to the
// training run.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fp8/cast_trace.h"

namespace ampbench {

struct RowwiseScaleMismatch {
  std::size_t layer = 0;  // index among the converted layers
  int operand = 0;        // 0 input, 1 weight, 2 output gradient
  std::size_t cast = 0;   // index among that operand's casts
  std::string what;       // which row, and the scales (or the row counts)
};

using RowwiseLayerCasts = std::array<std::vector<fp8::RowwiseCastTrace>, 3>;

// The scale the rule gives a row of this amax.
float expected_rowwise_scale(float amax);

// The first cast that breaks the rule; nullopt when every one follows it.
std::optional<RowwiseScaleMismatch> first_rowwise_scale_mismatch(const std::vector<RowwiseLayerCasts>& layers);

}  // namespace ampbench
