#include "session/run_plan.h"

#include <torch/cuda.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "core/build_info.h"
#include "distributed/launcher.h"
#include "io/json_file.h"
#include "io/output_path.h"
#include "runner/case_filter.h"
#include "session/local_ranks.h"
#include "session/compiled_case.h"
#include "session/convergence_data.h"
#include "session/suite_run.h"

namespace ampbench {
namespace {

std::string default_out_dir(const std::string& suite, DeviceKind device) {
  std::string stamp = utc_now_iso8601();
  for (char& c : stamp)
    if (c == ':') c = '-';
  return "results/" + suite + "-" + to_string(device) + "-" + stamp;
}

// Each local rank is a process with its own threads and model copies: more
// ranks than the machine can hold were started until the OS refused.
void check_rank_count(const RunSettings& args, const std::vector<CaseSpec>& cases, DeviceKind device) {
  int wanted = args.nproc;
  for (const CaseSpec& c : cases)
    if (needs_local_ranks(c)) wanted = std::max(wanted, c.world_size);
  if (wanted <= 1 || args.allow_oversubscribe) return;
  const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  // CPU: two ranks per core still make progress; CUDA: one GPU per rank.
  const bool cuda = device == DeviceKind::kCuda;
  const int cap = cuda ? static_cast<int>(torch::cuda::device_count()) : static_cast<int>(2 * cores);
  if (cuda && args.nproc == 0) return;  // ddp cases run on the GPUs there are (local_ranks.cpp)
  if (wanted > std::max(cap, 2))
    throw std::invalid_argument(
        std::to_string(wanted) + " ranks (" + (args.nproc > 0 ? "--nproc" : "a case's world_size") +
        ") exceed what this machine holds (" + std::to_string(std::max(cap, 2)) + " on " +
        (cuda ? "its GPUs" : std::to_string(cores) + " cores") + "); pass --allow-oversubscribe to start them anyway");
}

// Every output checked before any case runs (io/output_path.h): none is an
// input or another output, --overwrite replaces only a previous run, and the
// folder is marked as one for the next --overwrite.
void check_outputs(const RunSettings& args, const std::string& suite_path, const std::string& out_dir) {
  const auto in_out = [&out_dir](const std::string& name) { return io::PathUse{"--out", out_dir + "/" + name}; };
  // The folders of --out that a run replaces, and everything a run writes.
  const std::vector<io::PathUse> replaced = {in_out("report"), in_out("ddp-ranks"), in_out("dump"),
                                             in_out(io::kStagingName)};
  std::vector<io::PathUse> written_dirs = replaced;
  written_dirs.push_back({"--dump", args.dump_dir});
  io::check_distinct_paths({{"--suite", suite_path}, {"--ceilings", args.ceilings_file}},
                           {{"--junit", args.junit}, in_out("results.json")}, written_dirs);
  if (!args.dump_dir.empty()) {
    // The dump is written beside the run: neither around --out nor in what it replaces.
    io::check_distinct_paths({{"--out", out_dir}}, {}, {{"--dump", args.dump_dir}});
    io::check_distinct_paths({{"--dump", args.dump_dir}}, {}, replaced);
  }
  // --dump follows --out's rule: a new or empty folder, or with --overwrite
  // one a previous run dumped into (its marker); never a folder of the user's.
  const bool dump = !args.dump_dir.empty();
  if (args.overwrite) io::check_replaceable("--out", out_dir);
  if (args.overwrite && dump) io::check_replaceable("--dump", args.dump_dir);
  if (!args.junit.empty()) io::check_output_file("--junit", args.junit);
  io::check_output_dir("--out", out_dir, !args.overwrite);
  if (dump) io::check_output_dir("--dump", args.dump_dir, !args.overwrite);
  io::prepare_output_dir("--out", out_dir, !args.overwrite);
  if (dump) io::prepare_output_dir("--dump", args.dump_dir, !args.overwrite);
  io::mark_run_dir(out_dir, "run");
  if (dump) io::mark_run_dir(args.dump_dir, "run --dump", "--dump");
  if (args.overwrite) io::prepare_staging_dir(out_dir);
}

// Inductor compiles its CPU kernels with the system's C++ compiler: without
// one every compiled case would fail the same way, so the run is refused.
bool has_cpp_compiler() {
  std::vector<std::string> names = {"c++", "g++", "clang++"};
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) names.insert(names.begin(), cxx);
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (const std::string& name : names) {
    if (name.find('/') != std::string::npos) {
      if (::access(name.c_str(), X_OK) == 0) return true;
      continue;
    }
    for (std::size_t start = 0; start <= dirs.size();) {
      const std::size_t end = std::min(dirs.find(':', start), dirs.size());
      const std::string file = dirs.substr(start, end - start) + "/" + name;
      if (end > start && ::access(file.c_str(), X_OK) == 0) return true;
      start = end + 1;
    }
  }
  return false;
}

// --implementation compiled: which cases train compiled, which stay eager
// and are skipped with their reason; refused outright when none can.
void plan_compiled(const RunSettings& args, RunPlan& plan) {
  if (args.implementation != "compiled") {
    if (args.compile_step || args.compile_mode != "default" || !args.inject_compile_fault.empty() ||
        !args.compile_cache.empty())
      throw std::invalid_argument("--compile-mode, --compile-step, --compile-cache and --inject-compile-fault need "
                                  "--implementation compiled");
    return;
  }
  if (!args.compile_cache.empty())
    if (const std::string why = compile_cache_refusal(args.compile_cache); !why.empty())
      throw std::invalid_argument("--compile-cache " + args.compile_cache + ": " + why);
  if (args.nproc > 0 || plan.rank_env)
    throw std::invalid_argument("--implementation compiled runs single-process cases; it takes no --nproc or ranks");
  if (!has_cpp_compiler())
    throw std::invalid_argument("--implementation compiled: no C++ compiler for Inductor on this machine ($CXX, c++, "
                                "g++ or clang++ on PATH): install one (apt-get install g++)");
  for (const auto& [id, why] : make_compiled(plan.cases)) plan.not_compiled[id] = why;
  const bool any = std::any_of(plan.cases.begin(), plan.cases.end(),
                               [](const CaseSpec& c) { return c.implementation == Implementation::kCompiled; });
  if (any) return;
  for (const CaseSpec& c : plan.cases)
    if (const std::string why = compiled_refusal(c); !c.is_baseline() && !why.empty())
      throw std::invalid_argument("--implementation compiled: no selected case can run compiled (" + c.id + ": " +
                                  why + ")");
  throw std::invalid_argument("--implementation compiled: the selection holds only fp32 baselines, which stay "
                              "eager; select the cases compared with them");
}

}  // namespace

