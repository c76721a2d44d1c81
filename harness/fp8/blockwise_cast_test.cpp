// The blockwise cast's tiles and scales on hand-made tensors (the bitwise
// match to torchao is test_blockwise_linear_vs_torchao.py's).
#include "fp8/blockwise_cast.h"

#include <gtest/gtest.h>

namespace ampbench::fp8 {
namespace {

TEST(BlockwiseCast, EachTileTakesItsOwnAmax) {
  at::Tensor x = at::ones({2, 256});
  x.narrow(1, 128, 128).mul_(8.0);
  x[1][3] = 4.0;
  const BlockwiseTensor t = blockwise_cast(x, act_tiles(kBlockwiseTile));
  ASSERT_EQ(t.scale.sizes(), (at::IntArrayRef{2, 2}));
  EXPECT_FLOAT_EQ(t.scale[0][0].item<float>(), 1.0f / 448.0f);
  EXPECT_FLOAT_EQ(t.scale[0][1].item<float>(), 8.0f / 448.0f);
  EXPECT_FLOAT_EQ(t.scale[1][0].item<float>(), 4.0f / 448.0f);
  // The tile's amax lands on 448 exactly.
  EXPECT_EQ(t.data[0][0].item<float>(), 448.0f);
  EXPECT_EQ(t.data[1][3].item<float>(), 448.0f);
  EXPECT_TRUE(at::allclose(blockwise_dequantize(t), x, 0.07, 0));
}

TEST(BlockwiseCast, WeightTilesAreSquareAndARaggedEdgeIsPadded) {
  const at::Tensor w = at::randn({200, 256});
  const BlockwiseTensor t = blockwise_cast(w, weight_tiles(kBlockwiseTile));
  EXPECT_EQ(t.scale.sizes(), (at::IntArrayRef{2, 2}));
  EXPECT_EQ(t.data.sizes(), w.sizes());
  const at::Tensor corner = w.narrow(0, 128, 72).narrow(1, 0, 128).abs().max();
  EXPECT_FLOAT_EQ(t.scale[1][0].item<float>(), 1.0f / static_cast<float>(448.0 / corner.item<float>()));
}

TEST(BlockwiseCast, AnAllZeroTileStaysZeroUnderTheEpsScale) {
  const BlockwiseTensor t = blockwise_cast(at::zeros({128, 128}), act_t_tiles(kBlockwiseTile));
  EXPECT_EQ(t.data.to(at::kFloat).abs().max().item<float>(), 0.0f);
  EXPECT_NEAR(t.scale[0][0].item<float>() / (1e-12f / 448.0f), 1.0, 1e-6);
}

}  // namespace
}  // namespace ampbench::fp8
