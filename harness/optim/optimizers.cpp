#include "optim/optimizers.h"

#include <ATen/ops/_foreach_add.h>
#include <ATen/ops/_foreach_addcdiv.h>
#include <ATen/ops/_foreach_addcmul.h>
#include <ATen/ops/_foreach_div.h>
#include <ATen/ops/_foreach_lerp.h>
#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_foreach_sqrt.h>
#include <ATen/ops/_foreach_sub.h>
#include <ATen/ops/_foreach_maximum.h>
#include <ATen/ops/_fused_adam.h>
#include <ATen/ops/_fused_adamw.h>
#include <ATen/ops/_fused_sgd.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>

#include <cmath>
#include <stdexcept>

namespace ampbench::optim {
namespace {

using torch::optim::AdamOptions;
using torch::optim::AdamParamState;
using torch::optim::AdamWOptions;
using torch::optim::AdamWParamState;
using torch::optim::SGDOptions;
using torch::optim::SGDParamState;

std::vector<torch::optim::OptimizerParamGroup> one_group(const std::vector<at::Tensor>& params) {
  return {torch::optim::OptimizerParamGroup(params)};
}

// Momentum buffers at zero for every parameter, from the start (see
// ForeachSGD), as the Python oracle sets them.
void zero_momentum_buffers(const std::vector<at::Tensor>& params,
                           ska::flat_hash_map<void*, std::unique_ptr<torch::optim::OptimizerParamState>>& state) {
  for (const at::Tensor& p : params) {
    auto fresh = std::make_unique<SGDParamState>();
    fresh->momentum_buffer(at::zeros_like(p, at::MemoryFormat::Preserve));
    state[p.unsafeGetTensorImpl()] = std::move(fresh);
  }
}

// The parameters with a gradient and their momentum buffers.
struct SgdLists {
  std::vector<at::Tensor> params, grads, bufs;
};

SgdLists sgd_lists(torch::optim::OptimizerParamGroup& group,
                   ska::flat_hash_map<void*, std::unique_ptr<torch::optim::OptimizerParamState>>& state) {
  SgdLists l;
  for (const at::Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    l.params.push_back(p);
    l.grads.push_back(p.grad());
    if (const auto it = state.find(p.unsafeGetTensorImpl()); it != state.end())
      l.bufs.push_back(static_cast<SGDParamState&>(*it->second).momentum_buffer());
  }
  return l;
}

struct AdamLists {
  std::vector<at::Tensor> params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs;
  std::vector<AdamWParamState*> states;
};

AdamLists adam_lists(torch::optim::OptimizerParamGroup& group,
                     ska::flat_hash_map<void*, std::unique_ptr<torch::optim::OptimizerParamState>>& state,
                     bool amsgrad) {
  AdamLists l;
  for (const at::Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    auto& slot = state[p.unsafeGetTensorImpl()];
    if (!slot) {
      auto fresh = std::make_unique<AdamWParamState>();
      fresh->step(0);
      fresh->exp_avg(at::zeros_like(p, at::MemoryFormat::Preserve));
      fresh->exp_avg_sq(at::zeros_like(p, at::MemoryFormat::Preserve));
      if (amsgrad) fresh->max_exp_avg_sq(at::zeros_like(p, at::MemoryFormat::Preserve));
      slot = std::move(fresh);
    }
    auto& s = static_cast<AdamWParamState&>(*slot);
    l.params.push_back(p);
    l.grads.push_back(p.grad());
    l.exp_avgs.push_back(s.exp_avg());
    l.exp_avg_sqs.push_back(s.exp_avg_sq());
    if (amsgrad) l.max_exp_avg_sqs.push_back(s.max_exp_avg_sq());
    l.states.push_back(&s);
  }
  return l;
}

std::optional<at::Tensor> optional(const at::Tensor& t) { return t.defined() ? std::optional<at::Tensor>(t) : std::nullopt; }

}  // namespace

ForeachSGD::ForeachSGD(const std::vector<at::Tensor>& params, SGDOptions options)
    : Optimizer(one_group(params), std::make_unique<SGDOptions>(options)) {
  if (options.momentum() != 0) zero_momentum_buffers(params, state_);
}

// torch.optim.sgd._multi_tensor_sgd, op for op (the first momentum step
// aside: see ForeachSGD).
at::Tensor ForeachSGD::step(LossClosure closure) {
  TORCH_CHECK(!closure, "ForeachSGD::step: closures are not supported");
  at::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    SgdLists l = sgd_lists(group, state_);
    if (l.params.empty()) continue;
    std::vector<at::Tensor> grads = l.grads;
    if (o.weight_decay() != 0) grads = at::_foreach_add(grads, l.params, o.weight_decay());
    if (o.momentum() != 0) {
      at::_foreach_mul_(l.bufs, o.momentum());
      at::_foreach_add_(l.bufs, grads, 1 - o.dampening());
      grads = o.nesterov() ? at::_foreach_add(grads, l.bufs, o.momentum()) : l.bufs;
    }
    at::_foreach_add_(l.params, grads, -o.lr());
  }
  return {};
}

