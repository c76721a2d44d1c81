// SGD with momentum and AdamW in the three implementations Python offers,
// as a case dimension ("optimizer_impl"):
//   loop     LibTorch's torch::optim::SGD / AdamW: per-parameter ops (Python's
//            foreach=False);
//   foreach  one multi-tensor op per stage (torch._foreach_*), op for op the
//            ones torch.optim's _multi_tensor_sgd / _multi_tensor_adamw run;
//   fused    one kernel per step (at::_fused_sgd_ / at::_fused_adamw_), which
//            also takes the GradScaler's scale and inf flag on the device.
// All three keep their state in LibTorch's SGDParamState / AdamWParamState,
// so runs are compared element by element whatever the implementation.
#pragma once

#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <memory>
#include <string>
#include <vector>

#include "amp/amp_scaling_optimizer.h"
#include "optim/impl.h"

namespace ampbench::optim {

// Momentum buffers start at zero and every step is a "later" step: the same
// update as the first-step special case (0.9 * 0 + g == g exactly), without
// Python's fused SGD hazard (a skipped first step leaves empty_like buffers
// that the next step reads).
class ForeachSGD : public torch::optim::Optimizer {
 public:
  ForeachSGD(const std::vector<at::Tensor>& params, torch::optim::SGDOptions options);
  at::Tensor step(LossClosure closure = nullptr) override;
};

class FusedSGD : public torch::optim::Optimizer, public amp::AmpScalingOptimizer {
 public:
  FusedSGD(const std::vector<at::Tensor>& params, torch::optim::SGDOptions options);
  at::Tensor step(LossClosure closure = nullptr) override;
  void step_with_amp(const at::Tensor& grad_scale, const at::Tensor& found_inf) override;
};

class ForeachAdamW : public torch::optim::Optimizer {
 public:
  ForeachAdamW(const std::vector<at::Tensor>& params, torch::optim::AdamWOptions options);
  at::Tensor step(LossClosure closure = nullptr) override;
};

class FusedAdamW : public torch::optim::Optimizer, public amp::AmpScalingOptimizer {
 public:
  FusedAdamW(const std::vector<at::Tensor>& params, torch::optim::AdamWOptions options);
  at::Tensor step(LossClosure closure = nullptr) override;
  void step_with_amp(const at::Tensor& grad_scale, const at::Tensor& found_inf) override;
  // Per parameter, in order: the kernel's step counts (checkpoints save them).
  const std::vector<at::Tensor>& step_counts() const { return steps_; }

 private:
  std::vector<at::Tensor> steps_;  // per parameter, float32 on its device (the kernel's state_steps)
};

// "sgd" (momentum 0.9) or "adamw" (weight decay 0.01) at `lr`, in `impl`.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(Kind kind, Impl impl,
                                                        const std::vector<at::Tensor>& params, double lr);

}  // namespace ampbench::optim
