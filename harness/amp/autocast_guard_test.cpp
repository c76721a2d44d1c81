#include "amp/amp_test_util.h"
#include "amp/autocast_guard.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/nn/modules/linear.h>

#include <stdexcept>
#include <string>
#include <thread>

namespace ampbench::amp {
namespace {

// Autocast per device type: the CPU type on CPU, the CUDA type on CUDA.
class AutocastGuardTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    AMPBENCH_SKIP_WITHOUT_DEVICE(device_);
    linear_->to(device_);
    input_ = at::randn({4, 8}, device_);
    ASSERT_FALSE(at::autocast::is_autocast_enabled(type_)) << "a previous test leaked autocast";
  }

  // Linear is on autocast's lower-precision list: its output dtype shows
  // the autocast state of the calling thread.
  at::ScalarType linear_dtype() { return linear_->forward(input_).scalar_type(); }

  at::Device device_{GetParam()};
  at::DeviceType type_ = device_.type();
  torch::nn::Linear linear_{8, 8};
  at::Tensor input_;  // created in SetUp, once the device is known to exist
};

TEST_P(AutocastGuardTest, EnablesTheRegionAndRestoresOnExit) {
  const at::ScalarType dtype_before = at::autocast::get_autocast_dtype(type_);
  EXPECT_EQ(linear_dtype(), at::kFloat);
  {
    AutocastGuard guard(type_, at::kBFloat16);
    EXPECT_TRUE(at::autocast::is_autocast_enabled(type_));
    EXPECT_EQ(at::autocast::get_autocast_dtype(type_), at::kBFloat16);
    EXPECT_EQ(linear_dtype(), at::kBFloat16);
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(type_));
  EXPECT_EQ(at::autocast::get_autocast_dtype(type_), dtype_before);
  EXPECT_EQ(linear_dtype(), at::kFloat);
}

TEST_P(AutocastGuardTest, DefaultDtypeIsTheDeviceTypesCurrentOne) {
  const at::ScalarType expected = at::autocast::get_autocast_dtype(type_);
  EXPECT_EQ(expected, device_.is_cuda() ? at::kHalf : at::kBFloat16);  // LibTorch's defaults
  AutocastGuard guard(type_);
  EXPECT_EQ(linear_dtype(), expected);
}

TEST_P(AutocastGuardTest, OnlyTouchesItsDeviceType) {
  const at::DeviceType other = device_.is_cuda() ? at::kCPU : at::kCUDA;
  AutocastGuard guard(type_, at::kHalf);
  EXPECT_FALSE(at::autocast::is_autocast_enabled(other));
}

// Forward passes in both regions: LibTorch's cast cache is keyed by tensor
// only, so the guard must not let one dtype's cached weights reach the other.
TEST_P(AutocastGuardTest, NestedRegionsRestoreTheOuterOne) {
  AutocastGuard outer(type_, at::kBFloat16);
  EXPECT_EQ(linear_dtype(), at::kBFloat16);
  {
    AutocastGuard inner(type_, at::kHalf);
    EXPECT_EQ(linear_dtype(), at::kHalf);
  }
  EXPECT_EQ(linear_dtype(), at::kBFloat16);
  EXPECT_EQ(at::autocast::get_autocast_dtype(type_), at::kBFloat16);
}

TEST_P(AutocastGuardTest, DisabledRegionInsideAnEnabledOne) {
  AutocastGuard outer(type_, at::kBFloat16);
  {
    AutocastGuard off(type_, std::nullopt, /*enabled=*/false);
    EXPECT_FALSE(at::autocast::is_autocast_enabled(type_));
    EXPECT_EQ(linear_dtype(), at::kFloat);
  }
  EXPECT_TRUE(at::autocast::is_autocast_enabled(type_));
  EXPECT_EQ(linear_dtype(), at::kBFloat16);
}

