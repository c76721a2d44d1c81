// The blockwise scale audit: the recipe's casts pass, tiles of 64 and a
// scale from another tile's amax are caught.
#include "check/blockwise_scale_audit.h"

#include <gtest/gtest.h>

#include "fp8/blockwise_cast.h"

namespace ampbench {
namespace {

using fp8::act_tiles;
using fp8::blockwise_cast;
using fp8::blockwise_tile_amax;
using fp8::kBlockwiseTile;
using fp8::RowwiseCastTrace;

RowwiseCastTrace trace_of(const at::Tensor& x, int64_t tile) {
  const at::Tensor amax = blockwise_tile_amax(x, 1, kBlockwiseTile).to(at::kFloat).contiguous();
  const at::Tensor scale = blockwise_cast(x, act_tiles(tile)).scale.contiguous();
  return {{amax.data_ptr<float>(), amax.data_ptr<float>() + amax.numel()},
          {scale.data_ptr<float>(), scale.data_ptr<float>() + scale.numel()}};
}

TEST(BlockwiseScaleAudit, PassesTheRecipeAndCatchesTilesOf64) {
  const at::Tensor x = at::randn({4, 256}) * at::logspace(-3, 3, 256);
  std::vector<BlockwiseLayerCasts> right(1), fine(1);
  right[0][2].push_back(trace_of(x, kBlockwiseTile));
  fine[0][2].push_back(trace_of(x, 64));
  EXPECT_FALSE(first_blockwise_scale_mismatch(right).has_value());
  const auto caught = first_blockwise_scale_mismatch(fine);
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->operand, 2);
  EXPECT_EQ(caught->what, "16 scales for 8 tiles of 128 along the reduced dimension");
}

TEST(BlockwiseScaleAudit, CatchesAScaleFromAnotherAmax) {
  const at::Tensor x = at::randn({2, 256});
  RowwiseCastTrace t = trace_of(x, kBlockwiseTile);
  t.scale[1] = t.scale[0] * 2.0f;
  std::vector<BlockwiseLayerCasts> layers(1);
  layers[0][0].push_back(t);
  ASSERT_TRUE(first_blockwise_scale_mismatch(layers).has_value());
}

}  // namespace
}  // namespace ampbench
