// The MX scale audit: every cast of a recorded MXFP8 run held to the MX
// rule, recomputed from the amaxes of the 32-value blocks of the tensor it
// actually cast (fp8::MxCastTrace). E8M0 is a biased exponent (127 is 2^0):
//
//   floor  the OCP MX spec's: floor(log2(amax)) - 8 (e4m3's largest power
//          of two is 2^8), read from amax's float32 exponent bits, clamped
//          to [-127, 128] (255 = NaN);
//   rceil  cuBLAS's: ceil(log2(amax / 448)), clamped to [-127, 127]; NaN
//          255, inf 254.
//
// Scales rounded up instead of down, blocks of another size (a different
// number of exponents per row) and exponents that wrap around past E8M0's
// range all break it, whatever they do to the training run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/fp8_scale_audit.h"
#include "fp8/cast_trace.h"
#include "fp8/fp8_recipe.h"

namespace ampbench {

struct MxScaleMismatch {
  std::size_t layer = 0;  // index among the converted layers
  int operand = 0;        // 0 input, 1 weight, 2 output gradient
  std::size_t cast = 0;   // index among that operand's casts
  std::string what;       // which block, and the exponents (or the block count)
};

using MxLayerCasts = std::array<std::vector<fp8::MxCastTrace>, 3>;

// The biased E8M0 exponent the rule gives a block of this amax.
int expected_e8m0(float amax, fp8::MxScaleMode mode);

// The first cast that breaks the rule; nullopt when every one follows it.
std::optional<MxScaleMismatch> first_mx_scale_mismatch(const fp8::RecipeOptions& recipe,
                                                       const std::vector<MxLayerCasts>& layers);

}  // namespace ampbench
