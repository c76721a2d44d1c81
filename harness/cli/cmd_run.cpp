#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <memory>

#include "cli/command.h"
#include "cli/finite_range.h"
#include "cli/integer_range.h"
#include "runner/determinism.h"
#include "spec/implementation.h"
#include "session/run_session.h"

namespace ampbench::cli {

void add_run_command(CLI::App& app, Action& selected) {
  auto args = std::make_shared<RunSettings>();
  CLI::App* sub = app.add_subcommand("run", "Run a suite: check every case against fp32, write results JSON and a report");
  sub->add_option("--suite", args->suite, "Suite name (suites/NAME.json) or path [default: conformance on CUDA, smoke on CPU]");
  sub->add_option("--device", args->device, "Device to run on")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  sub->add_option("--out", args->out_dir, "Output directory [default: results/SUITE-DEVICE-TIME]");
  sub->add_option("--filter", args->filter, "Only these cases (plus their fp32 baselines): fields like workload=clip,precision=fp16,model=mlp, or a regex on the case id");
  sub->add_option("--junit", args->junit, "Also write the conformance verdicts as JUnit XML to this file");
  sub->add_option("--dump", args->dump_dir,
                  "Dump each case's initial state, batches, trajectory and final state (torch.load-able) to DIR "
                  "(a new or empty folder, as --out; with --overwrite, one a previous --dump wrote)");
  sub->add_flag("--no-throughput", args->no_throughput, "Skip throughput measurement");
  sub->add_option("--nproc", args->nproc,
                  "Start this many local ranks (DDP over Gloo/NCCL; logs in OUT/rank<N>.log, results from rank 0)")
      ->transform(IntegerRange(1, 1024));
  sub->add_option("--rank-timeout", args->rank_timeout,
                  "Seconds a rank may take for one case (process-group timeout and launcher watchdog)")
      ->transform(IntegerRange(1, 86400))
      ->capture_default_str();
  sub->add_option("--seed", args->seed, "Seed every case with this instead of the suite's seed")
      ->transform(IntegerRange(0, std::numeric_limits<std::uint64_t>::max()));
  sub->add_option("--confirm-seeds", args->confirm_seeds,
                  "A case just beyond its bound (at most 3x) is run again, with its fp32 baseline, from up to this many "
                  "fresh seeds; it fails only if each fails too (0: the suite's seed alone decides; docs/checks.md)")
      ->transform(IntegerRange(0, 10))
      ->capture_default_str();
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
  sub->add_flag("--deterministic", args->deterministic,
                "Deterministic algorithms, " + std::to_string(kDeterministicThreads) +
                    " intra-op thread(s), fixed cuBLAS workspace; record a hash of each case's loss trajectory, final "
                    "parameters and optimizer state (fleet qualification: docs/fleet.md)");
  sub->add_option("--inject-bitflip", args->inject_bitflip_step,
                  "Test only: at this optimizer step, flip the lowest mantissa bit of the first parameter's gradient "
                  "in every case (silent data corruption for the fleet report to find)")
      ->transform(IntegerRange(0, 1000000))
      ->group("Debug");
  sub->add_option("--implementation", args->implementation,
                  "eager: ampbench's C++ loop; compiled: the same recipes in PyTorch's Python with the model "
                  "compiled by torch.compile, judged against the eager fp32 baselines (docs/compiled.md)")
      ->check(CLI::IsMember({"eager", "compiled"}))
      ->capture_default_str();
  sub->add_option("--compile-mode", args->compile_mode, "torch.compile's mode (with --implementation compiled)")
      ->check(CLI::IsMember(kCompileModes))
      ->capture_default_str();
  sub->add_flag("--compile-step", args->compile_step,
                "Compile the optimizer step too (with --implementation compiled)");
  sub->add_option("--compile-cache", args->compile_cache,
                  "One Inductor cache for every compiled case, kept between runs (a new or empty folder, or one an "
                  "earlier --compile-cache filled): cold compiles are then not cold, and the results say so "
                  "(with --implementation compiled; default: each case's own cache, emptied first)");
  sub->add_option("--inject-compile-fault", args->inject_compile_fault,
                  "Test only: a wrong compiled graph (drop_autocast_cast removes autocast's first cast), which the "
                  "checker must fail")
      ->check(CLI::IsMember(kCompileFaults))
      ->group("Debug");
  sub->add_option("--ceilings", args->ceilings_file,
                  "Embed these measured ceilings (JSON, as `ampbench qualify` writes) in the env block and report "
                  "model FLOP utilisation per case")
      ->check(CLI::ExistingFile);
  sub->callback([args, &selected] { selected = [args] { return run_session(*args); }; });
}

}  // namespace ampbench::cli
