// GradScaler unit tests: scale arithmetic, skip/backoff/growth, misuse
// errors, state_dict. The training-loop conformance against PyTorch's own
// tests is in grad_scaler_conformance_test.cpp.
#include "amp/amp_test_util.h"
#include "amp/grad_scaler.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace ampbench::amp {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

class GradScalerTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { AMPBENCH_SKIP_WITHOUT_DEVICE(device_); }

  at::Tensor tensor(std::vector<float> values, at::ScalarType dtype = at::kFloat) const {
    return at::tensor(values, at::TensorOptions().device(device_)).to(dtype);
  }

  // A leaf parameter whose gradient the test sets directly.
  at::Tensor param(std::vector<float> values, at::ScalarType dtype = at::kFloat) const {
    return tensor(std::move(values), dtype).requires_grad_();
  }

  static void set_grad(const at::Tensor& param, const at::Tensor& grad) { param.mutable_grad() = grad; }

  // SGD with lr 1: a step subtracts the (unscaled) gradient exactly.
  static std::unique_ptr<torch::optim::SGD> sgd(std::vector<at::Tensor> params) {
    return std::make_unique<torch::optim::SGD>(std::move(params), torch::optim::SGDOptions(1.0));
  }

  // Creates the scale tensor on the test's device, as a loss would.
  void start(GradScaler& scaler) const { scaler.scale(at::ones({}, device_)); }

  at::Device device_{GetParam()};
};

TEST_P(GradScalerTest, DisabledScalerPassesThrough) {
  GradScaler scaler(GradScalerOptions().enabled(false));
  EXPECT_FALSE(scaler.is_enabled());
  const at::Tensor loss = tensor({3.0f});
  EXPECT_TRUE(scaler.scale(loss).is_same(loss));
  const auto outputs = scaler.scale(std::vector<at::Tensor>{loss, loss});
  EXPECT_TRUE(outputs[0].is_same(loss) && outputs[1].is_same(loss));
  EXPECT_EQ(scaler.get_scale(), 1.0);

  // No unscaling, no inf check: step is plain optimizer.step().
  const at::Tensor p = param({1.0f, 2.0f});
  set_grad(p, tensor({4.0f, kInf}));
  auto opt = sgd({p});
  scaler.unscale_(*opt);
  EXPECT_TRUE(at::equal(p.grad(), tensor({4.0f, kInf})));
  EXPECT_TRUE(scaler.step(*opt));
  EXPECT_TRUE(scaler.step(*opt));  // no per-optimizer state either
  EXPECT_FALSE(at::isfinite(p).all().item<bool>());
  scaler.update();
  scaler.update(8.0);
  EXPECT_EQ(scaler.get_scale(), 1.0);
  scaler.load_state_dict(GradScalerState{});  // a no-op, as in Python
  AMPBENCH_EXPECT_ERROR(scaler.state_dict(), c10::Error, "disabled");
}

TEST_P(GradScalerTest, ScaleMultipliesOnTheOutputsDevice) {
  GradScaler scaler(GradScalerOptions().init_scale(4.0));
  EXPECT_EQ(scaler.get_scale(), 4.0);  // before the scale tensor exists
  EXPECT_TRUE(at::equal(scaler.scale(tensor({1.5f, -2.0f})), tensor({6.0f, -8.0f})));
  // A float16 loss stays float16: the float32 scale is a 0-dim tensor.
  const at::Tensor half_input = tensor({0.5f}, at::kHalf);
  const at::Tensor half = scaler.scale(half_input);
  EXPECT_EQ(half.scalar_type(), at::kHalf);
  // On the input's device, index included ("cuda" names the current device;
  // the tensor's own device is e.g. cuda:0).
  EXPECT_EQ(half.device().type(), device_.type());
  EXPECT_EQ(half.device(), half_input.device());
  EXPECT_EQ(half.item<float>(), 2.0f);
  const auto outputs = scaler.scale(std::vector<at::Tensor>{tensor({1.0f}), tensor({2.0f})});
  EXPECT_TRUE(at::equal(outputs[0], tensor({4.0f})));
  EXPECT_TRUE(at::equal(outputs[1], tensor({8.0f})));
  EXPECT_EQ(scaler.get_scale(), 4.0);
}

