#include "check/nvfp4_scale_audit.h"

#include <c10/util/Float8_e4m3fn.h>

#include <algorithm>

namespace ampbench {
namespace {

std::string scales_broken(const fp8::Nvfp4CastTrace& c) {
  const std::size_t rows = static_cast<std::size_t>(c.rows);
  if (rows == 0) return "";
  const std::size_t blocks = c.block_amax.size() / rows;
  const std::size_t used = c.block_scale.size() / rows;
  if (used != blocks)
    return std::to_string(used) + " scales a row, where 16-value blocks give " + std::to_string(blocks);
  for (std::size_t i = 0; i < c.block_scale.size(); ++i) {
    const float want = expected_nvfp4_scale(c.block_amax[i], c.tensor_amax);
    if (c.block_scale[i] != want)
      return "block " + std::to_string(i % blocks) + " of row " + std::to_string(i / blocks) + " (amax " +
             std::to_string(c.block_amax[i]) + ", tensor amax " + std::to_string(c.tensor_amax) +
             ") has scale " + std::to_string(c.block_scale[i]) + ", the rule gives " + std::to_string(want);
  }
  return "";
}

// Without the transform each block keeps its amax; with it, a block with
// more than one distinct magnitude cannot (its values are spread), and a
// single-value block's amax is divided by 4.
bool hadamard_skipped(const fp8::Nvfp4CastTrace& c) {
  bool any = false;
  for (std::size_t i = 0; i < c.raw_block_amax.size(); ++i) {
    if (c.raw_block_amax[i] == 0) continue;
    any = true;
    if (c.block_amax[i] != c.raw_block_amax[i]) return false;
  }
  return any;
}

std::string stream_repeated(const std::vector<fp8::Nvfp4CastTrace>& casts, std::size_t i) {
  const fp8::Nvfp4CastTrace& c = casts[i];
  if (c.draws.empty()) return "";
  for (std::size_t j = 0; j < i; ++j)
    if (casts[j].gemm == c.gemm && casts[j].draws == c.draws)
      return "its stochastic draws repeat cast " + std::to_string(j) + "'s";
  return "";
}

}  // namespace

float expected_nvfp4_scale(float block_amax, float tensor_amax) {
  const float tensor_scale = tensor_amax == 0 ? 1.0f : tensor_amax / 2688.0f;  // 448 * 6
  const float scaled = std::clamp(block_amax / 6.0f / tensor_scale, 0.015625f, 448.0f);
  return static_cast<float>(c10::Float8_e4m3fn(scaled));
}

std::optional<Nvfp4Mismatch> first_nvfp4_mismatch(const fp8::RecipeOptions& recipe,
                                                  const std::vector<Nvfp4LayerCasts>& layers) {
  if (recipe.scaling() != fp8::Scaling::kNvfp4) return std::nullopt;
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (int k = 0; k < 3; ++k) {
      const auto& casts = layers[l][k];
      for (std::size_t i = 0; i < casts.size(); ++i) {
        std::string why = scales_broken(casts[i]);
        if (why.empty() && casts[i].gemm == 2 && hadamard_skipped(casts[i]))
          why = "every block's amax as cast is its amax before the Hadamard transform: not transformed";
        if (why.empty()) why = stream_repeated(casts, i);
        if (!why.empty()) return Nvfp4Mismatch{l, k, i, std::move(why)};
      }
    }
  return std::nullopt;
}

}  // namespace ampbench
