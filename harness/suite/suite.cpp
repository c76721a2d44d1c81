#include "suite/suite.h"
#include "core/build_info.h"
#include "io/json_file.h"
#include "suite/case_list.h"
#include "suite/case_reader.h"
#include "suite/convergence_section.h"
#include "suite/memory_estimate.h"
#include "suite/suite_reader.h"
#include "suite/suite_sections.h"
#include "spec/workload_traits.h"
#include "suite/fp8_plans.h"

#include <nlohmann/json.hpp>

#include <filesystem>

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

// "models": each registered family's sizes, or a model given by file.
void read_models(Reader& top, const json& root, SuiteContext& ctx, Suite& suite) {
  if (!top.has("models")) top.fail("models", "missing required field");
  Reader models = top.child("models");
  for (const auto& name : models.keys()) {
    if (is_scripted_entry(root.at("models").at(name))) {
      if (find_model_family(name) || !is_plain_name(name))
        models.fail(name, "a model given by file needs a plain name that is not a registered family's (" +
                              join(model_family_names()) + ")");
      ScriptedEntry e = read_scripted_model(models.child(name), name, ctx.file, ctx.defaults.loss.kind);
      ctx.scripted[name] = e.family;
      suite.scripted_models.push_back(e.family);
      ctx.models[name] = e.sizes;
      continue;
    }
    require_known(models, name, name, model_family_names(), "model");
    ctx.models[name] = read_sizes(models.child(name), *find_model_family(name));
  }
}

// The matrix's cases, then the explicit ones, each with its baseline.
std::vector<CaseSpec> read_cases(Reader& top, const SuiteContext& ctx) {
  std::vector<CaseSpec> cases;
  CaseIndex ids;
  if (top.has("matrix")) expand_matrix(top.child("matrix"), ctx, cases, ids);
  if (top.has("cases")) {
    const json& list = top.raw("cases");
    if (!list.is_array()) top.fail("cases", "expected a list of cases");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string where = "cases[" + std::to_string(i) + "]";
      add_case(cases, ids, read_explicit_case(ctx, Reader(list[i], ctx.file, where)), ctx, where);
    }
  }
  return cases;
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
  read_models(top, root, ctx, suite);
  if (!top.has("tolerances")) top.fail("tolerances", "missing required field");
  ctx.tolerances = read_tolerances(top.child("tolerances"));
  ctx.throughput = read_throughput(top.child("throughput"));
  if (top.has("engagement")) ctx.engagement = read_engagement(top.child("engagement"));
  if (top.has("convergence")) ctx.convergence = read_convergence(top.child("convergence"));
  suite.gate = read_gate(top.child("gate"));

  std::vector<CaseSpec> cases = read_cases(top, ctx);
  top.reject_unknown_keys();
  if (cases.empty()) top.fail("matrix", "the suite expands to no cases");
  // A GPU-sized case is measured against its GPU when it runs (Runner's
  // skip_reason), not against this host.
  const double memory = static_cast<double>(physical_memory_bytes());
  for (const CaseSpec& c : cases)
    if (const std::string why = c.gpu_sized ? "" : memory_refusal(c, memory); !why.empty())
      throw SuiteError(path + ": case " + c.id + " cannot fit: " + why + " (check the model sizes and steps)");
  check_fp8_plans(cases, path);
  check_convergence_cases(cases, path);
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
