// Conformance of GradScaler with PyTorch's own gradient-scaling tests
// (test_torch.py / test_cuda.py, `_run_scaling_case`): each workload runs
// twice on identical models and data, once as a control (float32, no
// scaling; the iteration with the injected inf simply skips its step) and
// once through the scaler (float32 math, init_scale=128, growth_factor=2,
// growth_interval=1, one inf gradient injected). With a power-of-two scale,
// scaling is exact, so both runs must agree to 1e-7, and the final scale is
// exactly 128 * 2^unskipped * 0.5^skipped.
#include "amp/amp_test_util.h"
#include "amp/grad_scaler.h"

#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <cmath>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ampbench::amp {
namespace {

using torch::nn::Sequential;
using torch::optim::Optimizer;

enum class OptimizerKind { kSGD, kAdam, kAdamW };

struct ScalingParam {
  std::string device;
  OptimizerKind optimizer;
  bool enabled;
};

std::string to_string(const ScalingParam& param) {
  const char* optimizer = param.optimizer == OptimizerKind::kSGD    ? "SGD"
                          : param.optimizer == OptimizerKind::kAdam ? "Adam"
                                                                    : "AdamW";
  return param.device + "_" + optimizer + (param.enabled ? "_enabled" : "_disabled");
}

// Readable test names and failure messages (gtest would print raw bytes).
void PrintTo(const ScalingParam& param, std::ostream* os) { *os << to_string(param); }

std::string scaling_param_name(const testing::TestParamInfo<ScalingParam>& info) {
  return to_string(info.param);
}

struct Batch {
  at::Tensor input;
  at::Tensor target;
};

constexpr double kInitScale = 128.0;
constexpr double kGrowthFactor = 2.0;
constexpr double kBackoffFactor = 0.5;
constexpr size_t kSkipIter = 2;
constexpr double kAtol = 1e-7;
constexpr double kRtol = 1e-5;
constexpr double kMaxNorm = 0.2;  // small enough that clipping acts on these grads

at::Tensor mse(const at::Tensor& output, const at::Tensor& target) {
  return torch::nn::functional::mse_loss(output, target);
}

// Tensors agree (or are both undefined) within the conformance tolerance.
testing::AssertionResult close(const at::Tensor& control, const at::Tensor& scaling,
                               double atol = kAtol) {
  if (control.defined() != scaling.defined()) {
    return testing::AssertionFailure() << "defined: control " << control.defined() << ", scaling "
                                       << scaling.defined();
  }
  if (!control.defined() || torch::allclose(control, scaling, kRtol, atol)) {
    return testing::AssertionSuccess();
  }
  return testing::AssertionFailure() << "max |control - scaling| = "
                                     << (control - scaling).abs().max().item<double>();
}

// An optimizer's per-parameter state as tensors, whatever the optimizer.
std::vector<at::Tensor> state_tensors(const Optimizer& optimizer, const at::Tensor& param) {
  const auto& all = optimizer.state();
  const auto it = all.find(param.unsafeGetTensorImpl());
  if (it == all.end()) return {};
  const torch::optim::OptimizerParamState* state = it->second.get();
  if (const auto* sgd = dynamic_cast<const torch::optim::SGDParamState*>(state)) {
    return {sgd->momentum_buffer()};
  }
  if (const auto* adam = dynamic_cast<const torch::optim::AdamParamState*>(state)) {
    return {at::scalar_tensor(static_cast<double>(adam->step())), adam->exp_avg(),
            adam->exp_avg_sq(), adam->max_exp_avg_sq()};
  }
  if (const auto* adamw = dynamic_cast<const torch::optim::AdamWParamState*>(state)) {
    return {at::scalar_tensor(static_cast<double>(adamw->step())), adamw->exp_avg(),
            adamw->exp_avg_sq(), adamw->max_exp_avg_sq()};
  }
  ADD_FAILURE() << "unknown optimizer state type";
  return {};
}

class GradScalingCase : public testing::TestWithParam<ScalingParam> {
 protected:
  void SetUp() override {
    AMPBENCH_SKIP_WITHOUT_DEVICE(device_);
    torch::manual_seed(0);
  }

  bool enabled() const { return GetParam().enabled; }

  Sequential make_model() const {
    Sequential model(torch::nn::Linear(8, 8), torch::nn::Linear(8, 8));
    model->to(device_);
    return model;
  }

  // The control and the scaling model start from the same weights.
  std::pair<Sequential, Sequential> make_models() const {
    Sequential control = make_model();
    Sequential scaling = make_model();
    torch::NoGradGuard no_grad;
    const auto control_params = control->parameters();
    const auto scaling_params = scaling->parameters();
    for (size_t i = 0; i < control_params.size(); ++i) scaling_params[i].copy_(control_params[i]);
    return {control, scaling};
  }