TEST_P(AutocastGuardTest, RestoresWhenTheRegionThrows) {
  try {
    AutocastGuard guard(type_, at::kBFloat16);
    throw std::runtime_error("forward failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(type_));
  EXPECT_EQ(linear_dtype(), at::kFloat);
}

TEST_P(AutocastGuardTest, RefusesNonLowPrecisionDtypes) {
  AMPBENCH_EXPECT_ERROR(AutocastGuard(type_, at::kFloat), c10::ValueError,
                        "supports float16 and bfloat16 only");
  EXPECT_FALSE(at::autocast::is_autocast_enabled(type_));  // nothing changed
  EXPECT_NO_THROW(AutocastGuard(type_, at::kFloat, /*enabled=*/false));
}

// Weights are cast once per region: the cast cache lives until the outermost
// region exits, not an inner one.
TEST_P(AutocastGuardTest, CastCacheIsClearedWhenTheOutermostRegionExits) {
  const at::Tensor weight = linear_->weight;  // a float32 leaf requiring grad: cacheable
  ASSERT_TRUE(at::autocast::is_autocast_cache_enabled());
  auto cast = [&] { return at::autocast::cached_cast(at::kBFloat16, weight, type_); };
  at::Tensor first;
  {
    AutocastGuard outer(type_, at::kBFloat16);
    first = cast();
    EXPECT_TRUE(cast().is_same(first)) << "the cache is not in use: the test proves nothing";
    { AutocastGuard inner(type_, at::kBFloat16); }
    EXPECT_TRUE(cast().is_same(first)) << "an inner region's exit cleared the cache";
  }
  AutocastGuard again(type_, at::kBFloat16);
  EXPECT_FALSE(cast().is_same(first)) << "the outermost region's exit did not clear the cache";
}

TEST_P(AutocastGuardTest, DtypeSwitchingRegionsDoNotShareCasts) {
  const at::Tensor weight = linear_->weight;
  AutocastGuard outer(type_, at::kBFloat16);
  const at::Tensor outer_cast = at::autocast::cached_cast(at::kBFloat16, weight, type_);
  {
    AutocastGuard inner(type_, at::kHalf);
    const at::Tensor inner_cast = at::autocast::cached_cast(at::kHalf, weight, type_);
    EXPECT_EQ(inner_cast.scalar_type(), at::kHalf);
  }
  const at::Tensor after = at::autocast::cached_cast(at::kBFloat16, weight, type_);
  EXPECT_EQ(after.scalar_type(), at::kBFloat16);
}

TEST_P(AutocastGuardTest, WorkerThreadsNeedTheCapturedState) {
  AutocastGuard guard(type_, at::kBFloat16);
  ASSERT_EQ(linear_dtype(), at::kBFloat16);
  const AutocastState state = AutocastState::capture();

  at::ScalarType without = at::kDouble;
  std::thread([&] { without = linear_dtype(); }).join();
  EXPECT_EQ(without, at::kFloat) << "autocast reached the thread without help: thread-local?";

  at::ScalarType with = at::kDouble;
  at::ScalarType after = at::kDouble;
  std::thread([&] {
    {
      AutocastStateGuard applied(state);
      with = linear_dtype();
    }
    after = linear_dtype();
  }).join();
  EXPECT_EQ(with, at::kBFloat16);
  EXPECT_EQ(after, at::kFloat) << "the worker's own state was not restored";
}

TEST_P(AutocastGuardTest, CapturedStateIsTheOneAtCaptureTime) {
  AutocastState state = [&] {
    AutocastGuard guard(type_, at::kHalf);
    return AutocastState::capture();
  }();
  ASSERT_EQ(linear_dtype(), at::kFloat);
  at::ScalarType in_worker = at::kDouble;
  std::thread([&] {
    AutocastStateGuard applied(state);
    in_worker = linear_dtype();
  }).join();
  EXPECT_EQ(in_worker, at::kHalf);
  // Applying the state of a thread outside any region turns autocast off.
  AutocastState off = AutocastState::capture();
  AutocastGuard guard(type_, at::kBFloat16);
  {
    AutocastStateGuard applied(off);
    EXPECT_EQ(linear_dtype(), at::kFloat);
  }
  EXPECT_EQ(linear_dtype(), at::kBFloat16);
}

INSTANTIATE_TEST_SUITE_P(Devices, AutocastGuardTest, testing::ValuesIn(testing_util::test_devices()),
                         testing_util::device_param_name);

}  // namespace
}  // namespace ampbench::amp
