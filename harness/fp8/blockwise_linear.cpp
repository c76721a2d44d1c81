#include "fp8/blockwise_linear.h"

#include <ATen/core/grad_mode.h>
#include <torch/autograd.h>

#include <optional>
#include <string>

#include "fp8/blockwise_cast.h"
#include "fp8/saved_counts.h"

namespace ampbench::fp8 {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

constexpr const char* kOperandKeys[] = {"x", "w", "g"};

// The recipe's tiles of this shape at 128, whatever size the cast used: the
// audit recomputes scales from these amaxes, so a cast with tiles of
// another size shows as another number of scales.
at::Tensor recipe_tile_amax(const at::Tensor& hp, const BlockwiseCastOptions& o) {
  const int64_t rows = o.tile_rows == 1 ? 1 : kBlockwiseTile;
  const int64_t cols = o.tile_cols == 1 ? 1 : kBlockwiseTile;
  return blockwise_tile_amax(hp, rows, cols).to(at::kFloat);
}

BlockwiseTensor cast(const at::Tensor& hp, const BlockwiseCastOptions& o, DelayedTensorState* counts,
                     c10::List<at::Tensor>* log) {
  BlockwiseTensor t = blockwise_cast(hp, o);
  at::NoGradGuard no_grad;
  if (counts != nullptr && counts->saturated.defined()) {
    // Scales from the tile's own amax put no value past 448: only flushes count.
    counts->flushed.add_(hp.ne(0).logical_and(t.data.to(at::kFloat).eq(0)).sum());
    counts->elements.add_(hp.numel());
  }
  if (log != nullptr) {
    log->push_back(recipe_tile_amax(hp, o).flatten());
    log->push_back(t.scale.flatten());
  }
  return t;
}

// The dequantized operands' product, in `out`'s dtype; `b_transposed`: b
// is held [N, K] and enters as its transpose (the forward's weight), so the
// mm sees the same layouts as the oracle's.
at::Tensor dequantized_mm(const BlockwiseTensor& a, const BlockwiseTensor& b, at::ScalarType out,
                          bool b_transposed = false) {
  const at::Tensor b_hp = blockwise_dequantize(b);
  return at::mm(blockwise_dequantize(a), b_transposed ? b_hp.t() : b_hp).to(out);
}

struct BlockwiseMatmul : torch::autograd::Function<BlockwiseMatmul> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input2d, const at::Tensor& weight,
                            const RecipeOptions& r, std::array<DelayedTensorState*, 3> counts,
                            const MxCastLog& log) {
    ctx->save_for_backward({input2d, weight});
    ctx->saved_data["tile"] = r.blockwise_tile();
    ctx->saved_data["own_amax"] = r.blockwise_own_amax();
    for (int k = 0; k < 3; ++k) {
      save_counts(ctx, kOperandKeys[k], counts[k]);
      if (log.enabled) ctx->saved_data[std::string(kOperandKeys[k]) + "_log"] = log.casts[k];
    }
    auto logs = log.casts;
    const int64_t tile = r.blockwise_tile();
    const bool own = r.blockwise_own_amax();
    const BlockwiseTensor x = cast(input2d, act_tiles(tile, own), counts[0], log.enabled ? &logs[0] : nullptr);
    const BlockwiseTensor w = cast(weight, weight_tiles(tile, own), counts[1], log.enabled ? &logs[1] : nullptr);
    // torchao casts weight^T in 128 x 128 tiles: the same tiles transposed.
    return dequantized_mm(x, w, input2d.scalar_type(), /*b_transposed=*/true);
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const int64_t tile = ctx->saved_data["tile"].toInt();
    const bool own = ctx->saved_data["own_amax"].toBool();
    std::array<DelayedTensorState, 3> counts;
    std::array<std::optional<c10::List<at::Tensor>>, 3> logs;
    for (int k = 0; k < 3; ++k) {
      counts[k] = saved_counts(ctx, kOperandKeys[k]);
      const std::string key = std::string(kOperandKeys[k]) + "_log";
      if (ctx->saved_data.count(key)) logs[k] = ctx->saved_data[key].toTensorList();
    }
    auto log_of = [&](int k) { return logs[k] ? &*logs[k] : nullptr; };
    // torchao makes the output gradient contiguous first (its casts need it).
    const at::Tensor g = grads[0].contiguous();
    const at::ScalarType out = g.scalar_type();
    const BlockwiseTensor g_rows = cast(g, act_tiles(tile, own), &counts[2], log_of(2));
    const BlockwiseTensor w = cast(saved[1], weight_tiles(tile, own), &counts[1], log_of(1));
    const at::Tensor grad_input = dequantized_mm(g_rows, w, out);
    const BlockwiseTensor g_t = cast(g.t().contiguous(), act_tiles(tile, own), &counts[2], log_of(2));
    const BlockwiseTensor x_cols = cast(saved[0], act_t_tiles(tile, own), &counts[0], log_of(0));
    const at::Tensor grad_weight = dequantized_mm(g_t, x_cols, out);
    return {grad_input, grad_weight, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor blockwise_matmul(const at::Tensor& input2d, const at::Tensor& weight, const RecipeOptions& recipe,
                            std::array<DelayedTensorState*, 3> counts, const MxCastLog& log) {
  TORCH_CHECK(input2d.scalar_type() == weight.scalar_type(), "fp8_blockwise Linear: the input is ",
              input2d.scalar_type(), " and the weight ", weight.scalar_type(),
              "; the emulated blockwise GEMM takes one dtype for both");
  return BlockwiseMatmul::apply(input2d, weight, recipe, counts, log);
}

}  // namespace ampbench::fp8