TEST_P(GradScalerTest, StepUnscalesAndSteps) {
  GradScaler scaler(GradScalerOptions().init_scale(8.0));
  start(scaler);
  const at::Tensor p = param({10.0f, 20.0f});
  set_grad(p, tensor({8.0f, 16.0f}));
  auto opt = sgd({p});
  EXPECT_TRUE(scaler.step(*opt));
  EXPECT_TRUE(at::equal(p.grad(), tensor({1.0f, 2.0f})));
  EXPECT_TRUE(at::equal(p.detach(), tensor({9.0f, 18.0f})));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 8.0);  // growth_interval 2000: no growth yet
  EXPECT_EQ(scaler.state_dict().growth_tracker, 1);
}

TEST_P(GradScalerTest, InfOrNanSkipsTheStepAndBacksOff) {
  for (float bad : {kInf, -kInf, kNaN}) {
    GradScaler scaler(GradScalerOptions().init_scale(8.0).growth_interval(3));
    start(scaler);
    const at::Tensor p = param({10.0f, 20.0f});
    auto opt = sgd({p});
    set_grad(p, tensor({8.0f, 8.0f}));
    EXPECT_TRUE(scaler.step(*opt));
    scaler.update();
    EXPECT_EQ(scaler.state_dict().growth_tracker, 1);

    set_grad(p, tensor({8.0f, bad}));
    EXPECT_FALSE(scaler.step(*opt)) << "gradient " << bad;
    EXPECT_TRUE(at::equal(p.detach(), tensor({9.0f, 19.0f}))) << "stepped with gradient " << bad;
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), 4.0);
    EXPECT_EQ(scaler.state_dict().growth_tracker, 0);  // backoff restarts the count
  }
}

TEST_P(GradScalerTest, GrowsEveryGrowthIntervalUnskippedSteps) {
  GradScaler scaler(GradScalerOptions().init_scale(16.0).growth_interval(3).growth_factor(4.0));
  start(scaler);
  const at::Tensor p = param({0.0f});
  auto opt = sgd({p});
  const std::vector<double> expected_scale = {16, 16, 64, 64, 64, 256};
  const std::vector<int64_t> expected_tracker = {1, 2, 0, 1, 2, 0};
  for (size_t i = 0; i < expected_scale.size(); ++i) {
    set_grad(p, tensor({1.0f}));
    scaler.step(*opt);
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), expected_scale[i]) << "after update " << i;
    EXPECT_EQ(scaler.state_dict().growth_tracker, expected_tracker[i]) << "after update " << i;
  }
}

// Python: growth never makes the scale infinite. ATen's kernel keeps the
// old scale when the grown one would overflow float32.
TEST_P(GradScalerTest, GrowthNeverMakesTheScaleInfinite) {
  const double max_pow2 = std::ldexp(1.0, 127);  // 2^128 overflows float32
  for (auto [init, growth] : {std::pair{1e38, 16.0}, std::pair{std::ldexp(1.0, 125), 2.0}}) {
    GradScaler scaler(GradScalerOptions().init_scale(init).growth_factor(growth).growth_interval(1));
    start(scaler);
    const at::Tensor p = param({0.0f});
    auto opt = sgd({p});
    for (int i = 0; i < 4; ++i) {
      set_grad(p, tensor({0.0f}));
      ASSERT_TRUE(scaler.step(*opt));
      scaler.update();
      ASSERT_TRUE(std::isfinite(scaler.get_scale())) << "init " << init << ", update " << i;
      EXPECT_EQ(scaler.state_dict().growth_tracker, 0);
    }
    const double expected = growth == 16.0 ? static_cast<double>(static_cast<float>(1e38)) : max_pow2;
    EXPECT_EQ(scaler.get_scale(), expected);
    // Backoff still works from the capped scale.
    set_grad(p, tensor({kInf}));
    EXPECT_FALSE(scaler.step(*opt));
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), static_cast<double>(static_cast<float>(expected * 0.5)));
  }
}

