#include "session/run_session.h"

#include <ATen/Context.h>
#include <torch/cuda.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distributed/context.h"
#include "distributed/launcher.h"
#include "distributed/stop_signals.h"
#include "env/env_fingerprint.h"
#include "io/output_path.h"
#include "results/run_junit.h"
#include "runner/determinism.h"
#include "session/exit_codes.h"
#include "session/local_ranks.h"
#include "session/run_plan.h"
#include "session/suite_run.h"
#include "session/summary_table.h"
#include "workloads/workload.h"

namespace ampbench {

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

// Who this machine is in a fleet (reports/fleet.py): AMPBENCH_MACHINE_ID
// when set (a scheduler's node or pod name, or simulated machines sharing
// one host), else the host name.
std::string machine_id(const std::string& host) {
  const char* id = std::getenv("AMPBENCH_MACHINE_ID");
  return id != nullptr && *id != '\0' ? std::string(id) : host;
}

nlohmann::json determinism_json(const std::optional<DeterminismSettings>& d) {
  if (!d) return false;
  return {{"algorithms", true},
          {"intra_op_threads", d->intra_op_threads},
          {"cublas_workspace_config", d->cublas_workspace_config.empty() ? nlohmann::json(nullptr)
                                                                         : nlohmann::json(d->cublas_workspace_config)}};
}

// c10d's messages carry a C++ backtrace after the first line.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

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

// This process as one rank of a launched world: joins the process group and
// sets the runner up to keep the ranks in step. Only ddp cases need every
// rank; the others run on rank 0 alone while the rest wait at the per-case
// barrier (so they are timed undisturbed).
std::unique_ptr<distributed::ContextScope> join_ranks(RunPlan& plan, const RunSettings& args, RunOptions& options) {
  const distributed::RankEnv& env = *plan.rank_env;
  auto scope = std::make_unique<distributed::ContextScope>(
      distributed::join(env, plan.device == DeviceKind::kCuda, std::chrono::seconds(args.rank_timeout)));
  options.context = scope->get();
  for (CaseSpec& c : plan.cases) {
    c.device_index = plan.device == DeviceKind::kCuda ? env.local_rank : 0;
    if (!find_workload(c.workload->name()).collective()) continue;
    c.world_size = env.world_size;
    c.rank = env.rank;
  }
  const int rank = env.rank;
  if (rank != 0)
    options.skip_here = [](const CaseSpec& c) {
      return find_workload(c.workload->name()).collective() ? "" : "runs on rank 0 only";
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
  int launch_exit = 0;         // the local ranks' launcher, when it failed
  std::optional<int> stopped;  // the exit code of a run stopped by a signal
};

// The cases this process runs, then (single process) the ddp cases that need
// local ranks, merged into the same results as they finish.
// Where each case runs: in this process, or (ddp cases of a launcher) in
// local ranks after the others.
struct CasePlacement {
  std::vector<CaseSpec> here, in_ranks;
};

CasePlacement place_cases(const RunPlan& plan) {
  if (plan.rank_env) return {plan.cases, {}};
  CasePlacement p;
  // A case the compiled implementation skips is skipped here, not launched.
  for (const CaseSpec& c : plan.cases)
    (needs_local_ranks(c) && !plan.not_compiled.count(c.id) ? p.in_ranks : p.here).push_back(c);
  return p;
}

// "suite smoke: 199 cases on cpu (191 here, counted [i/191] below, then 8
// ddp cases in local ranks) -> ...": the header counts what the progress does.
void print_header(std::ostream& out, const RunPlan& plan, const CasePlacement& placed) {
  out << "suite " << plan.suite.name << ": " << plan.cases.size() << " cases on " << to_string(plan.device);
  if (!plan.not_compiled.empty() || std::any_of(plan.cases.begin(), plan.cases.end(), [](const CaseSpec& c) {
        return c.implementation == Implementation::kCompiled;
      }))
    out << ", compiled by torch.compile (" << plan.not_compiled.size() << " not compiled, skipped)";
  if (!placed.in_ranks.empty())
    out << " (" << placed.here.size() << " here, counted [i/" << placed.here.size() << "] below, then "
        << placed.in_ranks.size() << " ddp in local ranks)";
  out << " -> " << plan.results_path() << "\n";
}

RunOutcome run_cases_here_and_in_ranks(const RunPlan& plan, const RunSettings& args, RunOptions options,
                                       ResultsWriter& writer, const RunContext& context,
                                       const CasePlacement& placed) {
  const std::vector<CaseSpec>& here = placed.here;
  const std::vector<CaseSpec>& in_ranks = placed.in_ranks;
  RunOutcome out;
  out.summary = run_cases(here, Runner(std::move(options)), writer, std::cout, context);
  if (in_ranks.empty()) return out;
  const RankRunResult ranked = run_in_local_ranks(
      in_ranks, {plan.suite.path, plan.device, plan.out_dir + "/ddp-ranks", args.rank_timeout, args.no_throughput,
                 args.inject_slowdown, args.dump_dir, args.seed, args.no_mkldnn, args.deterministic,
                 args.inject_bitflip_step});
  // Each case as rank 0 wrote it, checked by the one reader on the way in.
  const std::vector<ResultsCase>& done = ranked.rank0.cases;
  for (std::size_t i = 0; i < done.size(); ++i) {
    writer.add_json(ranked.rank0.doc.at("cases").at(i));
    out.summary.add(tally_of(done[i]));
  }
  if (done.size() < in_ranks.size()) {
    std::cerr << "ampbench run: error: " << in_ranks.size() - done.size() << " of " << in_ranks.size()
              << " ddp cases did not finish (see the ranks' logs in " << plan.out_dir << "/ddp-ranks)\n";
    out.summary.add_unfinished(static_cast<int>(in_ranks.size() - done.size()));
  }
  out.launch_exit = ranked.exit_code > 1 ? ranked.exit_code : 0;
  if (ranked.exit_code >= distributed::stopped_exit_code(1)) out.stopped = ranked.exit_code;
  return out;
}

// A ddp rank decides on the suite's seed alone: a fresh-seed run is
// collective, and the ranks would have to agree first on which cases need one.
ConfirmationRule confirmation_rule(const RunPlan& plan, const RunSettings& args) {
  ConfirmationRule rule;
  rule.seeds = plan.rank_env ? 0 : args.confirm_seeds;
  return rule;
}

// The decision rule as the results state it: what a correct case's verdict
// risks at the calibrated single-seed rate (docs/calibration.md).
nlohmann::json verdict_rule_json(const ConfirmationRule& rule) {
  return {{"confirmation_seeds", rule.seeds},
          {"grey_limit", rule.grey_limit},
          {"calibrated_exceed_rate", kCalibratedExceedRate},
          {"per_case_false_alarm", per_case_false_alarm(kCalibratedExceedRate, rule)}};
}

// The summary, JUnit, report and exit code of a finished run.
int report_run(const RunPlan& plan, const RunSettings& args, const ResultsWriter& writer, const RunOutcome& outcome,
               const nlohmann::json& env) {
  const SuiteRunSummary& summary = outcome.summary;
  // What was written, read back by the one results reader: the table and
  // JUnit show the file, not a second account of it.
  const ResultsFile written = parse_results(writer.document(), plan.final_results_path());
  std::cout << "\n";
  print_summary_table(std::cout, written);
  std::cout << "\nverdicts: " << summary.counts() << "\n";
  if (!summary.teeth().empty()) std::cout << summary.teeth() << "\n";
  print_fp32_warnings(std::cout, env);
  std::cout << "results: " << plan.final_results_path() << "\n";
  if (!args.junit.empty() && plan.rank0()) {
    try {
      write_run_junit(written, args.junit);
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
int run_session(const RunSettings& args) {
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
  // Before any CUDA work: cuBLAS reads its workspace setting once.
  std::optional<DeterminismSettings> determinism;
  if (args.deterministic) determinism = enable_determinism(plan.device == DeviceKind::kCuda);
  RunOptions options;
  options.measure_throughput = !args.no_throughput;
  options.inject_slowdown = args.inject_slowdown;
  options.fingerprint = args.deterministic;
  options.inject_bitflip_step = args.inject_bitflip_step;
  options.dump_dir = args.dump_dir;
  const std::optional<CompiledSettings> compiled = compiled_settings(args, plan.out_dir);
  if (compiled) {
    options.dump_dir = compiled->dump_dir;  // each compiled case starts from its eager run's dump
    options.skip_here = [refused = plan.not_compiled](const CaseSpec& c) {
      const auto it = refused.find(c.id);
      return it == refused.end() ? std::string() : "not compiled: " + it->second;
    };
  }
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
    env["machine_id"] = machine_id(env.value("host", std::string("none")));
    env["deterministic"] = determinism_json(determinism);
    add_implementation_env(env, compiled);
    if (args.inject_bitflip_step >= 0) env["injected_bitflip_step"] = args.inject_bitflip_step;
    // A run slowed on purpose must never pass for a measurement of the build.
    if (args.inject_slowdown > 0) env["injected_slowdown"] = args.inject_slowdown;
    writer = std::make_unique<ResultsWriter>(plan.results_path(), plan.suite.name, plan.suite.path, env);
  } catch (const std::exception& e) {
    std::cerr << "ampbench run: error: " << e.what() << "\n";
    return kExitUsage;
  }
  if (plan.suite.gate.min_effect) writer->set("gate", {{"min_effect", *plan.suite.gate.min_effect}});
  const RunContext context{ceilings_from_env(env), confirmation_rule(plan, args), compiled};
  writer->set("verdict_rule", verdict_rule_json(context.confirmation));
  const CasePlacement placed = place_cases(plan);
  print_header(std::cout, plan, placed);
  print_fp32_warnings(std::cout, env);
  const RunOutcome outcome = run_cases_here_and_in_ranks(plan, args, std::move(options), *writer, context, placed);
  if (outcome.stopped) {
    // Stopped by a signal: the cases the ranks finished are merged; the file
    // stays complete=false and gets no report.
    std::cerr << "ampbench run: error: stopped; results so far (incomplete, no report): " << plan.results_path()
              << "\n";
    return *outcome.stopped;
  }
  writer->set("summary", outcome.summary.to_json());
  if (!outcome.summary.unusable_input.empty()) {
    // Left incomplete (no report): the cases after it never ran.
    std::cerr << "ampbench run: error: " << outcome.summary.unusable_input << "; results so far (incomplete): "
              << plan.results_path() << "\n";
    return kExitUsage;
  }
  writer->finish();
  return report_run(plan, args, *writer, outcome, env);
}

}  // namespace ampbench
