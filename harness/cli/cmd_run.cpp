#include <ATen/Context.h>
#include <torch/cuda.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "cli/cmd_run.h"
#include "cli/command.h"
#include "cli/finite_range.h"
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

std::string resolve_device(const std::string& requested) {
  if (requested == "auto") return torch::cuda::is_available() ? "cuda" : "cpu";
  if (requested == "cuda" && !torch::cuda::is_available())
    throw std::invalid_argument("--device cuda: no CUDA device is available on this machine");
  return requested;
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

std::string default_out_dir(const std::string& suite, const std::string& device) {
  std::string stamp = utc_now_iso8601();
  for (char& c : stamp)
    if (c == ':') c = '-';
  return "results/" + suite + "-" + device + "-" + stamp;
}

// c10d's messages carry a C++ backtrace after the first line.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Each local rank is a process with its own threads and model copies: more
// ranks than the machine can hold were started until the OS refused.
void check_rank_count(const RunArgs& args, const std::vector<CaseSpec>& cases, const std::string& device) {
  int wanted = args.nproc;
  for (const CaseSpec& c : cases)
    if (needs_local_ranks(c)) wanted = std::max(wanted, c.world_size);
  if (wanted <= 1 || args.allow_oversubscribe) return;
  const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  // CPU: two ranks per core still make progress; CUDA: one GPU per rank.
  const int cap = device == "cuda" ? static_cast<int>(torch::cuda::device_count()) : static_cast<int>(2 * cores);
  if (device == "cuda" && args.nproc == 0) return;  // ddp cases run on the GPUs there are (local_ranks.cpp)
  if (wanted > std::max(cap, 2))
    throw std::invalid_argument(std::to_string(wanted) + " ranks (" + (args.nproc > 0 ? "--nproc" : "a case's world_size") +
                                ") exceed what this machine holds (" + std::to_string(std::max(cap, 2)) + " on " +
                                (device == "cuda" ? "its GPUs" : std::to_string(cores) + " cores") +
                                "); pass --allow-oversubscribe to start them anyway");
}

// Every output checked before any case runs (io/output_path.h).
void check_outputs(const RunArgs& args, const std::string& out_dir) {
  io::prepare_output_dir("--out", out_dir, !args.overwrite);
  if (args.overwrite) io::prepare_staging_dir(out_dir);
  if (!args.junit.empty()) io::check_output_file("--junit", args.junit);
  if (!args.dump_dir.empty()) io::prepare_output_dir("--dump", args.dump_dir, false);
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

// Runs argv[0] (no shell: a shell would fork the real program as a
// grandchild, which PR_SET_PDEATHSIG does not reach) in `cwd`, as a child
// that dies with this process: a report must not go on being built for a
// run that was stopped. Returns its exit status, -1 if it did not exit.
int run_dying_with_us(const std::vector<std::string>& argv, const std::string& cwd) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::cout << std::flush;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    distributed::die_with_parent(parent);
    if (::chdir(cwd.c_str()) != 0) _exit(127);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The report is Python (reports/); a failure there never loses the results.
bool make_report(const std::vector<std::string>& results_paths, const std::string& report_dir) {
  const char* python = std::getenv("AMPBENCH_PYTHON");
  const std::string py = python ? python : build_info::default_python();
  std::vector<std::string> argv = {py, "-m", "reports"};
  for (const std::string& p : results_paths) argv.push_back(std::filesystem::absolute(p).string());
  argv.insert(argv.end(), {"--out", std::filesystem::absolute(report_dir).string()});
  std::string cmd;  // for the message
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  if (run_dying_with_us(argv, build_info::source_dir()) == 0) {
    std::cout << "report:  " << report_dir << "/index.html\n";
    return true;
  }
  std::cerr << "ampbench: warning: the report step failed (results are intact): " << cmd << "\n";
  return false;
}

int run_suite(const RunArgs& args) {
  std::string device;
  Suite suite;
  try {
    device = resolve_device(args.device);
    suite = load_suite(args.suite.empty() ? (device == "cuda" ? "conformance" : "smoke") : args.suite, device);
  } catch (const std::exception& e) {
    std::cerr << "ampbench run: error: " << e.what() << "\n";
    return kExitUsage;
  }
  std::vector<CaseSpec> cases;
  try {
    cases = select_cases(suite, args.filter);
  } catch (const std::exception& e) {
    std::cerr << "ampbench run: error: " << e.what() << "\n";
    return kExitUsage;
  }
  if (args.seed)
    for (CaseSpec& c : cases) c.seed = *args.seed;
  if (args.no_mkldnn) at::globalContext().setUserEnabledMkldnn(false);
  if (cases.empty()) {
    std::cerr << "ampbench run: error: --filter '" << shown_filter(args.filter) << "' matches no case of suite " << suite.name << "\n";
    return kExitUsage;
  }
  std::string out_dir = args.out_dir.empty() ? default_out_dir(suite.name, device) : args.out_dir;

  // Distributed: --nproc N starts N ranks of this very command; a process
  // started with RANK/WORLD_SIZE/... (by that launcher, torchrun or Slurm)
  // joins them. Without either, ddp cases run as a world of one.
  std::optional<distributed::RankEnv> rank_env;
  try {
    rank_env = distributed::rank_env_from_environment();
  } catch (const std::exception& e) {
    std::cerr << "ampbench run: error: " << e.what() << "\n";
    return kExitUsage;
  }
  if (rank_env && std::getenv(distributed::kRankOutDirEnv)) out_dir = std::getenv(distributed::kRankOutDirEnv);
  // Ranks write where their launcher, which checked it, tells them.
  if (!rank_env) {
    try {
      check_rank_count(args, cases, device);
      check_outputs(args, out_dir);
    } catch (const std::exception& e) {
      std::cerr << "ampbench run: error: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  // --overwrite: this run goes to a staging folder and replaces the previous
  // one only once complete (io/output_path.h).
  const std::string final_out = out_dir;
  const bool staged = !rank_env && args.overwrite;
  if (staged) out_dir = io::staging_dir(final_out);
  if (args.nproc > 0 && !rank_env) {
    const int code = distributed::launch_local_ranks({args.nproc, args.rank_timeout, out_dir, {}});
    return staged ? finish_staged_run(final_out, code) : code;
  }
  RunOptions options;
  // Destroyed after the Runner (and so every case's Reducer): the process
  // group (NCCL) is shut down inside main(), not at static destruction.
  std::unique_ptr<distributed::ContextScope> process_group;
  if (rank_env) {
    try {
      process_group = std::make_unique<distributed::ContextScope>(
          distributed::join(*rank_env, device == "cuda", std::chrono::seconds(args.rank_timeout)));
      options.context = process_group->get();
    } catch (const std::exception& e) {
      std::cerr << "ampbench run: error: rank " << rank_env->rank << " could not join the process group at "
                << rank_env->master_addr << ":" << rank_env->master_port << ": " << first_line(e.what()) << "\n";
      return kExitRendezvous;
    }
    for (CaseSpec& c : cases) {
      c.device_index = device == "cuda" ? rank_env->local_rank : 0;
      if (!find_workload(c.workload).collective()) continue;
      c.world_size = rank_env->world_size;
      c.rank = rank_env->rank;
    }
    const int rank = rank_env->rank;
    // Only ddp cases need every rank; the others run on rank 0 alone while
    // the rest wait at the per-case barrier (so they are timed undisturbed).
    if (rank != 0)
      options.skip_here = [](const CaseSpec& c) {
        return find_workload(c.workload).collective() ? "" : "runs on rank 0 only";
      };
    options.after_case = [rank, context = options.context](const CaseSpec& c) {
      // Suite cases only: the checker's aligned fp32 re-runs of rank-0-only
      // cases happen on rank 0 alone.
      if (c.id.find("#aligned-to:") != std::string::npos) return;
      try {
        context->group->barrier()->wait();
      } catch (const std::exception& e) {
        std::cerr << "ampbench run: error: rank " << rank << " lost the other ranks: " << e.what() << std::endl;
        std::cout.flush();
        _exit(kExitRendezvous);
      }
    };
    std::cout << "rank " << rank << " of " << rank_env->world_size << " (local rank " << rank_env->local_rank
              << ", backend " << options.context->backend << ")\n";
  }
  const bool rank0 = !rank_env || rank_env->rank == 0;
  const std::string results_path =
      rank0 ? out_dir + "/results.json" : out_dir + "/rank" + std::to_string(rank_env->rank) + "/results.json";
  std::unique_ptr<ResultsWriter> writer;
  nlohmann::json env;
  try {
    env = to_json(probe_environment());
    if (!args.ceilings_file.empty()) env["ceilings"] = read_ceilings(args.ceilings_file);
    env["mkldnn_enabled"] = at::globalContext().userEnabledMkldnn();
    writer = std::make_unique<ResultsWriter>(results_path, suite.name, suite.path, env);
  } catch (const std::exception& e) {
    std::cerr << "ampbench run: error: " << e.what() << "\n";
    return kExitUsage;
  }
  if (suite.gate.min_effect) writer->set("gate", {{"min_effect", *suite.gate.min_effect}});
  std::cout << "suite " << suite.name << ": " << cases.size() << " cases on " << device << " -> " << results_path
            << "\n";
  print_fp32_warnings(std::cout, env);

  options.measure_throughput = !args.no_throughput;
  options.inject_slowdown = args.inject_slowdown;
  options.dump_dir = args.dump_dir;
  std::vector<CaseSpec> here = cases, in_ranks;
  if (!rank_env) {
    here.clear();
    for (const CaseSpec& c : cases) (needs_local_ranks(c) ? in_ranks : here).push_back(c);
  }
  SuiteRunSummary summary = run_cases(here, Runner(std::move(options)), *writer, std::cout, ceilings_from_env(env));
  int launch_exit = 0;
  if (!in_ranks.empty()) {
    const RankRunResult ranked = run_in_local_ranks(
        in_ranks, {suite.path, device, out_dir + "/ddp-ranks", args.rank_timeout, args.no_throughput,
                   args.inject_slowdown, args.dump_dir, args.seed, args.no_mkldnn});
    for (const nlohmann::json& c : ranked.cases) {
      writer->add_json(c);
      summary.add(tally_of(c));
    }
    if (ranked.cases.size() < in_ranks.size()) {
      std::cerr << "ampbench run: error: " << in_ranks.size() - ranked.cases.size() << " of " << in_ranks.size()
                << " ddp cases did not finish (see the ranks' logs in " << out_dir << "/ddp-ranks)\n";
      summary.nonconforming += static_cast<int>(in_ranks.size() - ranked.cases.size());
    }
    launch_exit = ranked.exit_code > 1 ? ranked.exit_code : 0;
    if (ranked.exit_code >= distributed::stopped_exit_code(1)) {
      // Stopped by a signal: the cases the ranks finished are merged above;
      // the file stays complete=false and gets no report.
      std::cerr << "ampbench run: error: stopped; results so far (incomplete, no report): " << results_path << "\n";
      return ranked.exit_code;
    }
  }
  writer->finish();

  std::cout << "\n";
  print_summary_table(std::cout, writer->document());
  std::cout << "\n" << summary.passed << " conforming, " << summary.nonconforming << " not conforming, "
            << summary.skipped << " skipped; negative controls caught: " << summary.controls_caught << " of "
            << summary.controls << "\n";
  if (!summary.teeth().empty()) std::cout << summary.teeth() << "\n";
  print_fp32_warnings(std::cout, env);
  std::cout << "results: " << (staged ? final_out + "/results.json" : results_path) << "\n";
  if (!args.junit.empty() && rank0) {
    try {
      gate::write_run_junit(writer->document(), args.junit);
      std::cout << "junit:   " << args.junit << "\n";
    } catch (const std::exception& e) {
      std::cerr << "ampbench run: error: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  if (!args.no_report && rank0) make_report({results_path}, out_dir + "/report");
  if (staged) {
    const int code = finish_staged_run(final_out, kExitOk);
    if (code != kExitOk) return code;
  }
  if (launch_exit != 0) return launch_exit;
  // Exit 1 says why on stderr too: a CI log may show nothing else.
  if (!summary.ok())
    std::cerr << "ampbench run: error: " << summary.nonconforming
              << " case(s) did not conform (an unexpected failure, an uncaught negative control or an error); "
                 "see the lines marked above and " << results_path << "\n";
  return summary.ok() ? kExitOk : kExitFailure;
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
      ->check(CLI::Range(1, 1024));
  sub->add_option("--rank-timeout", args->rank_timeout,
                  "Seconds a rank may take for one case (process-group timeout and launcher watchdog)")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  sub->add_option("--seed", args->seed, "Seed every case with this instead of the suite's seed");
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