TEST_P(GradScalerTest, UpdateWithNewScaleSetsItDirectly) {
  GradScaler scaler(GradScalerOptions().init_scale(8.0));
  AMPBENCH_EXPECT_ERROR(scaler.update(1024.0), c10::Error, "scale has not been created");
  start(scaler);
  const at::Tensor p = param({0.0f});
  auto opt = sgd({p});
  set_grad(p, tensor({kInf}));
  EXPECT_FALSE(scaler.step(*opt));
  scaler.update(1024.0);  // no backoff despite the inf
  EXPECT_EQ(scaler.get_scale(), 1024.0);
  set_grad(p, tensor({1024.0f}));
  EXPECT_TRUE(scaler.step(*opt));  // per-optimizer state was reset
  EXPECT_TRUE(at::equal(p.grad(), tensor({1.0f})));
  AMPBENCH_EXPECT_ERROR(scaler.update(0.0), c10::ValueError, "new_scale");
  AMPBENCH_EXPECT_ERROR(scaler.update(1e39), c10::ValueError, "new_scale");
}

// One update() combines every optimizer's found_inf: one backoff, not one
// per optimizer; optimizers skip independently.
TEST_P(GradScalerTest, OneUpdateCombinesAllOptimizers) {
  GradScaler scaler(GradScalerOptions().init_scale(64.0).growth_interval(1));
  start(scaler);
  const at::Tensor p0 = param({0.0f});
  const at::Tensor p1 = param({0.0f});
  auto opt0 = sgd({p0});
  auto opt1 = sgd({p1});

  set_grad(p0, tensor({64.0f}));
  set_grad(p1, tensor({kInf}));
  EXPECT_TRUE(scaler.step(*opt0));
  EXPECT_FALSE(scaler.step(*opt1));
  EXPECT_EQ(p0.item<float>(), -1.0f);
  EXPECT_EQ(p1.item<float>(), 0.0f);
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 32.0);

  set_grad(p0, tensor({32.0f}));
  set_grad(p1, tensor({32.0f}));
  EXPECT_TRUE(scaler.step(*opt0));
  EXPECT_TRUE(scaler.step(*opt1));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 64.0);  // one growth for the iteration

  // The inf in either optimizer backs off, whatever order update() visits
  // them in.
  set_grad(p0, tensor({kInf}));
  set_grad(p1, tensor({64.0f}));
  EXPECT_FALSE(scaler.step(*opt0));
  EXPECT_TRUE(scaler.step(*opt1));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 32.0);
  scaler.update(64.0);

  // An optimizer only unscaled (inspected, never stepped) still counts.
  set_grad(p0, tensor({64.0f}));
  set_grad(p1, tensor({kNaN}));
  EXPECT_TRUE(scaler.step(*opt0));
  scaler.unscale_(*opt1);
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 32.0);
}

// The check happens once, in unscale_: gradients broken afterwards reach the
// optimizer (as in Python).
TEST_P(GradScalerTest, GradientsBrokenAfterUnscaleAreNotRechecked) {
  GradScaler scaler(GradScalerOptions().init_scale(4.0));
  start(scaler);
  const at::Tensor p = param({1.0f, 2.0f});
  auto opt = sgd({p});
  set_grad(p, tensor({4.0f, 4.0f}));
  scaler.unscale_(*opt);
  p.grad().fill_(kInf);
  EXPECT_TRUE(scaler.step(*opt));
  EXPECT_FALSE(at::isfinite(p).any().item<bool>());
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 4.0);  // no inf was recorded
}

TEST_P(GradScalerTest, ParametersWithoutGradientsAreIgnored) {
  GradScaler scaler(GradScalerOptions().init_scale(2.0));
  start(scaler);
  const at::Tensor with_grad = param({1.0f});
  const at::Tensor without_grad = param({5.0f});
  auto opt = sgd({with_grad, without_grad});
  set_grad(with_grad, tensor({2.0f}));
  EXPECT_TRUE(scaler.step(*opt));
  EXPECT_EQ(with_grad.item<float>(), 0.0f);
  EXPECT_FALSE(without_grad.grad().defined());
}

