#include "kernels/grad_health.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/tensor.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include "core/json.h"  // nlohmann/json, version-checked
#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace ampbench::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

at::Tensor f32(const std::vector<float>& values) { return at::tensor(values); }

double sq(double x) { return x * x; }

// The planted float32 list used by several tests.
const std::vector<float> kPlanted = {kInf, -kInf, kNaN, 1e-9f, -3e-8f, 7e4f, -7e4f,
                                     0.0f, -0.0f, -1.5f, 2.0f, 65504.0f, 6e-8f};
// Sum of squares of its finite values, as doubles of the stored floats.
double planted_sum_squares() {
  return sq(double{1e-9f}) + sq(double{3e-8f}) + 2 * sq(double{7e4f}) + sq(1.5) + sq(2.0) +
         sq(65504.0) + sq(double{6e-8f});
}

void expect_counts(const TensorHealth& h, int64_t numel, int64_t nonfinite, int64_t underflow,
                   int64_t overflow) {
  EXPECT_EQ(h.numel, numel);
  EXPECT_EQ(h.nonfinite, nonfinite);
  EXPECT_EQ(h.underflow_fp16, underflow);
  EXPECT_EQ(h.overflow_fp16, overflow);
}

void expect_same(const TensorHealth& a, const TensorHealth& b, double rel_tol,
                 const std::string& what) {
  EXPECT_EQ(a.numel, b.numel) << what;
  EXPECT_EQ(a.nonfinite, b.nonfinite) << what;
  EXPECT_EQ(a.underflow_fp16, b.underflow_fp16) << what;
  EXPECT_EQ(a.overflow_fp16, b.overflow_fp16) << what;
  EXPECT_NEAR(a.l2_norm, b.l2_norm, rel_tol * std::max(1e-300, std::fabs(b.l2_norm))) << what;
}

TEST(GradHealthReference, Fp32PlantedValuesAtScaleOne) {
  const GradHealth h = grad_health_reference({f32(kPlanted)});
  ASSERT_EQ(h.per_tensor.size(), 1u);
  // inf, -inf, nan | 1e-9, -3e-8 below 2^-24 (6e-8 and 0, -0 are not) | +-7e4
  expect_counts(h.per_tensor[0], 13, 3, 2, 2);
  EXPECT_DOUBLE_EQ(h.per_tensor[0].l2_norm, std::sqrt(planted_sum_squares()));
  expect_counts(h.total, 13, 3, 2, 2);
  EXPECT_DOUBLE_EQ(h.total.l2_norm, h.per_tensor[0].l2_norm);
}

TEST(GradHealthReference, ScaleIsAppliedBeforeClassifying) {
  const double l2 = std::sqrt(planted_sum_squares());
  // x1024: the small values are lifted into range; 65504 joins +-7e4 above it.
  GradHealth h = grad_health_reference({f32(kPlanted)}, 1024.0);
  expect_counts(h.total, 13, 3, 0, 3);
  EXPECT_DOUBLE_EQ(h.total.l2_norm, 1024.0 * l2);
  // x2^-20: 1e-9, 3e-8 and 6e-8 fall below 2^-24; nothing is above 65504.
  h = grad_health_reference({f32(kPlanted)}, std::ldexp(1.0, -20));
  expect_counts(h.total, 13, 3, 3, 0);
  EXPECT_DOUBLE_EQ(h.total.l2_norm, std::ldexp(l2, -20));
  // x0: finite values become exact zeros (not underflow); inf*0 is NaN.
  h = grad_health_reference({f32(kPlanted)}, 0.0);
  expect_counts(h.total, 13, 3, 0, 0);
  EXPECT_EQ(h.total.l2_norm, 0.0);
  // Negative scales classify by magnitude.
  h = grad_health_reference({f32(kPlanted)}, -1.0);
  expect_counts(h.total, 13, 3, 2, 2);
}

