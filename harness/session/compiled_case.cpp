#include "session/compiled_case.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/build_info.h"
#include "runner/case_dump.h"
#include "session/child_process.h"
#include "session/compiled_record.h"
#include "spec/workload_traits.h"

namespace ampbench {

std::string compiled_refusal(const CaseSpec& spec) {
  if (spec.workload && spec.workload->replicated())
    return spec.workload->name() + " trains in several ranks or threads; the compiled implementation runs "
                                   "single-process cases";
  if (spec.workload && spec.workload->second_order())
    return spec.workload->name() + " differentiates the gradients (create_graph=True), and torch.compile's "
                                   "AOTAutograd has no double backward";
  if (spec.model && spec.model->scripted && spec.model->scripted->python_factory.empty())
    return "model '" + spec.model->name + "' is a TorchScript file, which torch.compile cannot compile, and its "
                                          "suite entry names no Python module to compile instead: export it again "
                                          "with python -m reference.export, which records it (\"python\")";
  // Their Python twins run compiled (docs/compiled.md, Figures), but delayed
  // scaling's amax history is updated outside the graph, which AOTAutograd
  // drops: not a judgement of the recipe until the twin keeps it in the graph.
  if (spec.fp8)
    return spec.precision.name() + ": the FP8 twins are not held compiled yet (delayed scaling's amax history is "
                                   "updated outside the graph, which AOTAutograd drops)";
  if (spec.cuda_graph) return "cuda_graph cases capture the C++ step";
  if (spec.resume_at >= 0) return "resume_at cases restore the C++ loop's checkpoint";
  return "";
}

namespace {

std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  // The reason is the last line (a warning may come before it).
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last.empty() ? "(no message)" : last;
}

std::vector<std::string> compile_argv(const CaseSpec& spec, const std::string& folder, const std::string& record,
                                      const CompiledSettings& s, bool emulate) {
  std::vector<std::string> argv = {python_interpreter(), "-m", "reference.python.compiled", folder,
                                   "--out", record, "--mode", s.mode};
  if (s.compile_step) argv.push_back("--compile-step");
  if (emulate) argv.push_back("--emulate-precision-casts");
  // The fault removes autocast's casts: an fp32 case (the twin) has none.
  if (!s.fault.empty() && spec.precision.precision() != Precision::kFp32)
    argv.insert(argv.end(), {"--fault", s.fault});
  if (!s.cache_dir.empty()) argv.insert(argv.end(), {"--cache-dir", s.cache_dir, "--reuse-cache"});
  if (s.timed && spec.throughput.enabled && spec.throughput.measured_steps > 0)
    argv.insert(argv.end(), {"--throughput-steps", std::to_string(spec.throughput.measured_steps),
                             "--throughput-repetitions", std::to_string(spec.throughput.repetitions),
                             "--throughput-warmup", std::to_string(spec.throughput.warmup_steps)});
  return argv;
}

}  // namespace

void train_compiled(CaseRecord& rec, const CompiledSettings& settings, bool emulate_precision_casts) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(settings.dump_dir) / dump_folder_name(rec.spec.id);
  const std::string tag = emulate_precision_casts ? "compiled-emulated" : "compiled";
  const std::string record = (folder / (tag + "-record.json")).string();
  const std::string errors = (folder / (tag + "-stderr.txt")).string();
  const int code = run_dying_with_us(compile_argv(rec.spec, folder.string(), record, settings, emulate_precision_casts),
                                     build_info::source_dir(), errors);
  // Exit 3: the case cannot be compiled by design (tf32, an FP8 control): skipped, with the reason.
  if (code == 3) {
    rec.status = RunStatus::kSkipped;
    rec.reason = "not compiled: " + first_line_of(errors);
    return;
  }
  if (code != 0) {
    rec.status = RunStatus::kError;
    rec.reason = "compiled: " + (code < 0 ? std::string("python -m reference.python.compiled did not finish")
                                          : first_line_of(errors));
    return;
  }
  try {
    const int steps = static_cast<int>(rec.loss.size());
    apply_compiled_record(rec, read_compiled_record(record, rec.spec.id, steps));
    rec.compiled->compile_step = settings.compile_step;
  } catch (const std::exception& e) {
    rec.status = RunStatus::kError;
    rec.reason = std::string("compiled: ") + e.what();
  }
}

