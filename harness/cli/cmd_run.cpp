#include <ATen/Context.h>
#include <torch/cuda.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <chrono>
#include <memory>
#include <limits>
#include <optional>
#include <string>

#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "cli/cmd_run.h"
#include "cli/command.h"
#include "cli/finite_range.h"
#include "cli/integer_range.h"
#include "cli/local_ranks.h"
#include "core/build_info.h"
#include "distributed/context.h"
#include "distributed/launcher.h"
#include "distributed/stop_signals.h"
#include "env/env_fingerprint.h"
#include "gate/report.h"
#include "io/json_file.h"
#include "io/output_path.h"
#include "runner/case_filter.h"
#include "session/suite_run.h"
#include "session/summary_table.h"
#include "workloads/workload.h"

namespace ampbench::cli {

static_assert(kExitRendezvous == distributed::kExitLostPeers, "ranks and their launcher agree on exit code 3");

DeviceKind resolve_device(const std::string& requested) {
  if (requested == "auto") return torch::cuda::is_available() ? DeviceKind::kCuda : DeviceKind::kCpu;
  const std::optional<DeviceKind> device = parse_device_kind(requested);
  if (!device) throw std::invalid_argument("--device " + requested + ": expected auto, cpu or cuda");
  if (*device == DeviceKind::kCuda && !torch::cuda::is_available())
    throw std::invalid_argument("--device cuda: no CUDA device is available on this machine");
  return *device;
}

namespace {

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

std::string default_out_dir(const std::string& suite, DeviceKind device) {
  std::string stamp = utc_now_iso8601();
  for (char& c : stamp)
    if (c == ':') c = '-';
  return "results/" + suite + "-" + to_string(device) + "-" + stamp;
}

// c10d's messages carry a C++ backtrace after the first line.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Each local rank is a process with its own threads and model copies: more
// ranks than the machine can hold were started until the OS refused.
void check_rank_count(const RunArgs& args, const std::vector<CaseSpec>& cases, DeviceKind device) {
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
    throw std::invalid_argument(std::to_string(wanted) + " ranks (" + (args.nproc > 0 ? "--nproc" : "a case's world_size") +
                                ") exceed what this machine holds (" + std::to_string(std::max(cap, 2)) + " on " +
                                (cuda ? "its GPUs" : std::to_string(cores) + " cores") +
                                "); pass --allow-oversubscribe to start them anyway");
}

// Every output checked before any case runs (io/output_path.h): none is an
// input or another output, --overwrite replaces only a previous run, and the
// folder is marked as one for the next --overwrite.
void check_outputs(const RunArgs& args, const std::string& suite_path, const std::string& out_dir) {
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
  if (args.overwrite) io::check_replaceable("--out", out_dir);
  if (!args.junit.empty()) io::check_output_file("--junit", args.junit);
  io::prepare_output_dir("--out", out_dir, !args.overwrite);
  if (!args.dump_dir.empty()) io::prepare_output_dir("--dump", args.dump_dir, false);
  io::mark_run_dir(out_dir, "run");
  if (args.overwrite) io::prepare_staging_dir(out_dir);
}

// Promotes a completed staged run over the previous one (--overwrite);
// otherwise says where the new, incomplete run is and that the previous run
// was kept. Returns `code`, or kExitUsage when the move failed.
int finish_staged_run(const std::string& out_dir, int code) {
  try {
    if (io::promote_staged_run(out_dir)) {
      std::cout << "replaced the previous run in " << out_dir << "\n";
      return code;
    }
  } catch (const std::exception& e) {
    std::cerr << "ampbench run: error: " << e.what() << "\n";
    return kExitUsage;
  }
  std::cerr << "ampbench run: the run did not complete: the previous run in " << out_dir
            << " was kept; this run's results are in " << io::staging_dir(out_dir) << "\n";
  return code;
}

// Loud, at the start and again under the summary: a run whose fp32 is not
// IEEE float32 has no IEEE baseline, and every verdict against it is against
// something else (env.float32_math.fp32_is_ieee in results.json says so too).
void print_fp32_warnings(std::ostream& out, const nlohmann::json& env) {
  const nlohmann::json& math = env.value("float32_math", nlohmann::json::object());
  if (!math.is_object() || math.value("fp32_is_ieee", true)) return;
  for (const nlohmann::json& reason : math.value("fp32_not_ieee_reasons", nlohmann::json::array()))
    out << "WARNING: fp32 is not IEEE float32 in this run (its fp32 baselines are not IEEE references): "
        << reason.get<std::string>() << "\n";
}

}  // namespace

namespace {

// What a run will do, decided before any case runs: every input and output
// checked (std::invalid_argument: exit 2).
struct RunPlan {
  DeviceKind device = DeviceKind::kCpu;
  Suite suite;
  std::vector<CaseSpec> cases;
  std::optional<distributed::RankEnv> rank_env;  // set: this process is one rank of several
  std::string out_dir;    // where this process writes (a staging folder with --overwrite)
  std::string final_out;  // where the finished run lands
  bool staged = false;

