#include "runner/nonfinite.h"

#include <ATen/ops/isfinite.h>

#include <cmath>
#include <sstream>

#include "runner/runner.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

bool all_finite(const at::Tensor& t) { return !t.defined() || at::isfinite(t.detach()).all().item<bool>(); }

// "model0.fc2.weight" -> "model0.fc2".
std::string module_of(const std::string& parameter) { return parameter.substr(0, parameter.rfind('.')); }

std::vector<std::pair<std::string, at::Tensor>> named(const TrainingState& s, bool grads) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  // The trained tensors: O2's masters hold the collected gradients.
  for (size_t i = 0; i < s.models.size(); ++i)
    for (const auto& [name, t] : s.named_trained(i))
      out.emplace_back("model" + std::to_string(i) + "." + name, grads ? t.grad() : t);
  return out;
}

std::string first_nonfinite_parameter(const TrainingState& s) {
  for (const auto& [name, p] : named(s, false))
    if (!all_finite(p)) return module_of(name);
  return "";
}

std::string describe(double loss) {
  std::ostringstream out;
  out << loss;
  return out.str();
}

}  // namespace

bool has_unabsorbed_nonfinite(const CaseRecord& r) {
  if (r.nonfinite_values > 0) return true;
  for (size_t t = 0; t < r.loss.size(); ++t)
    if (!std::isfinite(r.loss[t]) && !(t < r.skipped.size() && r.skipped[t])) return true;
  return false;
}

std::string first_nonfinite_gradient(const std::vector<std::pair<std::string, at::Tensor>>& named_grads) {
  for (auto it = named_grads.rbegin(); it != named_grads.rend(); ++it)
    if (!all_finite(it->second)) return module_of(it->first);
  return "";
}

std::optional<NonfiniteDiagnosis> diagnose_nonfinite(const CaseSpec& spec, const c10::Device& device,
                                                     distributed::Context* context) {
  auto state = make_training_state(spec, device, context);
  TrainingState& s = *state;
  s.record_engagement = true;  // host syncs are fine here
  std::string gradient;  // this step's, from the hook
  s.before_optimizer_step = [&gradient](const TrainingState& st) {
    if (gradient.empty()) gradient = first_nonfinite_gradient(named(st, true));
  };
  const Workload& workload = find_workload(spec.workload->name());
  const SyntheticData data(data_options(spec), device);
  int cursor = 0;
  for (int step = 0; step < spec.steps; ++step) {
    s.step_index = step;
    apply_lr_schedule(s);
    gradient.clear();
    const StepOutcome outcome = workload.step(s, micro_batches(data, workload.micro_batches(spec), cursor, false));
    if (outcome.skipped) continue;  // the scaler absorbed it (or a skip by design)
    const double loss = outcome.loss.item<double>();
    if (!std::isfinite(loss))
      return NonfiniteDiagnosis{step, "forward: the loss is " + describe(loss) + " (before any gradient)"};
    if (!gradient.empty()) return NonfiniteDiagnosis{step, "backward: the gradient of " + gradient};
    if (const std::string module = first_nonfinite_parameter(s); !module.empty())
      return NonfiniteDiagnosis{step, "optimizer step: the parameters of " + module};
  }
  return std::nullopt;
}

}  // namespace ampbench
