// The three optimizer implementations against each other, and the fused
// path's device-side skip through the GradScaler.
#include "optim/optimizers.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <iostream>

#include "amp/grad_scaler.h"
#include "optim/clip.h"

namespace ampbench::optim {
namespace {

// Deterministic parameters and gradients (no RNG): sin of a ramp.
std::vector<at::Tensor> params_like_a_model() {
  std::vector<at::Tensor> out;
  for (int64_t n : {4096, 64, 1024, 8}) out.push_back(at::sin(at::arange(n, at::kFloat) * 0.37 + 0.1) * 0.2);
  for (at::Tensor& p : out) p.requires_grad_(true);
  return out;
}

void set_grads(const std::vector<at::Tensor>& params, int step, double scale = 1.0) {
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor g = at::cos(at::arange(params[i].numel(), at::kFloat) * (0.11 + 0.01 * step) + i) * 0.05;
    params[i].mutable_grad() = (g * scale).reshape_as(params[i]);
  }
}

// Largest distance between two runs in float32 ulps of each tensor's largest
// magnitude: an element that crosses zero has no meaningful ulp of its own.
double max_ulps(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double diff = (a[i] - b[i]).abs().max().item<double>();
    const double ulp = b[i].abs().max().item<double>() * std::ldexp(1.0, -23);
    worst = std::max(worst, diff / ulp);
  }
  return worst;
}

std::vector<at::Tensor> train(Kind name, Impl impl, int steps) {
  std::vector<at::Tensor> params = params_like_a_model();
  auto opt = make_optimizer(name, impl, params, name == Kind::kSgd ? 0.05 : 0.003);
  for (int t = 0; t < steps; ++t) {
    set_grads(params, t);
    opt->step();
  }
  std::vector<at::Tensor> out;
  for (const at::Tensor& p : params) out.push_back(p.detach().clone());
  return out;
}

TEST(Optimizers, ForeachAndFusedAgreeWithTheLoopToAFewUlps) {
  for (const Kind name : {Kind::kSgd, Kind::kAdamW}) {
    const auto loop = train(name, Impl::kLoop, 20);
    const double foreach = max_ulps(train(name, Impl::kForeach, 20), loop);
    const double fused = max_ulps(train(name, Impl::kFused, 20), loop);
    std::cout << to_string(name) << " after 20 steps, max distance from the loop: foreach " << foreach << " ulp, fused " << fused
              << " ulp\n";
    EXPECT_LE(foreach, 4) << to_string(name);
    EXPECT_LE(fused, 4) << to_string(name);
    // A different update (another learning rate) is thousands of ulps away:
    // the bound has teeth.
    std::vector<at::Tensor> params = params_like_a_model();
    auto other = make_optimizer(name, Impl::kFused, params, name == Kind::kSgd ? 0.051 : 0.00306);
    for (int t = 0; t < 20; ++t) {
      set_grads(params, t);
      other->step();
    }
    EXPECT_GT(max_ulps(params, loop), 1000) << to_string(name);
  }
}

TEST(Optimizers, UnknownNamesAndUnsupportedOptionsAreRefusedByName) {
  EXPECT_THROW(parse_impl("vectorized"), std::invalid_argument);
  EXPECT_EQ(parse_impl("fused"), Impl::kFused);
  std::vector<at::Tensor> params = params_like_a_model();
  try {
    ForeachSGD(params, torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
    FAIL() << "nesterov accepted";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nesterov"), std::string::npos);
  }
}

// Through the GradScaler: an inf skips the fused step on the device (no
// parameter or moment changes, the step count is taken back), and a finite
// step equals unscale-then-step bitwise with a power-of-two scale.
TEST(Optimizers, TheFusedAdamWSkipsAnInfOnTheDeviceAndTakesItsStepCountBack) {
  std::vector<at::Tensor> fused_params = params_like_a_model(), loop_params = params_like_a_model();
  FusedAdamW fused(fused_params, torch::optim::AdamWOptions(0.003).weight_decay(0.01));
  FusedAdamW reference(loop_params, torch::optim::AdamWOptions(0.003).weight_decay(0.01));
  amp::GradScaler scaler(amp::GradScalerOptions().init_scale(1024));
  scaler.scale(at::ones({}));
  const std::vector<at::Tensor> before = {fused_params[0].detach().clone()};
  set_grads(fused_params, 0, 1024);
  fused_params[1].mutable_grad().view(-1)[3].fill_(INFINITY);
  scaler.step_without_sync(fused);
  scaler.update();
  EXPECT_TRUE(at::equal(fused_params[0].detach(), before[0])) << "a step with an inf changed the parameters";
  EXPECT_EQ(scaler.get_scale(), 512);

  // Next iteration, finite: the scaler's device path against a plain step on
  // unscaled gradients, both as a first step (the count was taken back).
  set_grads(fused_params, 1, 512);
  EXPECT_TRUE(scaler.step(fused));
  scaler.update();
  set_grads(loop_params, 1);
  reference.step();
  for (size_t i = 0; i < fused_params.size(); ++i)
    EXPECT_TRUE(at::equal(fused_params[i].detach(), loop_params[i].detach())) << "parameter " << i;
}

TEST(Optimizers, DeviceClipMatchesTheNormItReportsAndBoundsIt) {
  std::vector<at::Tensor> params = params_like_a_model();
  set_grads(params, 0);
  double sum = 0;
  for (const at::Tensor& p : params) sum += p.grad().to(at::kDouble).pow(2).sum().item<double>();
  const double max_norm = 0.25 * std::sqrt(sum);
  const at::Tensor total = clip_grad_norm_on_device(params, max_norm);
  EXPECT_NEAR(total.item<double>(), std::sqrt(sum), 1e-5 * std::sqrt(sum));
  double after = 0;
  for (const at::Tensor& p : params) after += p.grad().to(at::kDouble).pow(2).sum().item<double>();
  EXPECT_NEAR(std::sqrt(after), max_norm, 1e-5 * max_norm);
  // Below the limit nothing changes (the coefficient clamps at 1).
  const at::Tensor g = params[0].grad().clone();
  clip_grad_norm_on_device(params, 100 * max_norm);
  EXPECT_TRUE(at::equal(params[0].grad(), g));
}

}  // namespace
}  // namespace ampbench::optim
