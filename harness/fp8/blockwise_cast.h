// Blockwise FP8 scaling (DeepSeek-V3's recipe, Transformer Engine's
// Float8BlockScaling) with torchao's numerics, op for op, so that its
// reference quantizers (prototype/blockwise_fp8_training/kernels.py:
// torch_blockwise_scale_act_quant_lhs, _rhs, torch_blockwise_scale_weight_quant)
// replay bit for bit. Every tile of a 2-D tensor gets its own float32 scale
// from its own amax:
//
//   s = float32(448 / max(float64(amax), 1e-12)),  q = e4m3(clamp(x * s, +-448))
//
// and the dequantizing scale kept is its reciprocal 1 / s (float32), not a
// power of two. Three tile shapes:
//
//   1 x 128    activations and output gradients along their last dimension
//   128 x 1    the input as the weight gradient's right operand (along rows)
//   128 x 128  weights
//
// torchao's 128 x 1 quantizer clamps amax to eps in the input's dtype before
// widening it (the others widen first): kept, as it moves an all-zero tile's
// scale by an ulp. A dimension that is not a whole number of tiles is padded
// with zeros for the amax (torchao refuses such shapes; zeros change no
// tile's amax) and the padding dropped.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

namespace ampbench::fp8 {

inline constexpr int64_t kBlockwiseTile = 128;
inline constexpr double kBlockwiseEps = 1e-12;

// Which of torchao's quantizers a cast follows (only the eps differs
// besides the tile shape).
enum class BlockwiseEps { kWidened, kInputDtype };

struct BlockwiseCastOptions {
  int64_t tile_rows = 1;
  int64_t tile_cols = kBlockwiseTile;
  BlockwiseEps eps = BlockwiseEps::kWidened;
  // Off (a mistake): every tile scaled from the whole tensor's amax, one
  // scale repeated per tile, so small tiles lose their precision.
  bool own_amax = true;
};

// The three tile shapes of the recipe at a given tile size (128; another
// size is a mistake, for the negative control).
BlockwiseCastOptions act_tiles(int64_t tile, bool own_amax = true);     // 1 x tile
BlockwiseCastOptions act_t_tiles(int64_t tile, bool own_amax = true);   // tile x 1
BlockwiseCastOptions weight_tiles(int64_t tile, bool own_amax = true);  // tile x tile

// data: e4m3, hp's shape. scale: float32 dequantizing scales (1 / s), one
// per tile, [ceil(rows / tile_rows), ceil(cols / tile_cols)].
struct BlockwiseTensor {
  at::Tensor data;
  at::Tensor scale;
  int64_t tile_rows = 1;
  int64_t tile_cols = kBlockwiseTile;
};

// The cast of a 2-D float32 or bfloat16 tensor.
BlockwiseTensor blockwise_cast(const at::Tensor& hp, const BlockwiseCastOptions& options);

// max |hp| over each tile (zero-padded), in hp's dtype: [tiles down, tiles across].
at::Tensor blockwise_tile_amax(const at::Tensor& hp, int64_t tile_rows, int64_t tile_cols);

// data * scale per tile, float32, data's shape.
at::Tensor blockwise_dequantize(const BlockwiseTensor& t);

// The dequantizing scale of every value (float32, data's shape).
at::Tensor blockwise_value_scales(const BlockwiseTensor& t);

}  // namespace ampbench::fp8