  std::unique_ptr<Optimizer> make_optimizer(const Sequential& model) const {
    switch (GetParam().optimizer) {
      case OptimizerKind::kSGD:
        return std::make_unique<torch::optim::SGD>(
            model->parameters(), torch::optim::SGDOptions(0.5).momentum(0.9));
      case OptimizerKind::kAdam:
        return std::make_unique<torch::optim::Adam>(model->parameters(),
                                                    torch::optim::AdamOptions(0.1));
      case OptimizerKind::kAdamW:
        return std::make_unique<torch::optim::AdamW>(model->parameters(),
                                                     torch::optim::AdamWOptions(0.1));
    }
    return nullptr;
  }

  std::vector<Batch> make_data(size_t n) const {
    std::vector<Batch> data;
    for (size_t i = 0; i < n; ++i) {
      data.push_back({at::randn({8, 8}, device_), at::randn({8, 8}, device_)});
    }
    return data;
  }

  // Modest initial scale, growth every unskipped step: errors in growth
  // handling show up magnified in the final scale.
  GradScaler make_scaler() const {
    return GradScaler(GradScalerOptions()
                          .init_scale(kInitScale)
                          .growth_factor(kGrowthFactor)
                          .backoff_factor(kBackoffFactor)
                          .growth_interval(1)
                          .enabled(enabled()));
  }

  // What a float16 overflow would leave in the second layer's weight grad.
  static void break_grads(Sequential model) {  // a handle: copies share the module
    model[1]->as<torch::nn::Linear>()->weight.grad().fill_(std::numeric_limits<float>::infinity());
  }

  void expect_scale(const GradScaler& scaler, int unskipped, int skipped) const {
    if (!enabled()) {
      EXPECT_EQ(scaler.get_scale(), 1.0);
      return;
    }
    EXPECT_EQ(scaler.get_scale(),
              kInitScale * std::pow(kGrowthFactor, unskipped) * std::pow(kBackoffFactor, skipped));
  }

  // Gradients, parameters and optimizer state agree parameter by parameter.
  void expect_match(const Sequential& control, const Sequential& scaling, const Optimizer& opt_control,
                    const Optimizer& opt_scaling, double atol = kAtol) const {
    const auto control_params = control->parameters();
    const auto scaling_params = scaling->parameters();
    ASSERT_EQ(control_params.size(), scaling_params.size());
    for (size_t i = 0; i < control_params.size(); ++i) {
      const at::Tensor& c = control_params[i];
      const at::Tensor& s = scaling_params[i];
      EXPECT_TRUE(close(c.grad(), s.grad(), atol)) << "grad of parameter " << i;
      EXPECT_TRUE(close(c, s, atol)) << "parameter " << i;
      const auto c_state = state_tensors(opt_control, c);
      const auto s_state = state_tensors(opt_scaling, s);
      ASSERT_FALSE(c_state.empty()) << "the control optimizer never stepped parameter " << i;
      ASSERT_EQ(c_state.size(), s_state.size()) << "optimizer state of parameter " << i;
      for (size_t k = 0; k < c_state.size(); ++k) {
        EXPECT_TRUE(close(c_state[k], s_state[k], atol)) << "optimizer state " << k << " of parameter " << i;
      }
    }
  }

  // One training iteration's step in either run: the scaling run checks that
  // the scaler skipped exactly the injected iteration; the control run skips
  // it by hand (only when scaling is enabled, as PyTorch's tests do).
  void step(GradScaler& scaler, Optimizer& opt, bool try_scaling_api, bool injected) const {
    if (try_scaling_api) {
      EXPECT_EQ(scaler.step(opt), !injected);
      scaler.update();
    } else if (!injected) {
      opt.step();
    }
  }