// What torch.amp.GradScaler does with bfloat16 gradients depends on the
// device: on CPU it unscales them, on CUDA it raises NotImplementedError
// (ATen has no bfloat16 CUDA unscale kernel; reference/python/tests/
// test_grad_scaler_bf16.py shows both). The C++ scaler does the same, and
// where it refuses it does so before touching any gradient.
TEST_P(GradScalerTest, Bfloat16GradientsAreUnscaledWhereTorchAmpGradScalerUnscalesThem) {
  GradScaler scaler(GradScalerOptions().init_scale(128.0));
  start(scaler);
  const at::Tensor p = param({0.0f, 0.0f}, at::kBFloat16);
  const at::Tensor q = param({0.0f});  // a float32 group beside the bfloat16 one
  auto opt = sgd({q, p});              // the float32 group first: it must not be unscaled alone
  set_grad(p, tensor({128.0f, 256.0f}, at::kBFloat16));
  if (!unscale_kernel_supports(device_.type(), at::kBFloat16)) {
    ASSERT_TRUE(device_.is_cuda());
    set_grad(q, tensor({256.0f}));
    AMPBENCH_EXPECT_ERROR(scaler.unscale_(*opt), c10::NotImplementedError,
                          "cannot unscale BFloat16 gradients on cuda");
    EXPECT_TRUE(at::equal(q.grad(), tensor({256.0f})));
    EXPECT_TRUE(at::equal(p.grad(), tensor({128.0f, 256.0f}, at::kBFloat16)));
    AMPBENCH_EXPECT_ERROR(scaler.step(*opt), c10::NotImplementedError, "bfloat16 needs no loss scaling");
    EXPECT_TRUE(at::equal(p.detach(), tensor({0.0f, 0.0f}, at::kBFloat16)));  // no step either
    return;
  }
  set_grad(q, tensor({kInf}));
  scaler.unscale_(*opt);
  EXPECT_TRUE(at::equal(p.grad(), tensor({1.0f, 2.0f}, at::kBFloat16)));
  EXPECT_FALSE(scaler.step(*opt));  // the inf in the other dtype group counts
}

// unscale_kernel_supports is the scaler's statement about ATen; on each
// device, ATen's kernel must agree with it dtype by dtype.
TEST_P(GradScalerTest, UnscaleKernelSupportMatchesATen) {
  for (const at::ScalarType dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16}) {
    std::vector<at::Tensor> grads = {tensor({4.0f}, dtype)};
    at::Tensor found_inf = tensor({0.0f}).squeeze();
    const at::Tensor inv_scale = tensor({0.5f}).squeeze();
    bool ran = true;
    try {
      at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale);
    } catch (const c10::NotImplementedError&) {
      ran = false;
    }
    EXPECT_EQ(ran, unscale_kernel_supports(device_.type(), dtype)) << dtype << " on " << device_;
    if (ran) {
      EXPECT_EQ(grads[0].item<float>(), 2.0f) << dtype;
    }
  }
}

// The refusal path of the cuda instantiation above, exercised without a GPU:
// the meta device has no bfloat16 unscale kernel either.
TEST(UnscaleKernelSupport, RefusalComesBeforeAnyGroupIsUnscaled) {
  GradScaler scaler(GradScalerOptions().init_scale(128.0));
  scaler.scale(at::ones({}));
  const at::Tensor cpu_param = at::zeros({1}).requires_grad_();
  cpu_param.mutable_grad() = at::full({1}, 256.0f);
  const at::Tensor meta_param = at::zeros({2}, at::TensorOptions().device(at::kMeta).dtype(at::kBFloat16));
  meta_param.requires_grad_();
  meta_param.mutable_grad() = at::empty({2}, meta_param.options());
  torch::optim::SGD opt({cpu_param, meta_param}, torch::optim::SGDOptions(1.0));
  AMPBENCH_EXPECT_ERROR(scaler.unscale_(opt), c10::NotImplementedError, "cannot unscale BFloat16 gradients on meta");
  EXPECT_EQ(cpu_param.grad().item<float>(), 256.0f) << "the float32 group was unscaled before the refusal";
}