TEST(GradHealthReference, ThresholdsAreStrict) {
  const float min_sub = std::ldexp(1.0f, -24);
  const std::vector<float> v = {min_sub,
                                -min_sub,
                                std::nextafter(min_sub, 0.0f),  // just below 2^-24
                                std::numeric_limits<float>::denorm_min(),
                                65504.0f,
                                -65504.0f,
                                std::nextafter(65504.0f, kInf),  // just above 65504
                                std::numeric_limits<float>::max()};
  GradHealth h = grad_health_reference({f32(v)});
  expect_counts(h.total, 8, 0, 2, 2);
  // x2 in double: float max * 2 is finite (overflow, not non-finite) and the
  // value just below 2^-24 is lifted above it.
  h = grad_health_reference({f32(v)}, 2.0);
  expect_counts(h.total, 8, 0, 1, 4);
  EXPECT_TRUE(std::isfinite(h.total.l2_norm));
}

TEST(GradHealthReference, Fp16InputsAreReadAsFloat) {
  // 2^-24 is float16's smallest subnormal; 7e4 becomes inf when cast to half.
  const at::Tensor t =
      f32({kInf, kNaN, 65504.0f, std::ldexp(1.0f, -24), 0.0f, -2.0f, 7e4f}).to(c10::kHalf);
  const double sum_squares = sq(65504.0) + sq(std::ldexp(1.0, -24)) + 4.0;
  GradHealth h = grad_health_reference({t});
  expect_counts(h.total, 7, 3, 0, 0);
  EXPECT_DOUBLE_EQ(h.total.l2_norm, std::sqrt(sum_squares));
  h = grad_health_reference({t}, 0.5);  // 2^-25 now below 2^-24
  expect_counts(h.total, 7, 3, 1, 0);
  h = grad_health_reference({t}, 2.0);  // 131008 above 65504
  expect_counts(h.total, 7, 3, 0, 1);
  EXPECT_DOUBLE_EQ(h.total.l2_norm, 2.0 * std::sqrt(sum_squares));
}

TEST(GradHealthReference, Bf16InputsKeepFloatRange) {
  const std::vector<float> v = {1e-30f, 7e4f, 1e30f, -kInf, kNaN, 1.0f, -0.5f};
  const at::Tensor t = f32(v).to(c10::kBFloat16);
  // bfloat16 keeps float32's exponent: 1e-30 and 1e30 survive the cast.
  double sum_squares = 0.0;
  for (const float x : {1e-30f, 7e4f, 1e30f, 1.0f, -0.5f}) {
    sum_squares += sq(static_cast<float>(c10::BFloat16(x)));
  }
  const GradHealth h = grad_health_reference({t});
  expect_counts(h.total, 7, 2, 1, 2);  // bf16(7e4) = 70144 > 65504
  EXPECT_DOUBLE_EQ(h.total.l2_norm, std::sqrt(sum_squares));
}

TEST(GradHealthReference, MixedListKeepsOrderAndSumsTotals) {
  // A 3x3 with planted values, read through a transposed (non-contiguous) view.
  const at::Tensor square = f32({kNaN, 1e-9f, 3.0f, 7e4f, 0.0f, 4.0f, 1.0f, 1.0f, 1.0f})
                                .reshape({3, 3});
  const at::Tensor strided = f32({1e-9f, 99.0f, 7e4f, 99.0f, kInf, 99.0f}).slice(0, 0, 6, 2);
  ASSERT_FALSE(strided.is_contiguous());
  const std::vector<at::Tensor> list = {
      f32(kPlanted),
      at::empty({0}),
      at::Tensor(),  // an undefined grad counts as empty
      f32({kInf, 1e5f, 1e-9f}).to(c10::kHalf),  // half: inf, inf, 0
      f32({1e-9f, 1e5f, 1.0f}).to(c10::kBFloat16),
      square.t(),
      strided,
  };
  const GradHealth h = grad_health_reference(list);
  ASSERT_EQ(h.per_tensor.size(), list.size());
  expect_counts(h.per_tensor[0], 13, 3, 2, 2);
  expect_counts(h.per_tensor[1], 0, 0, 0, 0);
  expect_counts(h.per_tensor[2], 0, 0, 0, 0);
  expect_counts(h.per_tensor[3], 3, 2, 0, 0);
  expect_counts(h.per_tensor[4], 3, 0, 1, 1);
  expect_counts(h.per_tensor[5], 9, 1, 1, 1);
  EXPECT_DOUBLE_EQ(h.per_tensor[5].l2_norm,
                   std::sqrt(sq(double{1e-9f}) + sq(3.0) + sq(7e4) + sq(4.0) + 3.0));
  expect_counts(h.per_tensor[6], 3, 1, 1, 1);
  expect_counts(h.total, 13 + 3 + 3 + 9 + 3, 3 + 2 + 1 + 1, 2 + 1 + 1 + 1, 2 + 1 + 1 + 1);
  double sum_squares = 0.0;
  for (const TensorHealth& t : h.per_tensor) sum_squares += sq(t.l2_norm);
  EXPECT_DOUBLE_EQ(h.total.l2_norm, std::sqrt(sum_squares));
}

