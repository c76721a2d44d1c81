#include "suite/suite.h"
#include "core/build_info.h"
#include "io/json_file.h"
#include "suite/memory_estimate.h"
#include "suite/suite_reader.h"
#include "suite/suite_sections.h"
#include "spec/workload_traits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>
#include <sstream>

namespace ampbench {

using nlohmann::json;

const std::vector<std::string>& known_optimizers() { return optim::kind_names(); }

std::string make_case_id(const CaseSpec& spec) {
  std::string id = spec.workload->name();
  if (spec.is_control()) id += "+" + to_string(spec.variant);
  id += "/" + spec.model->name + "/" + spec.precision.name();
  // fp32 with a scaler is the exact-scaling check, distinct from its baseline.
  if (spec.scaler_enabled && !spec.precision.needs_scaler()) id += "+scaler";
  id += "/" + optim::to_string(spec.optimizer);
  if (spec.optimizer_impl != optim::Impl::kLoop) id += "+" + optim::to_string(spec.optimizer_impl);
  if (spec.cuda_graph) id += "+graph";
  if (!spec.tag.empty()) id += "@" + spec.tag;
  return id;
}

namespace {

using namespace suite_detail;  // Reader and the section readers (suite_sections.h)

// A tag becomes part of the case id, of its dump folder's name and of the
// ranks' filter: printable, no separator those use, and short enough that
// every id fits a file name (255 bytes) with room to spare.
constexpr size_t kMaxTagLength = 64;

std::string tag_refusal(const std::string& tag) {
  if (tag.size() > kMaxTagLength)
    return "is " + std::to_string(tag.size()) + " characters long (at most " + std::to_string(kMaxTagLength) + ")";
  for (size_t i = 0; i < tag.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(tag[i]);
    if (ch <= 0x20 || ch >= 0x7f || std::strchr("/\\#:", ch)) {
      std::ostringstream why;
      why << "character " << i << " (0x" << std::hex << std::setw(2) << std::setfill('0') << int(ch)
          << ") is not allowed: a tag is printable ASCII without spaces, '/', '\\', '#' or ':'";
      return why.str();
    }
  }
  return "";
}

struct SuiteContext {
  std::string file;
  DeviceKind device = DeviceKind::kCpu;
  TrainingSettings defaults;
  std::map<std::string, ModelSizes> models;  // by family name, as the suite gives them
  // The suite's models given by file, by their name in "models".
  std::map<std::string, std::shared_ptr<const ModelFamily>> scripted;

