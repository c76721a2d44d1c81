// What a workload's step operates on: models, optimizers, the precision
// policy and the GradScaler of one case, plus the few shared moves every
// recipe makes (forward under autocast, stepping through the scaler).
#pragma once

#include <torch/optim/optimizer.h>

#include <functional>
#include <memory>
#include <vector>

#include "amp/autocast_guard.h"
#include "amp/grad_scaler.h"
#include "data/synthetic_data.h"
#include "models/linear.h"
#include "models/model.h"
#include "spec/case_spec.h"
#include "workloads/master_weights.h"

namespace ampbench::distributed {
struct Context;
}  // namespace ampbench::distributed

namespace ampbench {

struct TrainingState {
  const CaseSpec& spec;
  c10::Device device;
  std::vector<Model> models;  // one, or two for the multi workload
  // O2: per model, the float32 weights its optimizer updates; empty otherwise.
  std::vector<MasterWeights> masters;
  // FP8 precisions: per model, the layers its recipe converts and each
  // converted layer's scaling state (empty otherwise).
  std::vector<Fp8Plan> fp8_plans;
  std::vector<std::vector<std::shared_ptr<fp8::Fp8LinearState>>> fp8_states;
  std::vector<std::unique_ptr<torch::optim::Optimizer>> optimizers;
  amp::GradScaler scaler;
  int step_index = 0;  // the optimizer step being taken (for injection, schedules)
  // Per optimizer: whether it skipped in the current iteration (set by
  // step_optimizer, cleared by the runner before each iteration).
  std::vector<bool> optimizer_skipped;
  // The recorded (conformance) run, not a timed one: steps also report what
  // their mechanism did (StepOutcome::engagement), which may sync the device.
  bool record_engagement = false;
  // A perturbed replica's noise source (spec.perturbation); undefined otherwise.
  at::Generator noise_rng;
  // The process group collective workloads (ddp) run over; owned by whoever
  // made it (the runner, or `ampbench run` as one rank), outliving the case.
  distributed::Context* context = nullptr;
  // The non-finite diagnosis re-run (runner/nonfinite.h): called after
  // backward, before every optimizer step; empty otherwise.
  std::function<void(const TrainingState&)> before_optimizer_step;
  // The step whose forwards forward_rng.h last seeded, and how many it has.
  int rng_step = -1;
  int forwards_in_step = 0;
  // A workload's own per-case objects (ddp: its DdpReplica and c10d Reducer),
  // owned here so they die with the case. Declared last: destroyed first,
  // before the models whose gradients they hook.
  std::shared_ptr<void> workload_extension = nullptr;  // (initializer: aggregate init may omit it)

  Model& model() { return models.front(); }
  torch::optim::Optimizer& optimizer() { return *optimizers.front(); }
  // The weights model i's optimizer updates: its O2 masters, or its own
  // parameters (what clipping, the records and checkpoints see).
  std::vector<at::Tensor> trained(size_t model) const;
  // trained(model) under the model's parameter names (the masters are in
  // the model's parameter order).
  std::vector<std::pair<std::string, at::Tensor>> named_trained(size_t model) const;
  // trained() of every model, in order.
  std::vector<at::Tensor> parameters() const;
};

// Builds models, optimizers and scaler for `spec` on `device`.
std::unique_ptr<TrainingState> make_training_state(const CaseSpec& spec, const c10::Device& device,
                                                   distributed::Context* context = nullptr);

// The scaler a case's policy calls for (disabled for fp32/bf16).
amp::GradScalerOptions scaler_options(const CaseSpec& spec);

// The precision's autocast region (none for fp32), as an RAII guard.
struct PrecisionAutocast : amp::AutocastGuard {
  explicit PrecisionAutocast(const TrainingState& s)
      : amp::AutocastGuard(s.device.type(), s.spec.precision.autocast_dtype(),
                           s.spec.precision.autocast_dtype().has_value()) {}
};

// out = model(x) inside the precision's autocast region.
at::Tensor forward(TrainingState& s, const Model& model, const at::Tensor& inputs);

// loss_fn(out, y), inside the autocast region; times the case's
// loss_multiplier (which makes gradients underflow float16 on purpose).
at::Tensor loss_fn(TrainingState& s, const at::Tensor& out, const at::Tensor& labels);

// The backward passes of this iteration are done (for one micro-batch, under
// accumulation): O2 adds the float16 model gradients into the float32 master
// gradients, which everything after (inf hook, unscale, clip, step) reads.
// Nothing to do for the other precisions.
void collect_master_grads(TrainingState& s);

// Test hook from PyTorch's grad-scaling tests: at spec.inject_inf_step an inf
// lands in the first gradient of optimizer spec.inject_inf_optimizer's
// parameters. Returns whether it did.
bool inject_inf_if_due(TrainingState& s);

// scaler.step(opt), except in a run without a scaler whose gradients were
// poisoned on purpose, or at a step listed for this optimizer in
// spec.skip_steps: there the step is skipped, as a scaler would have.
// Returns whether the optimizer stepped.
bool step_optimizer(TrainingState& s, torch::optim::Optimizer& opt, bool injected);

// A perturbed replica's rounding noise: multiplies every element of
// `tensors` by (1 + u * xi), xi uniform in [-1, 1] (the relative error of one
// round-to-nearest at unit roundoff u). No-op outside a replica.
void perturb(TrainingState& s, const std::vector<at::Tensor>& tensors);

// Applies the cosine schedule (when enabled) for the current step.
void apply_lr_schedule(TrainingState& s);

}  // namespace ampbench
