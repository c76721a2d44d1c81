// The NVFP4 audit: every cast of a recorded NVFP4 run held to the recipe
// (fp8/nvfp4_cast.h, fp8/nvfp4_linear.h), recomputed from what it cast
// (fp8::Nvfp4CastTrace):
//
//   scales   each 16-value block's E4M3 scale is
//            e4m3(clamp(amax_block / 6 / (amax_tensor / 2688), 2^-6, 448)),
//            one per 16 values (blocks of another size, or a missing tensor
//            scale, give other scales);
//   stream   no two steps' stochastic casts of one layer's operand for one
//            GEMM draw the same numbers (a stream reseeded every step does);
//   Hadamard the weight gradient's operands were transformed: some block's
//            amax as cast differs from its amax before (without the
//            transform every one is the same).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fp8/cast_trace.h"
#include "fp8/fp8_recipe.h"

namespace ampbench {

struct Nvfp4Mismatch {
  std::size_t layer = 0;  // index among the converted layers
  int operand = 0;        // 0 input, 1 weight, 2 output gradient
  std::size_t cast = 0;   // index among that operand's casts
  std::string what;
};

using Nvfp4LayerCasts = std::array<std::vector<fp8::Nvfp4CastTrace>, 3>;

// The E4M3 block scale (as float) the rule gives a block of this amax in a
// tensor of this amax.
float expected_nvfp4_scale(float block_amax, float tensor_amax);

// The first cast that breaks the recipe; nullopt when every one follows it.
std::optional<Nvfp4Mismatch> first_nvfp4_mismatch(const fp8::RecipeOptions& recipe,
                                                  const std::vector<Nvfp4LayerCasts>& layers);

}  // namespace ampbench
