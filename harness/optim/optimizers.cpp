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

// The parameters with a gradient, split by whether their momentum buffer
// exists: torch.optim.SGD makes a buffer on a parameter's first step, as a
// copy of its gradient (undamped), and dampens only from the next step on.
struct SgdLists {
  std::vector<at::Tensor> params, grads, bufs;            // buffer exists
  std::vector<at::Tensor> new_params, new_grads;          // first step
  bool any() const { return !params.empty() || !new_params.empty(); }
};

SgdLists sgd_lists(torch::optim::OptimizerParamGroup& group,
                   ska::flat_hash_map<void*, std::unique_ptr<torch::optim::OptimizerParamState>>& state,
                   bool momentum) {
  SgdLists l;
  for (const at::Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    const auto it = state.find(p.unsafeGetTensorImpl());
    if (momentum && it == state.end()) {
      l.new_params.push_back(p);
      l.new_grads.push_back(p.grad());
      continue;
    }
    l.params.push_back(p);
    l.grads.push_back(p.grad());
    if (momentum) l.bufs.push_back(static_cast<SGDParamState&>(*it->second).momentum_buffer());
  }
  return l;
}

void keep_momentum_buffers(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& bufs,
                           ska::flat_hash_map<void*, std::unique_ptr<torch::optim::OptimizerParamState>>& state) {
  for (size_t i = 0; i < params.size(); ++i) {
    auto fresh = std::make_unique<SGDParamState>();
    fresh->momentum_buffer(bufs[i]);
    state[params[i].unsafeGetTensorImpl()] = std::move(fresh);
  }
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
    : Optimizer(one_group(params), std::make_unique<SGDOptions>(options)) {}

// torch.optim.sgd._multi_tensor_sgd, op for op, except that nesterov's sum is
// a new list: Python adds into the gradients in place, which the harness
// still reads after the step.
at::Tensor ForeachSGD::step(LossClosure closure) {
  TORCH_CHECK(!closure, "ForeachSGD::step: closures are not supported");
  at::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    SgdLists l = sgd_lists(group, state_, o.momentum() != 0);
    if (!l.any()) continue;
    std::vector<at::Tensor> params = l.params, grads = l.grads;
    params.insert(params.end(), l.new_params.begin(), l.new_params.end());
    grads.insert(grads.end(), l.new_grads.begin(), l.new_grads.end());
    if (o.weight_decay() != 0) grads = at::_foreach_add(grads, params, o.weight_decay());
    if (o.momentum() != 0) {
      const auto first_new = grads.begin() + static_cast<std::ptrdiff_t>(l.params.size());
      if (!l.bufs.empty()) {
        at::_foreach_mul_(l.bufs, o.momentum());
        at::_foreach_add_(l.bufs, std::vector<at::Tensor>(grads.begin(), first_new), 1 - o.dampening());
      }
      std::vector<at::Tensor> new_bufs;
      for (auto g = first_new; g != grads.end(); ++g) new_bufs.push_back(g->clone().detach());
      keep_momentum_buffers(l.new_params, new_bufs, state_);
      std::vector<at::Tensor> bufs = l.bufs;
      bufs.insert(bufs.end(), new_bufs.begin(), new_bufs.end());
      grads = o.nesterov() ? at::_foreach_add(grads, bufs, o.momentum()) : bufs;
    }
    at::_foreach_add_(params, grads, -o.lr());
  }
  return {};
}

FusedSGD::FusedSGD(const std::vector<at::Tensor>& params, SGDOptions options)
    : Optimizer(one_group(params), std::make_unique<SGDOptions>(options)) {}

at::Tensor FusedSGD::step(LossClosure closure) {
  TORCH_CHECK(!closure, "FusedSGD::step: closures are not supported");
  step_with_amp({}, {});
  return {};
}

// torch.optim.sgd._fused_sgd: a parameter's first step makes its buffer
// (the kernel's is_first_step copies the gradient into it), later steps
// update it. The buffers start at zero, not uninitialised as in Python, where
// a first step that the scaler skips leaves buffers the next step reads.
// Undamped, a zero buffer read as a later step gives the first step's update
// exactly (0.9 * 0 + g == g); damped it does not, so a damped first step
// reads the inf flag on the host, once, and leaves no buffer when skipped.
void FusedSGD::step_with_amp(const at::Tensor& grad_scale, const at::Tensor& found_inf) {
  at::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    SgdLists l = sgd_lists(group, state_, o.momentum() != 0);
    auto fused = [&](const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads,
                     const std::vector<at::Tensor>& bufs, bool first) {
      at::_fused_sgd_(params, grads, bufs, o.weight_decay(), o.momentum(), o.lr(), o.dampening(), o.nesterov(),
                      /*maximize=*/false, first, optional(grad_scale), optional(found_inf));
    };
    if (!l.params.empty()) fused(l.params, l.grads, l.bufs, /*first=*/false);
    if (l.new_params.empty()) continue;
    if (o.dampening() != 0 && found_inf.defined() && found_inf.item<double>() != 0) continue;
    std::vector<at::Tensor> bufs;
    for (const at::Tensor& p : l.new_params) bufs.push_back(at::zeros_like(p, at::MemoryFormat::Preserve));
    fused(l.new_params, l.new_grads, bufs, /*first=*/true);
    keep_momentum_buffers(l.new_params, bufs, state_);
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