nlohmann::json read_ceilings(const std::string& path) {
  nlohmann::json j;
  try {
    j = io::read_json_file(path);
  } catch (const io::JsonFileError& e) {
    throw std::invalid_argument(std::string("--ceilings ") + e.what());
  }
  if (!j.is_object() || !j.contains("matmul_tflops") || !j["matmul_tflops"].is_object())
    throw std::invalid_argument(path + ": not a ceilings file (no \"matmul_tflops\" object)");
  return j;
}

RunPlan plan_run(const RunSettings& args) {
  RunPlan plan;
  plan.device = resolve_device(args.device);
  plan.suite = load_suite(
      args.suite.empty() ? (plan.device == DeviceKind::kCuda ? "conformance" : "smoke") : args.suite, plan.device);
  plan.cases = select_cases(plan.suite, args.filter);
  if (args.seed)
    for (CaseSpec& c : plan.cases) c.seed = *args.seed;
  if (plan.cases.empty())
    throw std::invalid_argument("--filter '" + shown_filter(args.filter) + "' matches no case of suite " +
                                plan.suite.name);
  prepare_convergence_data(plan.cases, plan.suite.path);
  plan.out_dir = args.out_dir.empty() ? default_out_dir(plan.suite.name, plan.device) : args.out_dir;
  // Distributed: --nproc N starts N ranks of this very command; a process
  // started with RANK/WORLD_SIZE/... (by that launcher, torchrun or Slurm)
  // joins them. Without either, ddp cases run as a world of one.
  plan.rank_env = distributed::rank_env_from_environment();
  plan_compiled(args, plan);
  // Ranks write where their launcher, which checked it, tells them.
  if (plan.rank_env && std::getenv(distributed::kRankOutDirEnv))
    plan.out_dir = std::getenv(distributed::kRankOutDirEnv);
  if (!plan.rank_env) {
    if (!args.ceilings_file.empty()) read_ceilings(args.ceilings_file);  // refused before --out is touched
    check_rank_count(args, plan.cases, plan.device);
    if (args.nproc == 0) check_rank_filter(plan.cases);
    check_outputs(args, plan.suite.path, plan.out_dir);
  }
  // --overwrite: this run goes to a staging folder and replaces the previous
  // one only once complete (io/output_path.h).
  plan.final_out = plan.out_dir;
  plan.staged = !plan.rank_env && args.overwrite;
  if (plan.staged) plan.out_dir = io::staging_dir(plan.final_out);
  return plan;
}

}  // namespace ampbench