TEST(UnscaleKernelSupport, Bfloat16OnlyOnCpu) {
  // The CUDA answers are checked against ATen by the cuda instantiation of
  // UnscaleKernelSupportMatchesATen; here they are pinned without a GPU.
  EXPECT_TRUE(unscale_kernel_supports(at::kCPU, at::kBFloat16));
  EXPECT_FALSE(unscale_kernel_supports(at::kCUDA, at::kBFloat16));
  for (const at::DeviceType device : {at::kCPU, at::kCUDA}) {
    EXPECT_TRUE(unscale_kernel_supports(device, at::kFloat));
    EXPECT_TRUE(unscale_kernel_supports(device, at::kHalf));
    EXPECT_FALSE(unscale_kernel_supports(device, at::kInt));
  }
}

TEST_P(GradScalerTest, Float16GradientsAreRefused) {
  GradScaler scaler;
  start(scaler);
  const at::Tensor p = param({0.0f}, at::kHalf);
  auto opt = sgd({p});
  set_grad(p, tensor({1.0f}, at::kHalf));
  AMPBENCH_EXPECT_ERROR(scaler.unscale_(*opt), c10::ValueError, "Attempting to unscale FP16 gradients.");
  AMPBENCH_EXPECT_ERROR(scaler.step(*opt), c10::ValueError, "Attempting to unscale FP16 gradients.");
}

TEST_P(GradScalerTest, MisuseErrors) {
  GradScaler scaler;
  const at::Tensor p = param({0.0f});
  auto opt = sgd({p});
  set_grad(p, tensor({1.0f}));
  AMPBENCH_EXPECT_ERROR(scaler.unscale_(*opt), c10::Error, "did not use scaler.scale(");
  AMPBENCH_EXPECT_ERROR(scaler.step(*opt), c10::Error, "did not use scaler.scale(");
  AMPBENCH_EXPECT_ERROR(scaler.update(), c10::Error, "did not use scaler.scale(");
  start(scaler);

  AMPBENCH_EXPECT_ERROR(scaler.update(), c10::Error, "No inf checks were recorded prior to update()");
  scaler.unscale_(*opt);
  AMPBENCH_EXPECT_ERROR(scaler.unscale_(*opt), c10::Error,
                        "unscale_() has already been called on this optimizer since the last update().");
  scaler.step(*opt);
  AMPBENCH_EXPECT_ERROR(scaler.unscale_(*opt), c10::Error, "unscale_() is being called after step().");
  AMPBENCH_EXPECT_ERROR(scaler.step(*opt), c10::Error,
                        "step() has already been called since the last update().");
  scaler.update();
  // update() resets the per-optimizer state: a normal iteration works again.
  set_grad(p, tensor({1.0f}));
  scaler.unscale_(*opt);
  EXPECT_TRUE(scaler.step(*opt));
  scaler.update();

  const at::Tensor no_grad = param({0.0f});
  auto opt_without_grads = sgd({no_grad});
  AMPBENCH_EXPECT_ERROR(scaler.step(*opt_without_grads), c10::Error,
                        "No inf checks were recorded for this optimizer.");
}

TEST_P(GradScalerTest, PerOptimizerStateIsKeyedByOptimizer) {
  GradScaler scaler;
  start(scaler);
  const at::Tensor p0 = param({0.0f});
  const at::Tensor p1 = param({0.0f});
  auto opt0 = sgd({p0});
  auto opt1 = sgd({p1});
  set_grad(p0, tensor({1.0f}));
  set_grad(p1, tensor({1.0f}));
  scaler.unscale_(*opt0);
  EXPECT_NO_THROW(scaler.unscale_(*opt1));
  scaler.step(*opt0);
  EXPECT_NO_THROW(scaler.step(*opt1));
}