FusedSGD::FusedSGD(const std::vector<at::Tensor>& params, SGDOptions options)
    : Optimizer(one_group(params), std::make_unique<SGDOptions>(options)) {
  if (options.momentum() != 0) zero_momentum_buffers(params, state_);
}

at::Tensor FusedSGD::step(LossClosure closure) {
  TORCH_CHECK(!closure, "FusedSGD::step: closures are not supported");
  step_with_amp({}, {});
  return {};
}

void FusedSGD::step_with_amp(const at::Tensor& grad_scale, const at::Tensor& found_inf) {
  at::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    SgdLists l = sgd_lists(group, state_);
    if (l.params.empty()) continue;
    at::_fused_sgd_(l.params, l.grads, l.bufs, o.weight_decay(), o.momentum(), o.lr(), o.dampening(), o.nesterov(),
                    /*maximize=*/false, /*is_first_step=*/false, optional(grad_scale), optional(found_inf));
  }
}

ForeachAdam::ForeachAdam(const std::vector<at::Tensor>& params, AdamWOptions options, bool decoupled)
    : Optimizer(one_group(params), std::make_unique<AdamWOptions>(options)), decoupled_(decoupled) {}

// torch.optim.adam._multi_tensor_adam, not capturable: bias corrections in
// double on the host, as Python computes them.
at::Tensor ForeachAdam::step(LossClosure closure) {
  TORCH_CHECK(!closure, "ForeachAdam::step: closures are not supported");
  at::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdamWOptions&>(group.options());
    AdamLists l = adam_lists(group, state_, o.amsgrad());
    if (l.params.empty()) continue;
    const auto [beta1, beta2] = o.betas();
    std::vector<at::Tensor> grads = l.grads;
    if (o.weight_decay() != 0) {
      if (decoupled_) at::_foreach_mul_(l.params, 1 - o.lr() * o.weight_decay());
      else grads = at::_foreach_add(grads, l.params, o.weight_decay());
    }
    at::_foreach_lerp_(l.exp_avgs, grads, 1 - beta1);
    at::_foreach_mul_(l.exp_avg_sqs, beta2);
    at::_foreach_addcmul_(l.exp_avg_sqs, grads, grads, 1 - beta2);
    std::vector<at::Scalar> step_size, bias_correction2_sqrt;
    for (AdamWParamState* s : l.states) {
      s->step(s->step() + 1);
      const double step = static_cast<double>(s->step());
      step_size.emplace_back((o.lr() / (1 - std::pow(beta1, step))) * -1);
      bias_correction2_sqrt.emplace_back(std::pow(1 - std::pow(beta2, step), 0.5));
    }
    if (o.amsgrad()) at::_foreach_maximum_(l.max_exp_avg_sqs, l.exp_avg_sqs);
    std::vector<at::Tensor> denom = at::_foreach_sqrt(o.amsgrad() ? l.max_exp_avg_sqs : l.exp_avg_sqs);
    at::_foreach_div_(denom, bias_correction2_sqrt);
    at::_foreach_add_(denom, o.eps());
    at::_foreach_addcdiv_(l.params, l.exp_avgs, denom, step_size);
  }
  return {};
}

FusedAdam::FusedAdam(const std::vector<at::Tensor>& params, AdamWOptions options, bool decoupled)
    : Optimizer(one_group(params), std::make_unique<AdamWOptions>(options)), decoupled_(decoupled) {
  for (const at::Tensor& p : params) steps_.push_back(at::zeros({}, p.options().dtype(at::kFloat)));
}

at::Tensor FusedAdam::step(LossClosure closure) {
  TORCH_CHECK(!closure, "FusedAdam::step: closures are not supported");
  step_with_amp({}, {});
  return {};
}