  at::Device device_{GetParam().device};
};

TEST_P(GradScalingCase, Plain) {
  const auto data = make_data(4);
  auto [control, scaling] = make_models();
  auto opt_control = make_optimizer(control);
  auto opt_scaling = make_optimizer(scaling);
  GradScaler scaler = make_scaler();

  auto run = [&](Sequential& model, Optimizer& opt, bool try_scaling_api) {
    for (size_t i = 0; i < data.size(); ++i) {
      opt.zero_grad();
      at::Tensor loss = mse(model->forward(data[i].input), data[i].target);
      const bool inject = i == kSkipIter && scaler.is_enabled();
      if (try_scaling_api) {
        scaler.scale(loss).backward();
        if (inject) break_grads(model);
      } else {
        loss.backward();
      }
      step(scaler, opt, try_scaling_api, inject);
    }
  };
  run(control, *opt_control, false);
  run(scaling, *opt_scaling, true);

  expect_scale(scaler, 3, 1);
  expect_match(control, scaling, *opt_control, *opt_scaling);
}

// Clipping scaled gradients without unscale_: the threshold is scaled too.
TEST_P(GradScalingCase, ClippingWithScaledThreshold) {
  const auto data = make_data(4);
  auto [control, scaling] = make_models();
  auto opt_control = make_optimizer(control);
  auto opt_scaling = make_optimizer(scaling);
  GradScaler scaler = make_scaler();
  bool clipped = false;

  auto run = [&](Sequential& model, Optimizer& opt, bool try_scaling_api) {
    for (size_t i = 0; i < data.size(); ++i) {
      opt.zero_grad();
      at::Tensor loss = mse(model->forward(data[i].input), data[i].target);
      const bool inject = i == kSkipIter && scaler.is_enabled();
      if (try_scaling_api) {
        scaler.scale(loss).backward();
        torch::nn::utils::clip_grad_norm_(model->parameters(), kMaxNorm * scaler.get_scale());
        if (inject) break_grads(model);
      } else {
        loss.backward();
        clipped |= torch::nn::utils::clip_grad_norm_(model->parameters(), kMaxNorm) > kMaxNorm;
      }
      step(scaler, opt, try_scaling_api, inject);
    }
  };
  run(control, *opt_control, false);
  run(scaling, *opt_scaling, true);

  ASSERT_TRUE(clipped) << "max_norm never took effect: the case would not test clipping";
  expect_scale(scaler, 3, 1);
  // Not exact: clip_grad_norm_'s coefficient max_norm / (norm + 1e-6) sees an
  // unscaled 1e-6 beside the scaled norm, a ~1e-6 relative difference in
  // every clipped gradient. PyTorch's own test uses atol 1e-5 here too.
  expect_match(control, scaling, *opt_control, *opt_scaling, /*atol=*/1e-5);
}

// unscale_ first, then clip with the unscaled threshold.
TEST_P(GradScalingCase, ClippingAfterSeparateUnscale) {
  const auto data = make_data(4);
  auto [control, scaling] = make_models();
  auto opt_control = make_optimizer(control);
  auto opt_scaling = make_optimizer(scaling);
  GradScaler scaler = make_scaler();
  bool clipped = false;

  auto run = [&](Sequential& model, Optimizer& opt, bool try_scaling_api) {
    for (size_t i = 0; i < data.size(); ++i) {
      opt.zero_grad();
      at::Tensor loss = mse(model->forward(data[i].input), data[i].target);
      const bool inject = i == kSkipIter && scaler.is_enabled();
      if (try_scaling_api) {
        scaler.scale(loss).backward();
        if (inject) break_grads(model);
        scaler.unscale_(opt);
        torch::nn::utils::clip_grad_norm_(model->parameters(), kMaxNorm, 2.0,
                                          /*error_if_nonfinite=*/false);
      } else {
        loss.backward();
        clipped |= torch::nn::utils::clip_grad_norm_(model->parameters(), kMaxNorm) > kMaxNorm;
      }
      step(scaler, opt, try_scaling_api, inject);
    }
  };
  run(control, *opt_control, false);
  run(scaling, *opt_scaling, true);

  ASSERT_TRUE(clipped) << "max_norm never took effect: the case would not test clipping";
  expect_scale(scaler, 3, 1);
  expect_match(control, scaling, *opt_control, *opt_scaling);
}

// Gradient penalty: grads of the scaled loss, unscaled by hand (no optimizer
// owns them), penalty = sqrt(sum ||g||^2) added to the loss.
TEST_P(GradScalingCase, GradientPenalty) {
  const auto data = make_data(4);
  auto [control, scaling] = make_models();
  auto opt_control = make_optimizer(control);
  auto opt_scaling = make_optimizer(scaling);
  GradScaler scaler = make_scaler();

  auto run = [&](Sequential& model, Optimizer& opt, bool try_scaling_api) {
    for (size_t i = 0; i < data.size(); ++i) {
      opt.zero_grad();
      at::Tensor loss = mse(model->forward(data[i].input), data[i].target);
      const auto params = model->parameters();
      std::vector<at::Tensor> grads;
      if (try_scaling_api) {
        grads = torch::autograd::grad({scaler.scale(loss)}, params, {}, std::nullopt,
                                      /*create_graph=*/true);
        const double inv_scale = 1.0 / scaler.get_scale();
        for (auto& g : grads) g = g * inv_scale;
      } else {
        grads = torch::autograd::grad({loss}, params, {}, std::nullopt, /*create_graph=*/true);
      }
      at::Tensor norm_sq = at::zeros({}, loss.options());
      for (const auto& g : grads) norm_sq = norm_sq + g.pow(2).sum();
      loss = loss + norm_sq.sqrt();

      const bool inject = i == kSkipIter && scaler.is_enabled();
      if (try_scaling_api) {
        scaler.scale(loss).backward();
        if (inject) break_grads(model);
      } else {
        loss.backward();
      }
      step(scaler, opt, try_scaling_api, inject);
    }
  };
  run(control, *opt_control, false);
  run(scaling, *opt_scaling, true);

  expect_scale(scaler, 3, 1);
  expect_match(control, scaling, *opt_control, *opt_scaling);
}

// Accumulation over 2 micro-batches: step/update once per effective batch.
// The inf is injected into the first micro-batch of an effective batch, so
// the scaler must see it through the second micro-batch's accumulation.
TEST_P(GradScalingCase, Accumulation) {
  constexpr size_t kItersToAccumulate = 2;
  const auto data = make_data(8);
  auto [control, scaling] = make_models();
  auto opt_control = make_optimizer(control);
  auto opt_scaling = make_optimizer(scaling);
  GradScaler scaler = make_scaler();

  auto run = [&](Sequential& model, Optimizer& opt, bool try_scaling_api) {
    bool injected = false;
    for (size_t i = 0; i < data.size(); ++i) {
      at::Tensor loss = mse(model->forward(data[i].input), data[i].target) /
                       static_cast<double>(kItersToAccumulate);
      if (try_scaling_api) {
        scaler.scale(loss).backward();
      } else {
        loss.backward();
      }
      if (i == kSkipIter && scaler.is_enabled()) {
        if (try_scaling_api) break_grads(model);
        injected = true;
      }
      if ((i + 1) % kItersToAccumulate == 0) {
        step(scaler, opt, try_scaling_api, injected);
        opt.zero_grad();
        injected = false;
      }
    }
  };
  run(control, *opt_control, false);
  run(scaling, *opt_scaling, true);

  expect_scale(scaler, 3, 1);
  expect_match(control, scaling, *opt_control, *opt_scaling);
}

// Two models, two optimizers, two losses from both outputs; one optimizer is
// unscaled separately; the inf hits only the second model, so only its
// optimizer skips; one update per iteration.
TEST_P(GradScalingCase, TwoModelsTwoOptimizers) {
  const auto data = make_data(4);
  auto [control0, scaling0] = make_models();
  auto [control1, scaling1] = make_models();
  auto opt_control0 = make_optimizer(control0);
  auto opt_control1 = make_optimizer(control1);
  auto opt_scaling0 = make_optimizer(scaling0);
  auto opt_scaling1 = make_optimizer(scaling1);
  GradScaler scaler = make_scaler();

  auto run = [&](Sequential& model0, Sequential& model1, Optimizer& opt0, Optimizer& opt1,
                 bool try_scaling_api) {
    for (size_t i = 0; i < data.size(); ++i) {
      opt0.zero_grad();
      opt1.zero_grad();
      const at::Tensor out0 = model0->forward(data[i].input);
      const at::Tensor out1 = model1->forward(data[i].input);
      const at::Tensor loss0 = mse(0.3 * out0 + 0.7 * out1, data[i].target);
      const at::Tensor loss1 = mse(0.6 * out0 - 0.4 * out1, data[i].target);
      const bool inject = i == kSkipIter && scaler.is_enabled();
      if (try_scaling_api) {
        scaler.scale(loss0).backward({}, /*retain_graph=*/true);
        scaler.scale(loss1).backward();
        if (inject) break_grads(model1);
        scaler.unscale_(opt0);
        EXPECT_TRUE(scaler.step(opt0));
        EXPECT_EQ(scaler.step(opt1), !inject);
        scaler.update();
      } else {
        loss0.backward({}, /*retain_graph=*/true);
        loss1.backward();
        opt0.step();
        if (!inject) opt1.step();
      }
    }
  };
  run(control0, control1, *opt_control0, *opt_control1, false);
  run(scaling0, scaling1, *opt_scaling0, *opt_scaling1, true);

  expect_scale(scaler, 3, 1);
  expect_match(control0, scaling0, *opt_control0, *opt_scaling0);
  expect_match(control1, scaling1, *opt_control1, *opt_scaling1);
}

std::vector<ScalingParam> all_params() {
  std::vector<ScalingParam> params;
  for (const std::string& device : testing_util::test_devices()) {
    for (OptimizerKind kind : {OptimizerKind::kSGD, OptimizerKind::kAdam, OptimizerKind::kAdamW}) {
      for (bool enabled : {true, false}) params.push_back({device, kind, enabled});
    }
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Conformance, GradScalingCase, testing::ValuesIn(all_params()),
                         scaling_param_name);

}  // namespace
}  // namespace ampbench::amp