TEST(GradScalerOptionsTest, DefaultsMatchPython) {
  const GradScalerOptions options;
  EXPECT_EQ(options.init_scale(), 65536.0);
  EXPECT_EQ(options.growth_factor(), 2.0);
  EXPECT_EQ(options.backoff_factor(), 0.5);
  EXPECT_EQ(options.growth_interval(), 2000);
  EXPECT_TRUE(options.enabled());
  const GradScaler scaler;
  EXPECT_EQ(scaler.get_scale(), 65536.0);
  EXPECT_EQ(scaler.state_dict(), GradScalerState{});
}

TEST(GradScalerOptionsTest, InvalidOptionsAreRefused) {
  AMPBENCH_EXPECT_ERROR(GradScaler(GradScalerOptions().growth_factor(1.0)), c10::ValueError,
                        "growth factor must be > 1.0");
  AMPBENCH_EXPECT_ERROR(GradScaler(GradScalerOptions().backoff_factor(1.0)), c10::ValueError,
                        "backoff factor must be in (0, 1)");
  AMPBENCH_EXPECT_ERROR(GradScaler(GradScalerOptions().growth_interval(0)), c10::ValueError,
                        "growth interval");
  AMPBENCH_EXPECT_ERROR(GradScaler(GradScalerOptions().init_scale(1e39)), c10::ValueError,
                        "init_scale");
  GradScaler scaler;
  AMPBENCH_EXPECT_ERROR(scaler.set_growth_factor(0.5), c10::ValueError, "growth factor");
  AMPBENCH_EXPECT_ERROR(scaler.set_backoff_factor(0.0), c10::ValueError, "backoff factor");
  AMPBENCH_EXPECT_ERROR(scaler.set_growth_interval(-1), c10::ValueError, "growth interval");
  scaler.set_growth_factor(4.0);
  scaler.set_backoff_factor(0.25);
  scaler.set_growth_interval(7);
  EXPECT_EQ(scaler.get_growth_factor(), 4.0);
  EXPECT_EQ(scaler.get_backoff_factor(), 0.25);
  EXPECT_EQ(scaler.get_growth_interval(), 7);
}

TEST(GradScalerStateTest, RoundTripsThroughJsonWithPythonKeys) {
  const GradScalerState state{1024.0, 4.0, 0.25, 7, 3};
  const nlohmann::json j = state;
  EXPECT_EQ(j.at("scale"), 1024.0);
  EXPECT_EQ(j.at("_growth_tracker"), 3);
  EXPECT_EQ(j.size(), 5u);
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<GradScalerState>(), state);
  nlohmann::json missing = j;
  missing.erase("_growth_tracker");
  EXPECT_THROW(missing.get<GradScalerState>(), nlohmann::json::out_of_range);
}

TEST_P(GradScalerTest, LoadStateDictOverwritesALiveScale) {
  GradScaler scaler(GradScalerOptions().init_scale(128.0).growth_interval(5));
  start(scaler);
  const at::Tensor p = param({0.0f});
  auto opt = sgd({p});
  set_grad(p, tensor({1.0f}));
  scaler.step(*opt);
  scaler.update();
  const GradScalerState loaded{32.0, 4.0, 0.25, 3, 2};
  scaler.load_state_dict(loaded);
  EXPECT_EQ(scaler.state_dict(), loaded);
  set_grad(p, tensor({1.0f}));
  scaler.step(*opt);
  scaler.update();  // the loaded tracker reaches the loaded interval: grows by 4
  EXPECT_EQ(scaler.get_scale(), 128.0);
  AMPBENCH_EXPECT_ERROR(scaler.load_state_dict(GradScalerState{32.0, 1.0, 0.25, 3, 0}),
                        c10::ValueError, "growth factor");
  EXPECT_EQ(scaler.get_scale(), 128.0);  // a refused state changes nothing
}

