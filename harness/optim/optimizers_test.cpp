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

double default_lr(Kind kind) { return kind == Kind::kSgd ? 0.05 : 0.003; }

std::vector<at::Tensor> train(Kind name, Impl impl, int steps, const Settings& settings, double lr) {
  std::vector<at::Tensor> params = params_like_a_model();
  auto opt = make_optimizer(name, impl, params, lr, settings);
  for (int t = 0; t < steps; ++t) {
    set_grads(params, t);
    opt->step();
  }
  std::vector<at::Tensor> out;
  for (const at::Tensor& p : params) out.push_back(p.detach().clone());
  return out;
}

struct Variant {
  Kind kind;
  Settings settings;
  const char* what;
};

// torch.optim's keyword arguments beyond the defaults: each implementation
// must honour every one of them the same way.
std::vector<Variant> variants() {
  std::vector<Variant> out;
  for (Kind kind : {Kind::kSgd, Kind::kAdam, Kind::kAdamW}) out.push_back({kind, default_settings(kind), "defaults"});
  Settings s = default_settings(Kind::kSgd);
  s.momentum = 0;
  out.push_back({Kind::kSgd, s, "momentum 0"});
  s = default_settings(Kind::kSgd);
  s.nesterov = true;
  s.weight_decay = 0.01;
  out.push_back({Kind::kSgd, s, "nesterov, weight_decay 0.01"});
  s = default_settings(Kind::kSgd);
  s.dampening = 0.5;
  out.push_back({Kind::kSgd, s, "dampening 0.5"});
  s.weight_decay = 0.01;
  out.push_back({Kind::kSgd, s, "dampening 0.5, weight_decay 0.01"});
  s = default_settings(Kind::kAdam);
  s.weight_decay = 0.01;
  s.amsgrad = true;
  s.beta1 = 0.8;
  s.eps = 1e-6;
  out.push_back({Kind::kAdam, s, "L2 weight_decay 0.01, amsgrad, beta1 0.8, eps 1e-6"});
  s = default_settings(Kind::kAdamW);
  s.amsgrad = true;
  s.beta2 = 0.99;
  out.push_back({Kind::kAdamW, s, "amsgrad, beta2 0.99"});
  return out;
}

TEST(Optimizers, ForeachAndFusedAgreeWithTheLoopToAFewUlps) {
  for (const Variant& v : variants()) {
    const std::string name = to_string(v.kind) + " (" + v.what + ")";
    const double lr = default_lr(v.kind);
    const auto loop = train(v.kind, Impl::kLoop, 20, v.settings, lr);
    const double foreach = max_ulps(train(v.kind, Impl::kForeach, 20, v.settings, lr), loop);
    const double fused = max_ulps(train(v.kind, Impl::kFused, 20, v.settings, lr), loop);
    std::cout << name << " after 20 steps, max distance from the loop: foreach " << foreach << " ulp, fused " << fused
              << " ulp\n";
    EXPECT_LE(foreach, 4) << name;
    EXPECT_LE(fused, 4) << name;
    // A different update (another learning rate) is thousands of ulps away:
    // the bound has teeth.
    EXPECT_GT(max_ulps(train(v.kind, Impl::kFused, 20, v.settings, lr * 1.02), loop), 1000) << name;
  }
}

// Each setting changes the update: one silently ignored would pass the
// agreement test above on all three implementations alike.
TEST(Optimizers, EverySettingChangesTheUpdate) {
  for (const Variant& v : variants()) {
    if (std::string(v.what) == "defaults") continue;
    for (Impl impl : {Impl::kLoop, Impl::kForeach, Impl::kFused}) {
      const double lr = default_lr(v.kind);
      const double moved = max_ulps(train(v.kind, impl, 20, v.settings, lr),
                                    train(v.kind, impl, 20, default_settings(v.kind), lr));
      EXPECT_GT(moved, 1000) << to_string(v.kind) << " (" << v.what << ") in " << to_string(impl);
    }
  }
}

TEST(Optimizers, UnknownNamesAndImpossibleSettingsAreRefusedByName) {
  EXPECT_THROW(parse_impl("vectorized"), std::invalid_argument);
  EXPECT_EQ(parse_impl("fused"), Impl::kFused);
  EXPECT_EQ(parse_kind("adam"), Kind::kAdam);
  EXPECT_FALSE(parse_kind("lamb"));
  Settings s = default_settings(Kind::kSgd);
  s.momentum = 0;
  s.nesterov = true;
  EXPECT_NE(settings_refusal(Kind::kSgd, s).find("nesterov"), std::string::npos);
  s = default_settings(Kind::kAdam);
  s.beta2 = 1.0;
  EXPECT_NE(settings_refusal(Kind::kAdam, s).find("betas"), std::string::npos);
  EXPECT_EQ(settings_refusal(Kind::kAdamW, default_settings(Kind::kAdamW)), "");
  EXPECT_EQ(default_settings(Kind::kAdamW).weight_decay, 0.01);
  EXPECT_EQ(default_settings(Kind::kAdam).weight_decay, 0);
}

// Through the GradScaler: an inf skips the fused step on the device (no
// parameter or moment changes, the step count is taken back), and a finite
// step equals unscale-then-step bitwise with a power-of-two scale.
TEST(Optimizers, TheFusedAdamWSkipsAnInfOnTheDeviceAndTakesItsStepCountBack) {
  std::vector<at::Tensor> fused_params = params_like_a_model(), loop_params = params_like_a_model();
  FusedAdam fused(fused_params, torch::optim::AdamWOptions(0.003).weight_decay(0.01), /*decoupled=*/true);
  FusedAdam reference(loop_params, torch::optim::AdamWOptions(0.003).weight_decay(0.01), /*decoupled=*/true);
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

// A damped SGD's first step copies the gradient into the new buffer; a first
// step the scaler skips must leave no buffer, so the next one is the first.
// The loop implementation is simply not called on a skipped step.
TEST(Optimizers, TheFusedSGDsSkippedFirstStepLeavesTheNextOneFirst) {
  Settings s = default_settings(Kind::kSgd);
  s.dampening = 0.5;
  auto options = [&] { return torch::optim::SGDOptions(0.05).momentum(s.momentum).dampening(s.dampening); };
  std::vector<at::Tensor> fused_params = params_like_a_model(), loop_params = params_like_a_model();
  FusedSGD fused(fused_params, options());
  torch::optim::SGD loop(loop_params, options());
  for (int t = 0; t < 3; ++t) {
    set_grads(fused_params, t);
    set_grads(loop_params, t);
    if (t == 0) {
      fused.step_with_amp(at::ones({}), at::ones({}));  // the inf flag set: skipped on the device
      EXPECT_TRUE(fused.state().empty()) << "a skipped first step made momentum buffers";
      continue;
    }
    fused.step();
    loop.step();
  }
  EXPECT_LE(max_ulps(fused_params, loop_params), 4);
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
