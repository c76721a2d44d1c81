// The blocks of a suite file, each read and range-checked on its own:
// training settings (defaults and per case), scaler, model sizes,
// tolerances and envelope, throughput, engagement, gate. case_reader.cpp and
// suite.cpp put them together into cases.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "suite/suite.h"
#include "suite/suite_reader.h"

namespace ampbench::suite_detail {

// Upper bounds far beyond every suite in suites/ (at most 30 steps, batch
// 512, hidden 4096) and low enough that a typo cannot start a run of days or
// an allocation of terabytes (the memory estimate catches products).
inline constexpr int kMaxSteps = 100000;
inline constexpr int kMaxDimension = 1 << 20;  // any one model size, batch included
inline constexpr int kMaxWorldSize = 1024;     // the machine's own cap is checked at run time
inline constexpr int kMaxAccumulation = 1024;
inline constexpr int kMaxRepetitions = 1000;
inline constexpr double kMaxFactor = 1e6;      // lr, clipping thresholds, loss multiplier

bool contains(const std::vector<std::string>& names, const std::string& name);
std::string join(const std::vector<std::string>& names);
// A name that cannot steer a path: letters, digits, '.', '_', '-', not
// starting with '.', at most 128 characters.
bool is_plain_name(const std::string& name);
void require_known(Reader& r, const std::string& key, const std::string& value,
                   const std::vector<std::string>& known, const std::string& what);

ScalerSettings read_scaler(Reader r, ScalerSettings s);

std::map<std::string, optim::Settings> default_optimizer_settings();

// Per-case training settings that a suite's "defaults" sets and a case may
// override.
struct TrainingSettings {
  int steps = 10;
  std::uint64_t seed = 1;
  std::map<std::string, double> lr = {{"sgd", 0.05}, {"adam", 0.003}, {"adamw", 0.003}};
  bool cosine_schedule = false;
  int iters_to_accumulate = 2;
  double max_norm = 1.0;
  double clip_value = 0.05;
  double loss_multiplier = 1.0;
  int inject_inf_step = -1;
  int world_size = 1;  // dataparallel replicas; ddp ranks (a launch's own world size wins)
  int resume_at = -1;  // checkpoint, destroy and restore before this step
  optim::Impl optimizer_impl = optim::Impl::kLoop;  // part of the case id when not loop: no tag needed
  bool cuda_graph = false;                          // part of the case id ("+graph"): no tag needed
  ScalerSettings scaler;
  // By optimizer name: each optimizer's keyword arguments.
  std::map<std::string, optim::Settings> optimizer_settings = default_optimizer_settings();
  LossSettings loss;
  std::string inject_inf_param;  // "": the first element of the first gradient
  std::array<double, 4> multi_coefficients = CaseSpec{}.multi_coefficients;
};

// The keys of TrainingSettings (a case overriding one needs a tag).
extern const std::vector<std::string> kSettingKeys;

TrainingSettings read_settings(Reader& r, TrainingSettings s);
// The optimizer settings, loss, inf parameter and multi coefficients of
// `r` into `s` (suite/training_options.cpp).
void read_training_options(Reader& r, TrainingSettings& s);
// Why the case's loss or inf parameter cannot apply to its model, as
// {setting key, reason} ({} when they can).
std::pair<std::string, std::string> case_options_refusal(const CaseSpec& c);
ModelSizes read_sizes(Reader r, const ModelFamily& family);

// A "models" entry with a "torchscript" file (suite/scripted_models.cpp).
struct ScriptedEntry {
  std::shared_ptr<const ModelFamily> family;
  ModelSizes sizes;
};
bool is_scripted_entry(const json& entry);
// Loads the file (relative paths against the suite's folder) and checks it
// trains with `loss`; a bad file fails naming it and why.
ScriptedEntry read_scripted_model(Reader r, const std::string& name, const std::string& suite_path, LossKind loss);

struct ToleranceTable {
  std::map<std::string, ToleranceRule> by_precision;
  EnvelopeSettings envelope;
};

ToleranceRule read_rule(Reader r, ToleranceRule rule, double noise_factor);
EnvelopeSettings read_envelope(Reader r);
ToleranceTable read_tolerances(Reader r);
InputMode read_input_mode(Reader& r, InputMode fallback);
EngagementRule read_engagement(Reader r);
GateSettings read_gate(Reader r);
ThroughputSettings read_throughput(Reader r);

// Why `precision` cannot run `workload` ("" when it can): O2 and O3 are
// single-process.
std::string precision_refusal(const std::string& workload, const PrecisionPolicy& precision);
// Why `workload` cannot train `family` ("" when it can): DataParallel needs
// a family it can replicate.
std::string model_refusal(const std::string& workload, const ModelFamily& family);
// Why `family` cannot run `workload` at `precision` ("" when it can).
std::string family_precision_refusal(const std::string& workload, const ModelFamily& family,
                                    const PrecisionPolicy& precision);
// Why a "cuda_graph" case cannot be captured ("" when it can, or is not one).
std::string graph_refusal(const CaseSpec& c);

}  // namespace ampbench::suite_detail