// A run checkpointed mid-way and resumed with a fresh scaler (default
// options, state loaded before its first scale()) continues bit-identically
// to an uninterrupted run, through growth, an inf and a backoff.
TEST_P(GradScalerTest, ResumingFromStateDictIsBitIdentical) {
  constexpr int kIters = 7;
  constexpr int kCheckpointAfter = 5;  // growth tracker at 2 of 3 then
  constexpr int kInfIter = 2;
  torch::manual_seed(0);
  std::vector<std::pair<at::Tensor, at::Tensor>> data;
  for (int i = 0; i < kIters; ++i) {
    data.emplace_back(at::randn({8, 8}, device_), at::randn({8, 8}, device_));
  }
  auto make_model = [&] {
    torch::manual_seed(1);
    torch::nn::Sequential model(torch::nn::Linear(8, 8), torch::nn::Linear(8, 8));
    model->to(device_);
    return model;
  };
  const GradScalerOptions options = GradScalerOptions().init_scale(1024.0).growth_interval(3);
  auto iteration = [&](int i, torch::nn::Sequential& model, torch::optim::Optimizer& opt,
                       GradScaler& scaler) {
    opt.zero_grad();
    const at::Tensor out = model->forward(data[i].first);
    scaler.scale(torch::nn::functional::mse_loss(out, data[i].second)).backward();
    if (i == kInfIter) model->parameters()[0].grad().fill_(kInf);
    scaler.step(opt);
    scaler.update();
  };

  torch::nn::Sequential straight = make_model();
  torch::optim::Adam opt_straight(straight->parameters(), torch::optim::AdamOptions(0.01));
  GradScaler scaler_straight(options);
  for (int i = 0; i < kIters; ++i) iteration(i, straight, opt_straight, scaler_straight);

  torch::nn::Sequential resumed = make_model();
  torch::optim::Adam opt_resumed(resumed->parameters(), torch::optim::AdamOptions(0.01));
  nlohmann::json checkpoint;
  {
    GradScaler scaler(options);
    for (int i = 0; i < kCheckpointAfter; ++i) iteration(i, resumed, opt_resumed, scaler);
    checkpoint = scaler.state_dict();
    EXPECT_EQ(checkpoint.at("_growth_tracker"), 2);
  }
  GradScaler fresh;  // defaults: init 65536, interval 2000, until loaded
  fresh.load_state_dict(nlohmann::json::parse(checkpoint.dump()).get<GradScalerState>());
  for (int i = kCheckpointAfter; i < kIters; ++i) iteration(i, resumed, opt_resumed, fresh);

  EXPECT_EQ(fresh.state_dict(), scaler_straight.state_dict());
  // 1024, 1024, inf: 512, 512, 512 | checkpoint, grows: 1024, 1024. A lost
  // growth tracker would end at 512.
  EXPECT_EQ(fresh.get_scale(), 1024.0);
  const auto a = straight->parameters();
  const auto b = resumed->parameters();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(at::equal(a[i], b[i])) << "parameter " << i;
}

// Gradients on several devices: one found_inf per device, the inf on either
// device skips the step. Needs CUDA (the other device is the CPU).
TEST(GradScalerMultiDeviceTest, InfOnAnyDeviceSkipsTheStep) {
  if (!torch::cuda::is_available()) {
    GTEST_SKIP() << "CUDA device not available (torch::cuda::is_available() is false); "
                 << "this case needs CPU and CUDA gradients together";
  }
  const at::Device cuda("cuda");
  for (bool inf_on_cpu : {true, false}) {
    GradScaler scaler(GradScalerOptions().init_scale(4.0));
    scaler.scale(at::ones({}, cuda));
    const at::Tensor on_cpu = at::zeros({2}).requires_grad_();
    const at::Tensor on_cuda = at::zeros({2}, cuda).requires_grad_();
    torch::optim::SGD opt({on_cpu, on_cuda}, torch::optim::SGDOptions(1.0));
    on_cpu.mutable_grad() = at::full({2}, inf_on_cpu ? kInf : 4.0f);
    on_cuda.mutable_grad() = at::full({2}, inf_on_cpu ? 4.0f : kInf, at::TensorOptions().device(cuda));
    EXPECT_FALSE(scaler.step(opt)) << "inf on " << (inf_on_cpu ? "cpu" : "cuda");
    EXPECT_TRUE(at::equal(on_cpu.detach(), at::zeros({2})));
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), 2.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, GradScalerTest, testing::ValuesIn(testing_util::test_devices()),
                         testing_util::device_param_name);

}  // namespace
}  // namespace ampbench::amp