TEST(GradHealthReference, EmptyListIsAllZero) {
  const GradHealth h = grad_health_reference({});
  EXPECT_TRUE(h.per_tensor.empty());
  expect_counts(h.total, 0, 0, 0, 0);
  EXPECT_EQ(h.total.l2_norm, 0.0);
}

TEST(GradHealthReference, RejectsUnsupportedInputs) {
  const auto expect_error = [](const std::vector<at::Tensor>& list, double scale,
                               const std::string& needle) {
    try {
      grad_health_reference(list, scale);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const c10::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error({f32({1.0f}).to(c10::kDouble)}, 1.0, "expected float32, float16 or bfloat16");
  expect_error({f32({1.0f}).to(c10::kLong)}, 1.0, "expected float32, float16 or bfloat16");
  expect_error({f32({1.0f})}, std::numeric_limits<double>::infinity(), "scale must be finite");
  EXPECT_THROW(grad_health({f32({1.0f}).to(c10::kInt)}), c10::Error);
}

TEST(GradHealth, DispatchOnCpuTensorsIsTheReference) {
  const std::vector<at::Tensor> list = {f32(kPlanted), f32(kPlanted).to(c10::kHalf)};
  const GradHealth a = grad_health(list, 256.0);
  const GradHealth b = grad_health_reference(list, 256.0);
  ASSERT_EQ(a.per_tensor.size(), b.per_tensor.size());
  for (size_t i = 0; i < a.per_tensor.size(); ++i) {
    expect_same(a.per_tensor[i], b.per_tensor[i], 0.0, "tensor " + std::to_string(i));
  }
  expect_same(a.total, b.total, 0.0, "total");
}

TEST(GradHealth, JsonHasEveryField) {
  const nlohmann::json j = grad_health_reference({f32(kPlanted), at::empty({0})});
  ASSERT_EQ(j.at("per_tensor").size(), 2u);
  EXPECT_EQ(j.at("total").at("numel"), 13);
  EXPECT_EQ(j.at("total").at("nonfinite"), 3);
  EXPECT_EQ(j.at("total").at("underflow_fp16"), 2);
  EXPECT_EQ(j.at("total").at("overflow_fp16"), 2);
  EXPECT_DOUBLE_EQ(j.at("total").at("l2_norm").get<double>(), std::sqrt(planted_sum_squares()));
  EXPECT_EQ(j.at("per_tensor").at(1).at("numel"), 0);
}

// ---- CUDA kernel against the reference --------------------------------------

// Values spread over 10^-12 .. 10^7 in magnitude (so float16's range is left
// on both sides), with inf/-inf/NaN/zeros planted at random positions.
at::Tensor random_planted(int64_t n, c10::ScalarType dtype, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> exponent(-12.0f, 7.0f);
  std::uniform_int_distribution<int> plant(0, 99);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    const int p = plant(rng);
    if (p == 0) x = kInf;
    else if (p == 1) x = -kInf;
    else if (p == 2) x = kNaN;
    else if (p == 3) x = 0.0f;
    else x = normal(rng) * std::pow(10.0f, exponent(rng));
  }
  return f32(v).to(dtype);
}

bool skip_without_cuda(std::string* reason) {
  if (!grad_health_has_cuda_kernel()) {
    *reason = "built without CUDA kernels (AMPBENCH_KERNELS_CUDA undefined)";
    return true;
  }
  if (!torch::cuda::is_available()) {
    *reason = "no CUDA device (torch::cuda::is_available() is false)";
    return true;
  }
  return false;
}

void expect_matches_reference(const std::vector<at::Tensor>& list, double scale,
                              const std::string& what) {
  const GradHealth got = grad_health(list, scale);
  const GradHealth want = grad_health_reference(list, scale);
  ASSERT_EQ(got.per_tensor.size(), want.per_tensor.size());
  for (size_t i = 0; i < got.per_tensor.size(); ++i) {
    expect_same(got.per_tensor[i], want.per_tensor[i], 1e-10,
                what + " tensor " + std::to_string(i) + " scale " + std::to_string(scale));
  }
  expect_same(got.total, want.total, 1e-10, what + " total scale " + std::to_string(scale));
}

TEST(GradHealthCuda, MatchesReferenceOnPlantedRandomTensors) {
  std::string reason;
  if (skip_without_cuda(&reason)) GTEST_SKIP() << reason;
  std::mt19937_64 rng(20240901);
  // Sizes around the 4-element vectors and the 32768-element chunks.
  const std::vector<int64_t> sizes = {0, 1, 3, 4, 5, 4095, 4096, 32767, 32768, 32769, 100003,
                                      (1 << 20) + 5};
  for (const c10::ScalarType dtype : {c10::kFloat, c10::kHalf, c10::kBFloat16}) {
    std::vector<at::Tensor> list;
    for (const int64_t n : sizes) list.push_back(random_planted(n, dtype, rng).cuda());
    for (const double scale : {1.0, 65536.0, std::ldexp(1.0, -14)}) {
      expect_matches_reference(list, scale, std::string(c10::toString(dtype)));
    }
  }
}

TEST(GradHealthCuda, MisalignedAndNonContiguousViews) {
  std::string reason;
  if (skip_without_cuda(&reason)) GTEST_SKIP() << reason;
  std::mt19937_64 rng(7);
  std::vector<at::Tensor> list;
  for (const c10::ScalarType dtype : {c10::kFloat, c10::kHalf, c10::kBFloat16}) {
    const at::Tensor base = random_planted(70001, dtype, rng).cuda();
    for (const int64_t offset : {1, 2, 3, 4}) {  // defeats (some) vector loads
      list.push_back(base.narrow(0, offset, 70001 - offset - 3));
    }
    list.push_back(base.narrow(0, 1, 70000).reshape({350, 200}).t());  // non-contiguous
  }
  expect_matches_reference(list, 1.0, "views");
  expect_matches_reference(list, 1024.0, "views");
}

TEST(GradHealthCuda, ThousandTensorsInOneCall) {
  std::string reason;
  if (skip_without_cuda(&reason)) GTEST_SKIP() << reason;
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int64_t> size(0, 5000);
  const c10::ScalarType dtypes[] = {c10::kFloat, c10::kHalf, c10::kBFloat16};
  std::vector<at::Tensor> list;
  for (int i = 0; i < 1000; ++i) list.push_back(random_planted(size(rng), dtypes[i % 3], rng).cuda());
  expect_matches_reference(list, 1.0, "1000 tensors");
}

TEST(GradHealthCuda, PlantedValuesAndMixedDevices) {
  std::string reason;
  if (skip_without_cuda(&reason)) GTEST_SKIP() << reason;
  const std::vector<at::Tensor> list = {f32(kPlanted).cuda(), f32(kPlanted), at::Tensor(),
                                        f32(kPlanted).to(c10::kBFloat16).cuda()};
  const GradHealth h = grad_health(list);
  expect_counts(h.per_tensor[0], 13, 3, 2, 2);
  EXPECT_NEAR(h.per_tensor[0].l2_norm, std::sqrt(planted_sum_squares()), 1e-9);
  expect_counts(h.per_tensor[1], 13, 3, 2, 2);
  expect_counts(h.per_tensor[2], 0, 0, 0, 0);
  expect_matches_reference(list, 1.0, "mixed devices");
  expect_matches_reference(list, 1024.0, "mixed devices");
}

}  // namespace
}  // namespace ampbench::kernels
