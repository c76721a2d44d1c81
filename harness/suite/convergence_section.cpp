#include "suite/convergence_section.h"

#include <set>

#include "spec/workload_traits.h"

namespace ampbench {

namespace suite_detail {

ConvergenceSettings read_convergence(Reader r) {
  ConvergenceSettings c;
  c.dataset = r.get<std::string>("dataset", c.dataset);
  if (c.dataset != "digits") r.fail("dataset", "unknown dataset '" + c.dataset + "' (known: digits)");
  c.data_file = dataset_path(c.dataset);
  const auto seeds = r.require<std::vector<int64_t>>("seeds");
  std::set<int64_t> distinct;
  for (const int64_t s : seeds) {
    if (s < 0 || s > (int64_t{1} << 40)) r.fail("seeds", "a seed must be in [0, 2^40], got " + std::to_string(s));
    if (!distinct.insert(s).second) r.fail("seeds", "seed " + std::to_string(s) + " is listed twice");
    c.seeds.push_back(static_cast<std::uint64_t>(s));
  }
  if (static_cast<int>(c.seeds.size()) < kConvergenceMinSeeds)
    r.fail("seeds", std::to_string(c.seeds.size()) + " seeds are too few for the test: the fp32 reference needs at least " +
                        std::to_string(kConvergenceMinSeeds) + " (" + std::to_string(kConvergenceMinSeeds - 2 * kConvergenceTrim) +
                        " after dropping the best and the worst)");
  c.warmup_steps = r.get("warmup_steps", c.warmup_steps);
  if (c.warmup_steps < 0) r.fail("warmup_steps", "must be >= 0");
  c.eval_every = r.get("eval_every", c.eval_every);
  if (c.eval_every < 1) r.fail("eval_every", "must be >= 1");
  c.target_accuracy = r.get("target_accuracy", c.target_accuracy);
  if (!(c.target_accuracy > 0) || !(c.target_accuracy < 1))
    r.fail("target_accuracy", "must be in (0, 1): an accuracy of 1 cannot be told from overfitting the split");
  c.alpha = r.get("alpha", c.alpha);
  if (!(c.alpha > 0) || !(c.alpha < 0.5)) r.fail("alpha", "must be in (0, 0.5)");
  c.accuracy_band = r.get("accuracy_band", c.accuracy_band);
  if (!(c.accuracy_band > 0) || !(c.accuracy_band < 1)) r.fail("accuracy_band", "must be in (0, 1)");
  c.max_epochs = r.get("max_epochs", c.max_epochs);
  if (c.max_epochs < 1) r.fail("max_epochs", "must be >= 1");
  c.stop_caught_controls = r.get("stop_caught_controls", c.stop_caught_controls);
  r.reject_unknown_keys();
  return c;
}

}  // namespace suite_detail

namespace {

[[noreturn]] void refuse(const std::string& path, const CaseSpec& c, const std::string& why) {
  throw SuiteError(path + ": case " + c.id + ": " + why);
}

// The precision whose mistake each long-horizon control makes.
std::string control_refusal(const CaseSpec& c) {
  const Precision p = c.precision.precision();
  switch (c.variant) {
    case Control::kFp16WeightsNoMaster:
      return p == Precision::kO2 ? "" : "fp16_weights_no_master drops O2's master weights: it needs precision o2";
    case Control::kBf16WeightsNoMaster:
      return p == Precision::kBf16 ? "" : "bf16_weights_no_master needs precision bf16";
    case Control::kScalerGrowthOff:
      return c.scaler_enabled ? "" : "scaler_growth_off needs a GradScaler (precision fp16 or o2)";
    case Control::kScaleNeverRecovers:
      if (!c.scaler_enabled) return "scale_never_recovers needs a GradScaler (precision fp16 or o2)";
      return c.inject_inf_step >= 0 ? "" : "scale_never_recovers needs an \"inject_inf_step\" (the overflow)";
    default: return "";
  }
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// A sample is the dataset's features in a row, or its grey image as one
// channel, or as three equal channels (torchvision's Grayscale with
// num_output_channels=3, how a grey image meets an RGB model such as the
// ViT): the same pixels in the same order, so every model trains on
// identical data.
bool takes_samples(const std::vector<int64_t>& shape, const Dataset& data) {
  if (shape.size() == 1) return shape[0] == data.features;
  return shape.size() == 3 && data.image.size() == 2 && (shape[0] == 1 || shape[0] == 3) &&
         shape[1] == data.image[0] && shape[2] == data.image[1];
}

// The shapes that take the dataset's samples, for a refusal.
std::string accepted_shapes(const Dataset& data) {
  const std::string f = std::to_string(data.features);
  std::string accepted = "[" + f + "] (an mlp with in_features " + f + ")";
  if (data.image.size() != 2) return accepted;
  const std::string h = std::to_string(data.image[0]), w = std::to_string(data.image[1]);
  return accepted + " or its image as one channel, [1, " + h + ", " + w + "]" +
         (h == w ? " (a cnn with in_channels 1 and image " + h + ")" : "") + ", or as three equal channels, [3, " + h +
         ", " + w + "]" + (h == w ? " (a vit with image " + h + ")" : "");
}

std::string samples_refusal(const CaseSpec& c, const Dataset& data) {
  const ModelFamily& m = *c.model;
  const std::vector<int64_t> shape = m.sample_shape(c.sizes);
  if (m.input == InputKind::kFloat && m.target == TargetKind::kClass && takes_samples(shape, data)) return "";
  const std::string what = m.input == InputKind::kFloat ? "samples" : "token ids";
  return "model " + m.name + " takes " + what + " of shape " + shape_text(shape) + ", not dataset " + data.name + "'s (" +
         std::to_string(data.features) + " float features, one class each): a converge case's model takes " +
         accepted_shapes(data);
}

}  // namespace

bool has_convergence_cases(const std::vector<CaseSpec>& cases) {
  for (const CaseSpec& c : cases)
    if (c.convergence) return true;
  return false;
}

void check_convergence_cases(const std::vector<CaseSpec>& cases, const std::string& path) {
  for (const CaseSpec& c : cases) {
    if (!c.convergence) continue;
    const ConvergenceSettings& s = *c.convergence;
    if (c.steps % s.eval_every != 0)
      refuse(path, c, "steps (" + std::to_string(c.steps) + ") must be a multiple of convergence.eval_every (" +
                          std::to_string(s.eval_every) + "), so the last step is evaluated");
    if (s.warmup_steps >= c.steps)
      refuse(path, c, "convergence.warmup_steps (" + std::to_string(s.warmup_steps) + ") must be below steps (" +
                          std::to_string(c.steps) + ")");
    if (c.cosine_schedule) refuse(path, c, "a converge case has its own schedule (warm-up + cosine): drop cosine_schedule");
    if (const std::string why = control_refusal(c); !why.empty()) refuse(path, c, why);
    if (c.is_baseline()) continue;
    // The reference is shared (case_list.cpp): a case may differ from it only
    // in its precision and its mistake.
    for (const CaseSpec& b : cases)
      if (b.id == c.baseline_id &&
          (b.steps != c.steps || b.lr != c.lr || b.sizes.batch != c.sizes.batch || b.seed != c.seed))
        refuse(path, c, "a converge case must keep its fp32 reference's steps, lr, batch and seed (" + b.id + ")");
  }
}

void check_convergence_data(const std::vector<CaseSpec>& cases, const Dataset& data, const std::string& path) {
  for (const CaseSpec& c : cases) {
    if (!c.convergence) continue;
    const ModelFamily& m = *c.model;
    if (const std::string why = samples_refusal(c, data); !why.empty()) refuse(path, c, why);
    if (c.sizes.classes != data.classes)
      refuse(path, c, "model " + m.name + " has " + std::to_string(c.sizes.classes) + " classes, dataset " + data.name +
                          " has " + std::to_string(data.classes));
    const int64_t train = data.train.size();
    if (c.sizes.batch > train)
      refuse(path, c, "batch " + std::to_string(c.sizes.batch) + " exceeds the " + std::to_string(train) +
                          " training samples of " + data.name);
    const double epochs = static_cast<double>(c.steps) * c.sizes.batch / static_cast<double>(train);
    if (epochs > c.convergence->max_epochs)
      refuse(path, c, "the schedule is longer than the dataset allows: " + std::to_string(c.steps) + " steps of batch " +
                          std::to_string(c.sizes.batch) + " are " + std::to_string(epochs) + " epochs of " +
                          std::to_string(train) + " training samples, more than convergence.max_epochs (" +
                          std::to_string(c.convergence->max_epochs) + ")");
  }
}

}  // namespace ampbench