std::optional<CompiledSettings> compiled_settings(const RunSettings& args, const std::string& out_dir) {
  if (args.implementation != "compiled") return std::nullopt;
  CompiledSettings s;
  s.mode = args.compile_mode;
  s.compile_step = args.compile_step;
  s.fault = args.inject_compile_fault;
  s.dump_dir = args.dump_dir.empty() ? out_dir + "/dump" : args.dump_dir;
  s.timed = !args.no_throughput;
  // Absolute: the compiled implementation runs from the source folder.
  if (!args.compile_cache.empty()) s.cache_dir = std::filesystem::absolute(args.compile_cache).string();
  return s;
}

std::string compile_cache_refusal(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return "";
  if (!fs::is_directory(dir, ec)) return "not a directory";
  if (fs::is_empty(dir, ec) || fs::is_regular_file(fs::path(dir) / kCompileCacheMarker, ec)) return "";
  return std::string("not empty and not a cache the compiled implementation made (no ") + kCompileCacheMarker +
         "); name a new or empty folder";
}

void add_implementation_env(nlohmann::json& env, const std::optional<CompiledSettings>& compiled) {
  env["implementation"] = to_string(compiled ? Implementation::kCompiled : Implementation::kEager);
  if (!compiled) return;
  env["compile"] = {{"mode", compiled->mode},
                    {"compile_step", compiled->compile_step},
                    {"cache_dir", compiled->cache_dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(compiled->cache_dir)}};
  // A wrong graph on purpose is never a measurement (results/results_file.h).
  if (!compiled->fault.empty()) env["injected_compile_fault"] = compiled->fault;
}

CaseRecord run_case(const CaseSpec& spec, const Runner& runner, const std::optional<CompiledSettings>& compiled) {
  CaseRecord rec = runner.run(spec);
  if (spec.implementation != Implementation::kCompiled || rec.status != RunStatus::kRan) return rec;
  if (!compiled) throw std::logic_error(spec.id + ": a compiled case in a run without compile settings");
  train_compiled(rec, *compiled);
  return rec;
}

void add_emulated_distance(CaseRecord& record, const Verdict& verdict, const CaseRecord& baseline,
                           const Runner& runner, const CompiledSettings& settings) {
  if (!record.compiled || verdict.passed || record.spec.precision.precision() == Precision::kFp32) return;
  CaseRecord again = record;
  CompiledSettings untimed = settings;
  untimed.timed = false;
  train_compiled(again, untimed, /*emulate_precision_casts=*/true);
  if (again.status != RunStatus::kRan) return;
  record.compiled->emulated_max_ratio = check_against_baseline(again, baseline, runner).max_ratio;
}

CaseSpec compiled_fp32_twin(const CaseSpec& baseline) {
  CaseSpec twin = baseline;
  twin.id = baseline.id + kCompiledIdSuffix;
  twin.baseline_id = baseline.id;
  twin.implementation = Implementation::kCompiled;
  twin.envelope_precisions.clear();
  return twin;
}

std::vector<std::pair<std::string, std::string>> make_compiled(std::vector<CaseSpec>& cases) {
  std::vector<std::pair<std::string, std::string>> refused;
  std::set<std::string> used_baselines;
  for (CaseSpec& c : cases) {
    if (c.is_baseline()) continue;
    if (const std::string why = compiled_refusal(c); !why.empty()) {
      refused.emplace_back(c.id, why);
      continue;
    }
    c.implementation = Implementation::kCompiled;
    used_baselines.insert(c.baseline_id);
  }
  std::vector<CaseSpec> out;
  for (CaseSpec& c : cases) {
    const bool baseline = c.is_baseline();
    const bool used = baseline && used_baselines.count(c.id) > 0;
    if (baseline && !used) refused.emplace_back(c.id, "no case of this run compiles against this fp32 baseline");
    out.push_back(std::move(c));
    if (!used) continue;
    // The twin is held to fp32's envelope: replicas of the baseline
    // perturbed at float32's unit roundoff bound a reordering of fp32 math.
    std::vector<Precision>& wanted = out.back().envelope_precisions;
    if (std::find(wanted.begin(), wanted.end(), Precision::kFp32) == wanted.end()) wanted.push_back(Precision::kFp32);
    out.push_back(compiled_fp32_twin(out.back()));
  }
  cases = std::move(out);
  return refused;
}

}  // namespace ampbench
