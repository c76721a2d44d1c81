// The cast to FP8 with and without saturation, on the values around each
// format's largest finite: the same on every torch of the window, whatever
// torch's own conversion does past the range.
#include "fp8/fp8_cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ampbench::fp8 {
namespace {

std::vector<float> cast(const std::vector<float>& values, at::ScalarType fp8, bool saturate) {
  const at::Tensor hp = at::tensor(values);
  const at::Tensor back = cast_with_scale(hp, at::ones({}), fp8, saturate).data.to(at::kFloat).contiguous();
  return {back.data_ptr<float>(), back.data_ptr<float>() + back.numel()};
}

TEST(Fp8Cast, WithoutSaturationE4m3PastItsRangeIsNan) {
  const std::vector<float> got = cast({100.f, 460.f, 464.f, 1000.f, -1e6f}, at::kFloat8_e4m3fn, false);
  EXPECT_EQ(got[0], 96.f);
  EXPECT_EQ(got[1], 448.f) << "below the rounding boundary: rounds to the largest finite";
  for (size_t i = 2; i < got.size(); ++i) EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
}

TEST(Fp8Cast, WithoutSaturationE5m2PastItsRangeIsInfinite) {
  const std::vector<float> got = cast({57344.f, 61000.f, 61440.f, -1e6f}, at::kFloat8_e5m2, false);
  EXPECT_EQ(got[0], 57344.f);
  EXPECT_EQ(got[1], 57344.f);
  EXPECT_EQ(got[2], INFINITY);
  EXPECT_EQ(got[3], -INFINITY);
}

TEST(Fp8Cast, SaturationClampsToTheLargestFinite) {
  EXPECT_EQ(cast({1000.f, -1e6f}, at::kFloat8_e4m3fn, true), (std::vector<float>{448.f, -448.f}));
  EXPECT_EQ(cast({1e6f, -1e6f}, at::kFloat8_e5m2, true), (std::vector<float>{57344.f, -57344.f}));
}

}  // namespace
}  // namespace ampbench::fp8