  bool rank0() const { return !rank_env || rank_env->rank == 0; }
  std::string results_path() const {
    return rank0() ? out_dir + "/results.json" : out_dir + "/rank" + std::to_string(rank_env->rank) + "/results.json";
  }
  std::string final_results_path() const { return staged ? final_out + "/results.json" : results_path(); }
};

RunPlan plan_run(const RunArgs& args) {
  RunPlan plan;
  plan.device = resolve_device(args.device);
  plan.suite = load_suite(args.suite.empty() ? (plan.device == DeviceKind::kCuda ? "conformance" : "smoke") : args.suite,
                          plan.device);
  plan.cases = select_cases(plan.suite, args.filter);
  if (args.seed)
    for (CaseSpec& c : plan.cases) c.seed = *args.seed;
  if (plan.cases.empty())
    throw std::invalid_argument("--filter '" + shown_filter(args.filter) + "' matches no case of suite " +
                                plan.suite.name);
  plan.out_dir = args.out_dir.empty() ? default_out_dir(plan.suite.name, plan.device) : args.out_dir;
  // Distributed: --nproc N starts N ranks of this very command; a process
  // started with RANK/WORLD_SIZE/... (by that launcher, torchrun or Slurm)
  // joins them. Without either, ddp cases run as a world of one.
  plan.rank_env = distributed::rank_env_from_environment();
  // Ranks write where their launcher, which checked it, tells them.
  if (plan.rank_env && std::getenv(distributed::kRankOutDirEnv)) plan.out_dir = std::getenv(distributed::kRankOutDirEnv);
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

// This process as one rank of a launched world: joins the process group and
// sets the runner up to keep the ranks in step. Only ddp cases need every
// rank; the others run on rank 0 alone while the rest wait at the per-case
// barrier (so they are timed undisturbed).
std::unique_ptr<distributed::ContextScope> join_ranks(RunPlan& plan, const RunArgs& args, RunOptions& options) {
  const distributed::RankEnv& env = *plan.rank_env;
  auto scope = std::make_unique<distributed::ContextScope>(
      distributed::join(env, plan.device == DeviceKind::kCuda, std::chrono::seconds(args.rank_timeout)));
  options.context = scope->get();
  for (CaseSpec& c : plan.cases) {
    c.device_index = plan.device == DeviceKind::kCuda ? env.local_rank : 0;
    if (!find_workload(c.workload).collective()) continue;
    c.world_size = env.world_size;
    c.rank = env.rank;
  }
  const int rank = env.rank;
  if (rank != 0)
    options.skip_here = [](const CaseSpec& c) {
      return find_workload(c.workload).collective() ? "" : "runs on rank 0 only";
    };
  options.after_case = [rank, context = options.context](const CaseSpec& c) {
    // Suite cases only: the checker's aligned fp32 re-runs of rank-0-only
    // cases happen on rank 0 alone.
    if (!c.aligned_to.empty()) return;
    try {
      context->group->barrier()->wait();
    } catch (const std::exception& e) {
      std::cerr << "ampbench run: error: rank " << rank << " lost the other ranks: " << e.what() << std::endl;
      std::cout.flush();
      _exit(kExitRendezvous);
    }
  };
  std::cout << "rank " << rank << " of " << env.world_size << " (local rank " << env.local_rank << ", backend "
            << options.context->backend << ")\n";
  return scope;
}

struct RunOutcome {
  SuiteRunSummary summary;
  int launch_exit = 0;             // the local ranks' launcher, when it failed
  std::optional<int> stopped;      // the exit code of a run stopped by a signal
};

// The cases this process runs, then (single process) the ddp cases that need
// local ranks, merged into the same results as they finish.
RunOutcome run_cases_here_and_in_ranks(const RunPlan& plan, const RunArgs& args, RunOptions options,
                                       ResultsWriter& writer, const Ceilings& ceilings) {
  std::vector<CaseSpec> here = plan.cases, in_ranks;
  if (!plan.rank_env) {
    here.clear();
    for (const CaseSpec& c : plan.cases) (needs_local_ranks(c) ? in_ranks : here).push_back(c);
  }
  RunOutcome out;
  out.summary = run_cases(here, Runner(std::move(options)), writer, std::cout, ceilings);
  if (in_ranks.empty()) return out;
  const RankRunResult ranked = run_in_local_ranks(
      in_ranks, {plan.suite.path, plan.device, plan.out_dir + "/ddp-ranks", args.rank_timeout, args.no_throughput,
                 args.inject_slowdown, args.dump_dir, args.seed, args.no_mkldnn});
  // Each case as rank 0 wrote it, checked by the one reader on the way in.
  const std::vector<ResultsCase>& done = ranked.rank0.cases;
  for (std::size_t i = 0; i < done.size(); ++i) {
    writer.add_json(ranked.rank0.doc.at("cases").at(i));
    out.summary.add(tally_of(done[i]));
  }
  if (done.size() < in_ranks.size()) {
    std::cerr << "ampbench run: error: " << in_ranks.size() - done.size() << " of " << in_ranks.size()
              << " ddp cases did not finish (see the ranks' logs in " << plan.out_dir << "/ddp-ranks)\n";
    out.summary.nonconforming += static_cast<int>(in_ranks.size() - done.size());
  }
  out.launch_exit = ranked.exit_code > 1 ? ranked.exit_code : 0;
  if (ranked.exit_code >= distributed::stopped_exit_code(1)) out.stopped = ranked.exit_code;
  return out;
}

// The summary, JUnit, report and exit code of a finished run.
int report_run(const RunPlan& plan, const RunArgs& args, const ResultsWriter& writer, const RunOutcome& outcome,
               const nlohmann::json& env) {
  const SuiteRunSummary& summary = outcome.summary;
  // What was written, read back by the one results reader: the table and
  // JUnit show the file, not a second account of it.
  const ResultsFile written = parse_results(writer.document(), plan.final_results_path());
  std::cout << "\n";
  print_summary_table(std::cout, written);
  std::cout << "\n" << summary.passed << " conforming, " << summary.nonconforming << " not conforming, "
            << summary.skipped << " skipped; negative controls caught: " << summary.controls_caught << " of "
            << summary.controls << "\n";
  if (!summary.teeth().empty()) std::cout << summary.teeth() << "\n";
  print_fp32_warnings(std::cout, env);
  std::cout << "results: " << plan.final_results_path() << "\n";
  if (!args.junit.empty() && plan.rank0()) {
    try {
      gate::write_run_junit(written, args.junit);
      std::cout << "junit:   " << args.junit << "\n";
    } catch (const std::exception& e) {
      std::cerr << "ampbench run: error: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  if (!args.no_report && plan.rank0()) make_report({plan.results_path()}, plan.out_dir + "/report");
  if (plan.staged) {
    const int code = finish_staged_run(plan.final_out, kExitOk);
    if (code != kExitOk) return code;
  }
  if (outcome.launch_exit != 0) return outcome.launch_exit;
  // Exit 1 says why on stderr too: a CI log may show nothing else.
  if (!summary.ok())
    std::cerr << "ampbench run: error: " << summary.nonconforming
              << " case(s) did not conform (an unexpected failure, an uncaught negative control or an error); "
                 "see the lines marked above and "
              << plan.results_path() << "\n";
  return summary.ok() ? kExitOk : kExitFailure;
}

}  // namespace

// plan -> launch the local ranks, or join as one -> run -> report.
int run_suite(const RunArgs& args) {
  RunPlan plan;
  try {
    if (args.no_mkldnn) at::globalContext().setUserEnabledMkldnn(false);
    plan = plan_run(args);
  } catch (const std::exception& e) {
    std::cerr << "ampbench run: error: " << e.what() << "\n";
    return kExitUsage;
  }
  if (args.nproc > 0 && !plan.rank_env) {
    const int code = distributed::launch_local_ranks({args.nproc, args.rank_timeout, plan.out_dir, {}});
    return plan.staged ? finish_staged_run(plan.final_out, code) : code;
  }
  RunOptions options;
  options.measure_throughput = !args.no_throughput;
  options.inject_slowdown = args.inject_slowdown;
  options.dump_dir = args.dump_dir;
  // Destroyed after the Runner (and so every case's Reducer): the process
  // group (NCCL) is shut down inside main(), not at static destruction.
  std::unique_ptr<distributed::ContextScope> process_group;
  if (plan.rank_env) {
    try {
      process_group = join_ranks(plan, args, options);
    } catch (const std::exception& e) {
      std::cerr << "ampbench run: error: rank " << plan.rank_env->rank << " could not join the process group at "
                << plan.rank_env->master_addr << ":" << plan.rank_env->master_port << ": " << first_line(e.what())
                << "\n";
      return kExitRendezvous;
    }
  }
  std::unique_ptr<ResultsWriter> writer;
  nlohmann::json env;
  try {
    env = to_json(probe_environment());
    if (!args.ceilings_file.empty()) env["ceilings"] = read_ceilings(args.ceilings_file);
    env["mkldnn_enabled"] = at::globalContext().userEnabledMkldnn();
    writer = std::make_unique<ResultsWriter>(plan.results_path(), plan.suite.name, plan.suite.path, env);
  } catch (const std::exception& e) {
    std::cerr << "ampbench run: error: " << e.what() << "\n";
    return kExitUsage;
  }
  if (plan.suite.gate.min_effect) writer->set("gate", {{"min_effect", *plan.suite.gate.min_effect}});
  std::cout << "suite " << plan.suite.name << ": " << plan.cases.size() << " cases on " << to_string(plan.device) << " -> "
            << plan.results_path() << "\n";
  print_fp32_warnings(std::cout, env);
  const RunOutcome outcome = run_cases_here_and_in_ranks(plan, args, std::move(options), *writer, ceilings_from_env(env));
  if (outcome.stopped) {
    // Stopped by a signal: the cases the ranks finished are merged; the file
    // stays complete=false and gets no report.
    std::cerr << "ampbench run: error: stopped; results so far (incomplete, no report): " << plan.results_path()
              << "\n";
    return *outcome.stopped;
  }
  writer->finish();
  return report_run(plan, args, *writer, outcome, env);
}

void add_run_command(CLI::App& app, Action& selected) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Run a suite: check every case against fp32, write results JSON and a report");
  sub->add_option("--suite", args->suite, "Suite name (suites/NAME.json) or path [default: conformance on CUDA, smoke on CPU]");
  sub->add_option("--device", args->device, "Device to run on")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  sub->add_option("--out", args->out_dir, "Output directory [default: results/SUITE-DEVICE-TIME]");
  sub->add_option("--filter", args->filter, "Only these cases (plus their fp32 baselines): fields like workload=clip,precision=fp16,model=mlp, or a regex on the case id");
  sub->add_option("--junit", args->junit, "Also write the conformance verdicts as JUnit XML to this file");
  sub->add_option("--dump", args->dump_dir,
                  "Dump each case's initial state, batches, trajectory and final state (torch.load-able) to DIR");
  sub->add_flag("--no-throughput", args->no_throughput, "Skip throughput measurement");
  sub->add_option("--nproc", args->nproc,
                  "Start this many local ranks (DDP over Gloo/NCCL; logs in OUT/rank<N>.log, results from rank 0)")
      ->check(IntegerRange(1, 1024));
  sub->add_option("--rank-timeout", args->rank_timeout,
                  "Seconds a rank may take for one case (process-group timeout and launcher watchdog)")
      ->check(IntegerRange(1, 86400))
      ->capture_default_str();
  sub->add_option("--seed", args->seed, "Seed every case with this instead of the suite's seed")
      ->check(IntegerRange(0, std::numeric_limits<std::uint64_t>::max()));
  sub->add_flag("--no-mkldnn", args->no_mkldnn,
                "CPU: run without oneDNN (other kernels, other rounding; the results' env records it)");
  sub->add_flag("--no-report", args->no_report, "Do not build the HTML/Markdown report");
  sub->add_flag("--allow-oversubscribe", args->allow_oversubscribe,
                "Start more local ranks than the machine holds (2 per CPU core, 1 per GPU)");
  sub->add_flag("--overwrite", args->overwrite,
                "Reuse a non-empty --out: the previous run's results, report and rank folders are replaced once this "
                "run completes");
  sub->add_option("--inject-slowdown", args->inject_slowdown,
                  "Debug: add busy work equal to this fraction of each timed step (gate calibration)")
      ->check(FiniteRange(0.0, 10.0))
      ->group("Debug");
  sub->add_option("--ceilings", args->ceilings_file,
                  "Embed these measured ceilings (JSON, as `ampbench qualify` writes) in the env block and report "
                  "model FLOP utilisation per case")
      ->check(CLI::ExistingFile);
  sub->callback([args, &selected] { selected = [args] { return run_suite(*args); }; });
}

}  // namespace ampbench::cli
