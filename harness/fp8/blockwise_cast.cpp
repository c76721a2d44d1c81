#include "fp8/blockwise_cast.h"

#include <c10/util/Exception.h>

namespace ampbench::fp8 {
namespace {

constexpr double kE4m3Max = 448.0;

int64_t tiles(int64_t n, int64_t tile) { return (n + tile - 1) / tile; }

// hp padded with zeros to whole tiles.
at::Tensor padded(const at::Tensor& hp, int64_t tile_rows, int64_t tile_cols) {
  const int64_t pad_r = tiles(hp.size(0), tile_rows) * tile_rows - hp.size(0);
  const int64_t pad_c = tiles(hp.size(1), tile_cols) * tile_cols - hp.size(1);
  if (pad_r == 0 && pad_c == 0) return hp;
  return at::constant_pad_nd(hp, {0, pad_c, 0, pad_r}, 0);
}

// A per-tile tensor [tr, tc] spread over the values: [rows, cols].
at::Tensor per_value(const at::Tensor& per_tile, int64_t tile_rows, int64_t tile_cols, int64_t rows, int64_t cols) {
  return per_tile.repeat_interleave(tile_rows, 0)
      .repeat_interleave(tile_cols, 1)
      .narrow(0, 0, rows)
      .narrow(1, 0, cols);
}

}  // namespace

BlockwiseCastOptions act_tiles(int64_t tile, bool own_amax) { return {1, tile, BlockwiseEps::kWidened, own_amax}; }
BlockwiseCastOptions act_t_tiles(int64_t tile, bool own_amax) {
  return {tile, 1, BlockwiseEps::kInputDtype, own_amax};
}
BlockwiseCastOptions weight_tiles(int64_t tile, bool own_amax) {
  return {tile, tile, BlockwiseEps::kWidened, own_amax};
}

at::Tensor blockwise_tile_amax(const at::Tensor& hp, int64_t tile_rows, int64_t tile_cols) {
  TORCH_CHECK(hp.dim() == 2, "blockwise cast: a 2-D tensor, not ", hp.dim(), "-D");
  TORCH_CHECK(tile_rows >= 1 && tile_cols >= 1, "blockwise cast: tiles of ", tile_rows, " x ", tile_cols);
  const at::Tensor p = padded(hp, tile_rows, tile_cols);
  const int64_t tr = p.size(0) / tile_rows;
  const int64_t tc = p.size(1) / tile_cols;
  return p.abs().reshape({tr, tile_rows, tc, tile_cols}).amax({1, 3});
}

BlockwiseTensor blockwise_cast(const at::Tensor& hp, const BlockwiseCastOptions& o) {
  TORCH_CHECK(hp.scalar_type() == at::kFloat || hp.scalar_type() == at::kBFloat16,
              "blockwise cast: float32 or bfloat16, not ", hp.scalar_type());
  at::Tensor amax = blockwise_tile_amax(hp, o.tile_rows, o.tile_cols);
  if (!o.own_amax) amax = amax.amax().expand_as(amax);
  // torchao's rhs quantizer clamps before widening, the others after.
  amax = o.eps == BlockwiseEps::kInputDtype ? amax.clamp_min(kBlockwiseEps).to(at::kDouble)
                                            : amax.to(at::kDouble).clamp_min(kBlockwiseEps);
  const at::Tensor s = (kE4m3Max / amax).to(at::kFloat);
  const at::Tensor s_values = per_value(s, o.tile_rows, o.tile_cols, hp.size(0), hp.size(1));
  // x * s in float32 (a bfloat16 x is promoted by the product, as in torchao).
  const at::Tensor data = (hp * s_values).clamp(-kE4m3Max, kE4m3Max).to(at::kFloat8_e4m3fn);
  return {data, at::reciprocal(s), o.tile_rows, o.tile_cols};
}

at::Tensor blockwise_value_scales(const BlockwiseTensor& t) {
  return per_value(t.scale, t.tile_rows, t.tile_cols, t.data.size(0), t.data.size(1));
}

at::Tensor blockwise_dequantize(const BlockwiseTensor& t) {
  return t.data.to(at::kFloat) * blockwise_value_scales(t);
}

}  // namespace ampbench::fp8
