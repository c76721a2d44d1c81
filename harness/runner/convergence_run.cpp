#include "runner/convergence_run.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/stack.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "spec/convergence_settings.h"
#include "spec/expect.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

constexpr int kNeverGrows = 2147483647;  // GradScaler's largest growth_interval

// The case as one seed trains it, with its long-horizon mistake set up.
CaseSpec seed_spec(const CaseSpec& spec, std::uint64_t seed) {
  CaseSpec run = spec;
  run.seed = seed;
  run.cosine_schedule = false;  // the warm-up + cosine schedule is set per step below
  switch (spec.variant) {
    case Control::kFp16WeightsNoMaster:
      // Negative control: O2 without its float32 masters trains the float16
      // weights themselves (O3's recipe), where a small update rounds away;
      // the suite reader already turned its GradScaler off.
      run.precision = PrecisionPolicy(Precision::kO3);
      break;
    case Control::kScalerGrowthOff:
    case Control::kScaleNeverRecovers:
      // Negative controls: a scale that never grows, from a small initial
      // scale or after backing off at the injected overflow.
      run.scaler.growth_interval = kNeverGrows;
      break;
    default: break;
  }
  return run;
}

struct Evaluation {
  double accuracy = 0;
  double loss = 0;
};

Evaluation evaluate(TrainingState& s, const LabelledSplit& split) {
  const torch::NoGradGuard no_grad;
  const at::Tensor x = split.x.to(s.device);
  const at::Tensor y = split.y.to(s.device);
  // BatchNorm normalises by its running statistics, as the trained model is
  // used, not by the held-out set's own (nor does evaluating update them).
  s.model().module->eval();
  const at::Tensor out = forward(s, s.model(), x).to(at::kFloat);
  s.model().module->train();
  Evaluation e;
  e.loss = at::cross_entropy_loss(out, y).item<double>();
  e.accuracy = at::argmax(out, 1).eq(y).to(at::kDouble).mean().item<double>();
  return e;
}

// Draws batches without replacement, reshuffling at every epoch, from the
// seed's own generator (the same sequence for every precision).
class EpochSampler {
 public:
  EpochSampler(const LabelledSplit& split, std::uint64_t seed, int batch)
      : split_(split), gen_(at::make_generator<at::CPUGeneratorImpl>(seed + 1000)), batch_(batch) {}
  Batch next(const c10::Device& device) {
    if (!order_.defined() || cursor_ + batch_ > order_.size(0)) {
      order_ = at::randperm(split_.size(), gen_);
      cursor_ = 0;
    }
    const at::Tensor idx = order_.slice(0, cursor_, cursor_ + batch_);
    cursor_ += batch_;
    return {split_.x.index_select(0, idx).to(device), split_.y.index_select(0, idx).to(device)};
  }

 private:
  const LabelledSplit& split_;
  at::Generator gen_;
  int batch_;
  at::Tensor order_;
  int64_t cursor_ = 0;
};

SeedCurve train_seed(const CaseSpec& spec, std::uint64_t seed, const Dataset& data, const c10::Device& device) {
  const CaseSpec run = seed_spec(spec, seed);
  const ConvergenceSettings& c = *spec.convergence;
  std::unique_ptr<TrainingState> s = make_training_state(run, device);
  // Not timed: each step reads whether the GradScaler skipped it (the timed
  // path does not sync to ask, and every step would count as taken).
  s->record_engagement = true;
  // Negative control: bfloat16 weights and optimizer state updated in place,
  // no float32 master copy (the optimizer already holds these tensors).
  if (spec.variant == Control::kBf16WeightsNoMaster) cast_model(s->model(), at::kBFloat16, false);
  const Workload& workload = find_workload(spec.workload->name());
  EpochSampler sampler(data.train, seed, spec.sizes.batch);
  SeedCurve curve;
  curve.seed = seed;
  std::vector<at::Tensor> losses;
  for (int step = 0; step < run.steps; ++step) {
    s->step_index = step;
    const double lr = convergence_lr(run.lr, step, run.steps, c.warmup_steps);
    for (auto& opt : s->optimizers)
      for (auto& group : opt->param_groups()) group.options().set_lr(lr);
    s->optimizer_skipped.assign(s->optimizers.size(), false);
    const StepOutcome outcome = workload.step(*s, {sampler.next(device)});
    losses.push_back(outcome.loss.to(at::kFloat));
    curve.skipped_steps += outcome.skipped ? 1 : 0;
    if ((step + 1) % c.eval_every != 0) continue;
    const Evaluation e = evaluate(*s, data.validation);
    curve.step.push_back(step + 1);
    curve.accuracy.push_back(e.accuracy);
    curve.loss.push_back(e.loss);
    curve.train_loss.push_back(at::stack(losses).mean().item<double>());
    curve.scale.push_back(s->scaler.get_scale());
    losses.clear();
    if (!curve.steps_to_target && e.accuracy >= c.target_accuracy) curve.steps_to_target = step + 1;
  }
  curve.final_accuracy = curve.accuracy.empty() ? 0 : curve.accuracy.back();
  return curve;
}

// The split in the model's sample shape ([n, 64] features, [n, 1, 8, 8]
// images or [n, 3, 8, 8] with the grey channel repeated,
// check_convergence_data): made once per case so that no step reshapes its
// batch.
LabelledSplit in_sample_shape(const LabelledSplit& split, const CaseSpec& spec) {
  std::vector<int64_t> shape = spec.model->sample_shape(spec.sizes);
  if (shape.size() == 1) return {split.x.view({split.size(), shape[0]}), split.y};
  const int64_t channels = shape[0];
  const at::Tensor grey = split.x.view({split.size(), 1, shape[1], shape[2]});
  return {grey.expand({split.size(), channels, shape[1], shape[2]}).contiguous(), split.y};
}

}  // namespace

double convergence_lr(double lr, int step, int steps, int warmup_steps) {
  if (step < warmup_steps) return lr * (step + 1) / warmup_steps;
  const double progress = static_cast<double>(step - warmup_steps) / std::max(1, steps - warmup_steps);
  return lr * 0.5 * (1.0 + std::cos(M_PI * progress));
}

ConvergenceRecord train_convergence(const CaseSpec& spec, const Dataset& data, const c10::Device& device) {
  ConvergenceRecord rec;
  rec.dataset = data.name;
  rec.data_sha256 = data.sha256;
  rec.train_size = data.train.size();
  rec.validation_size = data.validation.size();
  rec.target_accuracy = spec.convergence->target_accuracy;
  Dataset shaped = data;
  shaped.train = in_sample_shape(data.train, spec);
  shaped.validation = in_sample_shape(data.validation, spec);
  const bool may_stop = spec.expect == Expect::kFail && spec.convergence->stop_caught_controls;
  int missed = 0;
  for (const std::uint64_t seed : spec.convergence->seeds) {
    rec.seeds.push_back(train_seed(spec, seed, shaped, device));
    missed += rec.seeds.back().steps_to_target ? 0 : 1;
    rec.stopped_when_caught = may_stop && missed > kConvergenceMaxMissed && rec.seeds.size() < spec.convergence->seeds.size();
    if (rec.stopped_when_caught) break;
  }
  return rec;
}

}  // namespace ampbench
