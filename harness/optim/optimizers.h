// SGD, Adam and AdamW in the three implementations Python offers, as a case
// dimension ("optimizer_impl"):
//   loop     LibTorch's torch::optim::SGD / Adam / AdamW: per-parameter ops
//            (Python's foreach=False);
//   foreach  one multi-tensor op per stage (torch._foreach_*), op for op the
//            ones torch.optim's _multi_tensor_sgd / _multi_tensor_adam run;
//   fused    one kernel per step (at::_fused_sgd_ / _fused_adam_ /
//            _fused_adamw_), which also takes the GradScaler's scale and inf
//            flag on the device.
// Their state is LibTorch's SGDParamState / AdamParamState / AdamWParamState,
// read through param_state() so runs are compared element by element
// whatever the implementation.
#pragma once

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "amp/amp_scaling_optimizer.h"
#include "optim/impl.h"

namespace ampbench::optim {

// As torch.optim.SGD: a parameter's momentum buffer is made on its first
// step as a copy of its gradient (undamped), and dampening applies from the
// second step on.
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

// Adam with L2 weight decay added to the gradients, or AdamW's decoupled
// decay (`decoupled`); the options are AdamW's, which hold the same fields.
class ForeachAdam : public torch::optim::Optimizer {
 public:
  ForeachAdam(const std::vector<at::Tensor>& params, torch::optim::AdamWOptions options, bool decoupled);
  at::Tensor step(LossClosure closure = nullptr) override;

 private:
  bool decoupled_;
};

class FusedAdam : public torch::optim::Optimizer, public amp::AmpScalingOptimizer {
 public:
  FusedAdam(const std::vector<at::Tensor>& params, torch::optim::AdamWOptions options, bool decoupled);
  at::Tensor step(LossClosure closure = nullptr) override;
  void step_with_amp(const at::Tensor& grad_scale, const at::Tensor& found_inf) override;
  // Per parameter, in order: the kernel's step counts (checkpoints save them).
  const std::vector<at::Tensor>& step_counts() const { return steps_; }

 private:
  std::vector<at::Tensor> steps_;  // per parameter, float32 on its device (the kernel's state_steps)
  bool decoupled_;
};

// One parameter's optimizer state, whichever class holds it (undefined
// tensors for what the optimizer does not keep).
struct ParamStateTensors {
  at::Tensor momentum_buffer;
  at::Tensor exp_avg, exp_avg_sq, max_exp_avg_sq;
  int64_t step = 0;
};
std::optional<ParamStateTensors> param_state(const torch::optim::OptimizerParamState& state);
// The state class `opt` reads, holding `t` (checkpoint restore).
std::unique_ptr<torch::optim::OptimizerParamState> make_param_state(const torch::optim::Optimizer& opt,
                                                                    const ParamStateTensors& t);

// `kind` at `lr` with `settings`, in `impl`.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(Kind kind, Impl impl, const std::vector<at::Tensor>& params,
                                                        double lr, const Settings& settings);

}  // namespace ampbench::optim
