#include "workloads/training_state.h"
#include "workloads/workload.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/cross_entropy_loss.h>
#include <ATen/ops/rand.h>
#include <torch/nn/functional/loss.h>

#include "optim/optimizers.h"
#include "workloads/forward_rng.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>


namespace ampbench {

std::vector<at::Tensor> TrainingState::trained(size_t model) const {
  return masters.empty() ? models.at(model).parameters() : masters.at(model).params();
}

std::vector<std::pair<std::string, at::Tensor>> TrainingState::named_trained(size_t model) const {
  const std::vector<at::Tensor> tensors = trained(model);
  const std::vector<std::string> names = models.at(model).module->named_parameters().keys();
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (size_t k = 0; k < tensors.size(); ++k) out.emplace_back(names[k], tensors[k]);
  return out;
}

std::vector<at::Tensor> TrainingState::parameters() const {
  std::vector<at::Tensor> params;
  for (size_t i = 0; i < models.size(); ++i) {
    for (const at::Tensor& p : trained(i)) params.push_back(p);
  }
  return params;
}

amp::GradScalerOptions scaler_options(const CaseSpec& spec) {
  return amp::GradScalerOptions()
      .init_scale(spec.scaler.init_scale)
      .growth_factor(spec.scaler.growth_factor)
      .backoff_factor(spec.scaler.backoff_factor)
      .growth_interval(spec.scaler.growth_interval)
      .enabled(spec.scaler_enabled);
}

namespace {

void attach_fp8_recipe(TrainingState& s, Model& model, const Fp8Settings& fp8) {
  Fp8Plan plan = plan_fp8(*model.module, fp8.conversion);
  if (!plan.refusal.empty()) throw std::invalid_argument(s.spec.precision.name() + ": " + plan.refusal);
  s.fp8_states.push_back(attach_fp8(*model.module, plan.layers, fp8.recipe));
  s.fp8_plans.push_back(std::move(plan));
}

}  // namespace

std::unique_ptr<TrainingState> make_training_state(const CaseSpec& spec, const c10::Device& device,
                                                   distributed::Context* context) {
  auto s = std::unique_ptr<TrainingState>(
      new TrainingState{spec, device, {}, {}, {}, {}, {}, amp::GradScaler(scaler_options(spec)), 0});
  s->context = context;
  const int model_count = find_workload(spec.workload->name()).models();
  const PrecisionPolicy& policy = spec.precision;
  for (int i = 0; i < model_count; ++i) {
    Model model = make_model(*spec.model, spec.sizes, spec.seed + static_cast<std::uint64_t>(i), device);
    if (policy.master_weights()) s->masters.emplace_back(model.parameters());  // before the cast: float32
    if (policy.model_dtype() != at::kFloat) cast_model(model, policy.model_dtype(), policy.keeps_batchnorm_fp32());
    if (spec.fp8) attach_fp8_recipe(*s, model, *spec.fp8);
    s->models.push_back(std::move(model));
    s->optimizers.push_back(optim::make_optimizer(spec.optimizer, spec.optimizer_impl, s->trained(i), spec.lr,
                                                   spec.optimizer_settings));
  }
  if (spec.perturbation) {
    s->noise_rng = at::make_generator<at::CPUGeneratorImpl>(spec.perturbation->seed);
    if (spec.perturbation->noise != NoiseModel::kGrad) {
      const torch::NoGradGuard no_grad;
      perturb(*s, s->parameters());
    }
  }
  return s;
}

at::Tensor forward(TrainingState& s, const Model& model, const at::Tensor& inputs) {
  const std::unique_lock<std::mutex> rng = seed_next_forward(s);
  PrecisionAutocast autocast(s);
  return model(inputs);
}

at::Tensor loss_fn(TrainingState& s, const at::Tensor& out, const at::Tensor& labels) {
  PrecisionAutocast autocast(s);
  at::Tensor loss = training_loss(out, labels, s.spec.loss);
  return s.spec.loss_multiplier == 1.0 ? loss : loss * s.spec.loss_multiplier;
}

void collect_master_grads(TrainingState& s) {
  for (MasterWeights& m : s.masters) m.accumulate_grads();
}

bool inject_inf_if_due(TrainingState& s) {
  if (s.step_index != s.spec.inject_inf_step) return false;
  const size_t target = static_cast<size_t>(s.spec.inject_inf_optimizer);
  if (target >= s.optimizers.size())
    throw std::invalid_argument("inject_inf_optimizer " + std::to_string(target) + ": the " + s.spec.workload->name() +
                                " workload has " + std::to_string(s.optimizers.size()) + " optimizer(s)");
  const at::NoGradGuard no_grad;
  if (s.spec.inject_inf_param.empty()) {
    at::Tensor grad = s.optimizers[target]->param_groups().front().params().front().mutable_grad();
    if (grad.defined()) grad.view(-1)[0].fill_(std::numeric_limits<float>::infinity());
    return true;
  }
  for (auto& [name, p] : s.named_trained(target))
    if (name == s.spec.inject_inf_param) {
      if (p.mutable_grad().defined()) p.mutable_grad().fill_(std::numeric_limits<float>::infinity());
      return true;
    }
  throw std::invalid_argument("inject_inf_param '" + s.spec.inject_inf_param + "': model " + std::to_string(target) +
                              " has no parameter of that name");
}

namespace {

size_t optimizer_index(const TrainingState& s, const torch::optim::Optimizer& opt) {
  for (size_t i = 0; i < s.optimizers.size(); ++i)
    if (s.optimizers[i].get() == &opt) return i;
  throw std::logic_error("step_optimizer: optimizer does not belong to this training state");
}

bool forced_skip(const TrainingState& s, size_t index) {
  if (index >= s.spec.skip_steps.size()) return false;
  const std::vector<int>& steps = s.spec.skip_steps[index];
  return std::find(steps.begin(), steps.end(), s.step_index) != steps.end();
}

}  // namespace

void perturb(TrainingState& s, const std::vector<at::Tensor>& tensors) {
  if (!s.spec.perturbation) return;
  const double u = s.spec.perturbation->unit_roundoff;
  for (const at::Tensor& t : tensors) {
    if (!t.defined()) continue;
    // Drawn on the CPU from the replica's own generator: the same noise on
    // every device, and nothing shared with the data or weight seeds.
    const at::Tensor xi = at::rand(t.sizes(), s.noise_rng, at::TensorOptions().dtype(at::kFloat)) * 2 - 1;
    t.mul_((xi * u + 1).to(t.device(), t.scalar_type()));
  }
}

bool step_optimizer(TrainingState& s, torch::optim::Optimizer& opt, bool injected) {
  const size_t index = optimizer_index(s, opt);
  if (s.before_optimizer_step) s.before_optimizer_step(s);
  if (s.spec.perturbation && s.spec.perturbation->noise != NoiseModel::kInit) {
    std::vector<at::Tensor> grads;
    for (const auto& group : opt.param_groups())
      for (const at::Tensor& p : group.params()) grads.push_back(p.grad());
    perturb(s, grads);
  }
  bool stepped = false;
  if (!forced_skip(s, index) && !(injected && !s.scaler.is_enabled())) {
    if (s.record_engagement) {
      stepped = s.scaler.step(opt);
    } else {
      // Timed: whether it stepped is not read, so a fused optimizer skips on
      // the device without a host sync.
      s.scaler.step_without_sync(opt);
      stepped = true;
    }
  }
  // O2: the next forward runs on the (rounded) new masters; a skipped step
  // publishes the unchanged ones, which costs a copy and no host sync.
  if (index < s.masters.size()) s.masters[index].publish();
  if (s.optimizer_skipped.size() < s.optimizers.size()) s.optimizer_skipped.resize(s.optimizers.size(), false);
  if (!stepped) s.optimizer_skipped[index] = true;
  return stepped;
}

void apply_lr_schedule(TrainingState& s) {
  if (!s.spec.cosine_schedule) return;
  const double progress = static_cast<double>(s.step_index) / std::max(1, s.spec.steps);
  const double lr = s.spec.lr * 0.5 * (1.0 + std::cos(M_PI * progress));
  for (auto& opt : s.optimizers) {
    for (auto& group : opt->param_groups()) group.options().set_lr(lr);
  }
}

}  // namespace ampbench