  const ModelFamily* family(const std::string& name) const {
    const auto it = scripted.find(name);
    return it != scripted.end() ? it->second.get() : find_model_family(name);
  }
  std::vector<std::string> model_names() const {
    std::vector<std::string> names = model_family_names();
    for (const auto& [name, f] : scripted) names.push_back(name);
    return names;
  }
  ToleranceTable tolerances;
  ThroughputSettings throughput;
  EngagementRule engagement;
  bool gpu_sized = false;
};

// A case's precision must have a row in "tolerances" (tf32's, o2's and o3's
// are optional until a suite runs them).
void require_tolerance_row(Reader& r, const std::string& key, const SuiteContext& ctx, const std::string& precision) {
  if (!ctx.tolerances.by_precision.count(precision))
    r.fail(key, "precision '" + precision + "' has no row in \"tolerances\" (add \"tolerances\": {\"" + precision +
                    "\": {...}} with its units, like fp16's)");
}

CaseSpec make_case(const SuiteContext& ctx, const std::string& workload, const std::string& model,
                   const std::string& precision, const std::string& optimizer, const TrainingSettings& s) {
  CaseSpec c;
  c.workload = &workload_traits(workload);
  c.model = ctx.family(model);
  c.precision = PrecisionPolicy::parse(precision);
  c.scaler_enabled = c.precision.needs_scaler();
  c.optimizer = *optim::parse_kind(optimizer);
  c.optimizer_impl = s.optimizer_impl;
  c.cuda_graph = s.cuda_graph;
  c.resume_at = s.resume_at;
  c.device = ctx.device;
  c.steps = s.steps;
  c.seed = s.seed;
  c.lr = s.lr.at(optimizer);
  c.cosine_schedule = s.cosine_schedule;
  c.sizes = ctx.models.at(model);
  c.iters_to_accumulate = s.iters_to_accumulate;
  c.max_norm = s.max_norm;
  c.clip_value = s.clip_value;
  c.loss_multiplier = s.loss_multiplier;
  c.inject_inf_step = s.inject_inf_step;
  c.world_size = workload_traits(workload).replicated() ? s.world_size : 1;
  c.scaler = s.scaler;
  c.optimizer_settings = s.optimizer_settings.at(optimizer);
  c.loss = s.loss;
  c.inject_inf_param = s.inject_inf_param;
  c.multi_coefficients = s.multi_coefficients;
  c.tolerance = ctx.tolerances.by_precision.at(precision);
  c.envelope = ctx.tolerances.envelope;
  c.engagement = ctx.engagement;
  c.throughput = ctx.throughput;
  c.expect = c.precision.verdict_required() ? Expect::kPass : Expect::kReport;
  c.gpu_sized = ctx.gpu_sized;
  return c;
}


CaseSpec read_explicit_case(const SuiteContext& ctx, Reader r) {
  const auto workload = r.require<std::string>("workload");
  require_known(r, "workload", workload, workload_names(), "workload");
  const auto model = r.require<std::string>("model");
  require_known(r, "model", model, ctx.model_names(), "model");
  if (!ctx.models.count(model)) r.fail("model", "model '" + model + "' has no sizes in \"models\"");
  if (const std::string why = model_refusal(workload, *ctx.family(model)); !why.empty()) r.fail("model", why);
  const auto precision = r.require<std::string>("precision");
  try {
    PrecisionPolicy::parse(precision);
  } catch (const std::invalid_argument& e) {
    r.fail("precision", e.what());
  }
  require_tolerance_row(r, "precision", ctx, precision);
  if (const std::string why =
          family_precision_refusal(workload, *ctx.family(model), PrecisionPolicy::parse(precision));
      !why.empty())
    r.fail("precision", why);
  if (const std::string why = precision_refusal(workload, PrecisionPolicy::parse(precision)); !why.empty())
    r.fail("precision", why);
  const auto optimizer = r.require<std::string>("optimizer");
  require_known(r, "optimizer", optimizer, known_optimizers(), "optimizer");

  TrainingSettings settings = read_settings(r, ctx.defaults);
  CaseSpec c = make_case(ctx, workload, model, precision, optimizer, settings);
  const auto variant = r.get<std::string>("variant", to_string(Control::kNone));
  require_known(r, "variant", variant, workload_traits(workload).variants(), "variant of " + workload);
  c.variant = *parse_control(variant);
  c.tag = r.get<std::string>("tag", "");
  if (const std::string why = tag_refusal(c.tag); !why.empty()) r.fail("tag", why);
  // Which optimizer's gradients get the injected inf: per case only (the
  // matrix mixes workloads with one optimizer and multi's two).
  c.inject_inf_optimizer = r.get("inject_inf_optimizer", 0);
  const int optimizers = workload_traits(workload).models();
  if (c.inject_inf_optimizer < 0 || c.inject_inf_optimizer >= optimizers)
    r.fail("inject_inf_optimizer", "must be an optimizer index below " + std::to_string(optimizers) + " (the " +
                                       workload + " workload has " + std::to_string(optimizers) + "), got " +
                                       std::to_string(c.inject_inf_optimizer));
  if (c.inject_inf_optimizer != 0 && c.inject_inf_step < 0)
    r.fail("inject_inf_optimizer", "needs an \"inject_inf_step\"");
  if (c.variant == Control::kResumeWithoutScalerState && c.resume_at < 0)
    r.fail("variant", "resume_without_scaler_state needs a \"resume_at\"");
  bool overrides = r.has("inject_inf_optimizer");
  for (const auto& key : kSettingKeys) overrides = overrides || r.has(key);
  // Throughput input mode: host batches (pinned, non_blocking copies) vs one
  // cached device batch, to tell input-bound from compute-bound.
  overrides = r.has("input") || overrides;
  // A case may widen or narrow its precision's tolerances (say why in its
  // tag), e.g. more skipped steps for a scaler that is made to grow often.
  if (r.has("tolerance")) {
    overrides = true;
    c.tolerance = read_rule(r.child("tolerance"), c.tolerance, c.tolerance.noise_factor);
  }
  c.throughput.input = read_input_mode(r, c.throughput.input);
  if (r.has("gate")) {
    c.gate_min_effect = read_gate(r.child("gate")).min_effect;
  }
  if (overrides && c.tag.empty()) r.fail("tag", "a case that overrides settings needs a \"tag\" naming them");

  c.scaler_enabled = r.get("scaler_enabled", c.precision.needs_scaler());
  if (c.variant == Control::kNoScaler) c.scaler_enabled = false;
  if (c.scaler_enabled && !c.precision.allows_scaler()) r.fail("scaler_enabled", c.precision.scaler_refusal());
  const auto expect = r.get<std::string>("expect", to_string(c.expect));
  const auto parsed = parse_expect(expect);
  if (!parsed) r.fail("expect", "expected \"pass\", \"fail\" or \"report\", got \"" + expect + "\"");
  c.expect = *parsed;
  if (c.is_control() && c.expect != Expect::kFail)
    r.fail("expect", "negative control '" + to_string(c.variant) + "' must declare \"expect\": \"fail\"");
  c.throughput.enabled = c.throughput.enabled && c.expect != Expect::kFail;
  r.reject_unknown_keys();
  return c;
}

// The fp32 run every other case is compared with: same workload, model,
// optimizer, settings and data; correct procedure; no scaler.
CaseSpec baseline_for(const CaseSpec& c, const SuiteContext& ctx) {
  CaseSpec b = c;
  b.resume_at = -1;  // the uninterrupted run (a resumed case is also held to it bitwise)
  b.precision = PrecisionPolicy(Precision::kFp32);
  b.variant = Control::kNone;
  b.scaler_enabled = false;
  b.expect = Expect::kPass;
  b.tolerance = ctx.tolerances.by_precision.at("fp32");
  b.throughput = ctx.throughput;
  b.throughput.input = c.throughput.input;  // speedups compare like with like
  b.gate_min_effect = c.gate_min_effect;
  b.baseline_id.clear();
  b.id = make_case_id(b);
  return b;
}

bool needs_baseline(const CaseSpec& c) {
  return c.precision.precision() != Precision::kFp32 || c.scaler_enabled || c.is_control();
}

// The baseline measures an envelope for every reduced precision compared
// with it (an fp32 case, e.g. the exact fp32+scaler check, needs none).
void request_envelope(CaseSpec& base, const CaseSpec& c) {
  const Precision p = c.precision.precision();
  if (p == Precision::kFp32 || c.envelope.replicas == 0) return;
  auto& wanted = base.envelope_precisions;
  if (std::find(wanted.begin(), wanted.end(), p) == wanted.end()) wanted.push_back(p);
}


// Case id -> its index in the suite's case list: a baseline is found by key,
// so reading a suite stays linear in its number of cases.
using CaseIndex = std::unordered_map<std::string, size_t>;

void add_case(std::vector<CaseSpec>& cases, CaseIndex& ids, CaseSpec c, const SuiteContext& ctx,
              const std::string& where) {
  if (const std::string why = graph_refusal(c); !why.empty())
    throw SuiteError(ctx.file + ": " + where + ".cuda_graph: " + why);
  if (const auto [key, why] = case_options_refusal(c); !why.empty())
    throw SuiteError(ctx.file + ": " + where + "." + key + ": " + why);
  if (needs_baseline(c)) {
    CaseSpec base = baseline_for(c, ctx);
    c.baseline_id = base.id;
    auto [at, added] = ids.emplace(base.id, cases.size());
    if (added) cases.push_back(std::move(base));
    request_envelope(cases[at->second], c);
  }
  c.id = make_case_id(c);
  if (ids.count(c.id)) {
    // A matrix case and an explicit case may coincide only if identical.
    if (!needs_baseline(c)) return;
    throw SuiteError(ctx.file + ": " + where + ": duplicate case id '" + c.id + "' (give it a distinct \"tag\")");
  }
  ids.emplace(c.id, cases.size());
  cases.push_back(std::move(c));
}

std::vector<std::string> read_list(Reader& r, const std::string& key, const std::vector<std::string>& known,
                                   const std::string& what) {
  auto values = r.require<std::vector<std::string>>(key);
  if (values.empty()) r.fail(key, "must not be empty");
  for (size_t i = 0; i < values.size(); ++i) {
    if (!contains(known, values[i]))
      r.fail(key + "[" + std::to_string(i) + "]", "unknown " + what + " '" + values[i] + "' (known: " + join(known) + ")");
  }
  return values;
}

}  // namespace

std::string resolve_suite_path(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  if (name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".json")
    return name_or_path;
  const std::string path = std::string(build_info::source_dir()) + "/suites/" + name_or_path + ".json";
  if (!fs::exists(path)) {
    std::string known;
    for (const auto& entry : fs::directory_iterator(std::string(build_info::source_dir()) + "/suites"))
      if (entry.path().extension() == ".json") known += (known.empty() ? "" : ", ") + entry.path().stem().string();
    throw SuiteError("unknown suite '" + name_or_path + "' (known: " + known + ")");
  }
  return path;
}

namespace {
Suite parse_suite_root(const json& root, const std::string& path, DeviceKind device);
}  // namespace

Suite parse_suite(const std::string& json_text, const std::string& path, DeviceKind device) {
  try {
    return parse_suite_root(io::parse_json_text(json_text, path), path, device);
  } catch (const io::JsonFileError& e) {
    throw SuiteError(e.what());
  }
}

namespace {

// workloads x models x optimizers x precisions, each with its baseline.
void expand_matrix(Reader m, const SuiteContext& ctx, std::vector<CaseSpec>& cases, CaseIndex& ids) {
  const auto workloads = read_list(m, "workloads", workload_names(), "workload");
  const auto model_names = read_list(m, "models", ctx.model_names(), "model");
  const auto precisions = read_list(m, "precisions", PrecisionPolicy::names(), "precision");
  for (size_t i = 0; i < precisions.size(); ++i)
    require_tolerance_row(m, "precisions[" + std::to_string(i) + "]", ctx, precisions[i]);
  for (const auto& w : workloads)
    for (const auto& p : precisions)
      if (const std::string why = precision_refusal(w, PrecisionPolicy::parse(p)); !why.empty()) m.fail("precisions", why);
  const auto optimizers = read_list(m, "optimizers", known_optimizers(), "optimizer");
  m.reject_unknown_keys();
  for (const auto& model : model_names) {
    if (!ctx.models.count(model)) m.fail("models", "model '" + model + "' has no sizes in \"models\"");
    for (const auto& w : workloads) {
      if (const std::string why = model_refusal(w, *ctx.family(model)); !why.empty()) m.fail("models", why);
      for (const auto& p : precisions)
        if (const std::string why = family_precision_refusal(w, *ctx.family(model), PrecisionPolicy::parse(p));
            !why.empty())
          m.fail("models", why);
    }
  }
  for (const auto& w : workloads)
    for (const auto& model : model_names)
      for (const auto& opt : optimizers)
        for (const auto& p : precisions)
          add_case(cases, ids, make_case(ctx, w, model, p, opt, ctx.defaults), ctx, "matrix");
}

Suite parse_suite_root(const json& root, const std::string& path, DeviceKind device) {
  Reader top(root, path, "");
  Suite suite;
  suite.path = path;
  suite.name = top.require<std::string>("name");
  // The name becomes part of the default output folder (results/NAME-...):
  // "../../x" must not steer it out of results/.
  if (!is_plain_name(suite.name))
    top.fail("name", "'" + suite.name + "' is not a plain name (letters, digits, '.', '_', '-'; not starting with '.')");
  suite.description = top.get<std::string>("description", "");

  SuiteContext ctx;
  ctx.file = path;
  ctx.device = device;
  ctx.gpu_sized = top.get("gpu_sized", false);
  {
    Reader defaults = top.child("defaults");
    ctx.defaults = read_settings(defaults, TrainingSettings{});
    defaults.reject_unknown_keys();
  }
  if (!top.has("models")) top.fail("models", "missing required field");
  Reader models = top.child("models");
  for (const auto& name : models.keys()) {
    if (is_scripted_entry(root.at("models").at(name))) {
      if (find_model_family(name) || !is_plain_name(name))
        models.fail(name, "a model given by file needs a plain name that is not a registered family's (" +
                              join(model_family_names()) + ")");
      ScriptedEntry e = read_scripted_model(models.child(name), name, path, ctx.defaults.loss.kind);
      ctx.scripted[name] = e.family;
      suite.scripted_models.push_back(e.family);
      ctx.models[name] = e.sizes;
      continue;
    }
    require_known(models, name, name, model_family_names(), "model");
    ctx.models[name] = read_sizes(models.child(name), *find_model_family(name));
  }
  if (!top.has("tolerances")) top.fail("tolerances", "missing required field");
  ctx.tolerances = read_tolerances(top.child("tolerances"));
  ctx.throughput = read_throughput(top.child("throughput"));
  if (top.has("engagement")) ctx.engagement = read_engagement(top.child("engagement"));
  suite.gate = read_gate(top.child("gate"));

  std::vector<CaseSpec> cases;
  CaseIndex ids;
  if (top.has("matrix")) expand_matrix(top.child("matrix"), ctx, cases, ids);
  if (top.has("cases")) {
    const json& list = top.raw("cases");
    if (!list.is_array()) top.fail("cases", "expected a list of cases");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string where = "cases[" + std::to_string(i) + "]";
      add_case(cases, ids, read_explicit_case(ctx, Reader(list[i], path, where)), ctx, where);
    }
  }
  top.reject_unknown_keys();
  if (cases.empty()) top.fail("matrix", "the suite expands to no cases");
  // A GPU-sized case is measured against its GPU when it runs (Runner's
  // skip_reason), not against this host.
  const double memory = static_cast<double>(physical_memory_bytes());
  for (const CaseSpec& c : cases)
    if (const std::string why = c.gpu_sized ? "" : memory_refusal(c, memory); !why.empty())
      throw SuiteError(path + ": case " + c.id + " cannot fit: " + why + " (check the model sizes and steps)");
  suite.cases = std::move(cases);
  return suite;
}

}  // namespace

Suite load_suite(const std::string& name_or_path, DeviceKind device) {
  const std::string path = resolve_suite_path(name_or_path);
  json root;
  try {
    root = io::read_json_file(path);
  } catch (const io::JsonFileError& e) {
    throw SuiteError(e.what());
  }
  return parse_suite_root(root, path, device);
}

std::string to_string(InputMode mode) { return mode == InputMode::kCached ? "cached" : "host"; }

std::string to_string(NoiseModel noise) {
  switch (noise) {
    case NoiseModel::kGrad: return "grad";
    case NoiseModel::kInit: return "init";
    case NoiseModel::kGradInit: return "grad+init";
  }
  return "grad";
}

std::optional<NoiseModel> parse_noise_model(const std::string& name) {
  for (NoiseModel m : {NoiseModel::kGrad, NoiseModel::kInit, NoiseModel::kGradInit})
    if (to_string(m) == name) return m;
  return std::nullopt;
}

}  // namespace ampbench