// torch.optim.adam._fused_adam: the step counts are device tensors, advanced
// before the kernel and taken back on a skipped step.
void FusedAdam::step_with_amp(const at::Tensor& grad_scale, const at::Tensor& found_inf) {
  at::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdamWOptions&>(group.options());
    AdamLists l = adam_lists(group, state_, o.amsgrad());
    if (l.params.empty()) continue;
    std::vector<at::Tensor> steps;
    const std::vector<at::Tensor>& all = group.params();
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i].grad().defined()) steps.push_back(steps_.at(i));
    const auto [beta1, beta2] = o.betas();
    at::_foreach_add_(steps, 1);
    if (decoupled_)
      at::_fused_adamw_(l.params, l.grads, l.exp_avgs, l.exp_avg_sqs, l.max_exp_avg_sqs, steps, o.lr(), beta1, beta2,
                        o.weight_decay(), o.eps(), o.amsgrad(), /*maximize=*/false, optional(grad_scale),
                        optional(found_inf));
    else
      at::_fused_adam_(l.params, l.grads, l.exp_avgs, l.exp_avg_sqs, l.max_exp_avg_sqs, steps, o.lr(), beta1, beta2,
                       o.weight_decay(), o.eps(), o.amsgrad(), /*maximize=*/false, optional(grad_scale),
                       optional(found_inf));
    if (found_inf.defined()) at::_foreach_sub_(steps, std::vector<at::Tensor>(steps.size(), found_inf));
  }
}

namespace {

template <typename State>
ParamStateTensors adam_tensors(const State& s) {
  ParamStateTensors t;
  t.exp_avg = s.exp_avg();
  t.exp_avg_sq = s.exp_avg_sq();
  t.max_exp_avg_sq = s.max_exp_avg_sq();
  t.step = s.step();
  return t;
}

}  // namespace

std::optional<ParamStateTensors> param_state(const torch::optim::OptimizerParamState& state) {
  if (const auto* sgd = dynamic_cast<const SGDParamState*>(&state)) {
    ParamStateTensors t;
    t.momentum_buffer = sgd->momentum_buffer();
    return t;
  }
  if (const auto* w = dynamic_cast<const AdamWParamState*>(&state)) return adam_tensors(*w);
  if (const auto* a = dynamic_cast<const AdamParamState*>(&state)) return adam_tensors(*a);
  return std::nullopt;
}

namespace {

template <typename State>
std::unique_ptr<torch::optim::OptimizerParamState> adam_state(const ParamStateTensors& t) {
  auto st = std::make_unique<State>();
  st->exp_avg(t.exp_avg);
  st->exp_avg_sq(t.exp_avg_sq);
  if (t.max_exp_avg_sq.defined()) st->max_exp_avg_sq(t.max_exp_avg_sq);
  st->step(t.step);
  return st;
}

}  // namespace

std::unique_ptr<torch::optim::OptimizerParamState> make_param_state(const torch::optim::Optimizer& opt,
                                                                    const ParamStateTensors& t) {
  if (t.momentum_buffer.defined()) {
    auto st = std::make_unique<SGDParamState>();
    st->momentum_buffer(t.momentum_buffer);
    return st;
  }
  // LibTorch's Adam reads AdamParamState; every other Adam here AdamW's.
  if (dynamic_cast<const torch::optim::Adam*>(&opt)) return adam_state<AdamParamState>(t);
  return adam_state<AdamWParamState>(t);
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(Kind kind, Impl impl, const std::vector<at::Tensor>& params,
                                                        double lr, const Settings& s) {
  if (kind == Kind::kSgd) {
    const SGDOptions o =
        SGDOptions(lr).momentum(s.momentum).dampening(s.dampening).nesterov(s.nesterov).weight_decay(s.weight_decay);
    if (impl == Impl::kForeach) return std::make_unique<ForeachSGD>(params, o);
    if (impl == Impl::kFused) return std::make_unique<FusedSGD>(params, o);
    return std::make_unique<torch::optim::SGD>(params, o);
  }
  const AdamWOptions o = AdamWOptions(lr)
                             .betas({s.beta1, s.beta2})
                             .eps(s.eps)
                             .weight_decay(s.weight_decay)
                             .amsgrad(s.amsgrad);
  const bool decoupled = kind == Kind::kAdamW;
  if (impl == Impl::kForeach) return std::make_unique<ForeachAdam>(params, o, decoupled);
  if (impl == Impl::kFused) return std::make_unique<FusedAdam>(params, o, decoupled);
  if (decoupled) return std::make_unique<torch::optim::AdamW>(params, o);
  return std::make_unique<torch::optim::Adam>(
      params, AdamOptions(lr).betas({s.beta1, s.beta2}).eps(s.eps).weight_decay(s.weight_decay).amsgrad(s.amsgrad));
}

}  // namespace ampbench::optim
