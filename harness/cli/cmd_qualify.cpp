// `ampbench qualify`: one command for hardware qualification. Measures the
// device's ceilings (memory bandwidth, matmul rate per dtype), runs the
// suites with those ceilings embedded (so every case reports its model FLOP
// utilisation), draws one report over all of them, and ends with a pass/fail
// summary and exit code.
#include <c10/core/Device.h>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "session/run_session.h"
#include "cli/command.h"
#include "io/atomic_file.h"
#include "io/output_path.h"
#include "kernels/ceilings.h"
#include "suite/suite.h"
#include "results/results_writer.h"

namespace ampbench::cli {
namespace {

struct QualifyArgs {
  std::string device = "auto";
  std::string out_dir;
  std::vector<std::string> suites;  // empty: by device
  bool no_report = false;
  bool overwrite = false;
};

// "a,b" -> {a, b}; an empty name anywhere (`--suites ''`, `--suites ,`,
// `a,,b`) is refused: it used to fall back to the default suites.
std::vector<std::string> split_suite_names(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  std::string name;
  while (std::getline(in, name, ',')) names.push_back(name);
  if (!text.empty() && text.back() == ',') names.emplace_back();
  const bool blank = names.empty() || std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); });
  if (blank) throw CLI::ValidationError("--suites", "empty suite name in '" + text + "' (expected e.g. --suites smoke,throughput)");
  return names;
}

// GPU machines get the full matrix and the GPU-sized throughput suite; a CPU
// gets the smoke matrix (the GPU-sized suites would take hours on 2 cores).
std::vector<std::string> default_suites(DeviceKind device) {
  if (device == DeviceKind::kCuda) return {"conformance", "throughput"};
  return {"smoke"};
}

void print_ceilings(const nlohmann::json& c) {
  std::cout << "ceilings on " << c["device"].get<std::string>() << " (median of " << c["repetitions"]
            << " runs): memory " << std::fixed << std::setprecision(1) << c["memory_bandwidth_gbs"].get<double>()
            << " GB/s; matmul " << c["gemm_size"] << "^3 TFLOP/s:";
  for (const auto& [dtype, value] : c["matmul_tflops"].items()) {
    std::cout << " " << dtype << " ";
    if (value.is_number()) {
      std::cout << std::setprecision(3) << value.get<double>();
    } else {
      std::cout << "n/a";
    }
  }
  std::cout << "\n";
}

// Each suite as `ampbench run` would run it, with the measured ceilings
// embedded; stops after a suite that is unusable input.
std::vector<std::pair<std::string, int>> run_suites(const std::vector<std::string>& suites, DeviceKind device,
                                                    const std::string& out, const std::string& ceilings_path,
                                                    std::vector<std::string>& results) {
  std::vector<std::pair<std::string, int>> outcomes;
  for (const std::string& suite : suites) {
    std::cout << "\n== suite " << suite << "\n" << std::flush;
    RunSettings run;
    run.suite = suite;
    run.device = to_string(device);
    run.out_dir = out + "/" + suite;
    run.ceilings_file = ceilings_path;
    run.no_report = true;
    run.overwrite = true;  // qualify checked --out above; each suite's folder is its own
    const int code = run_session(run);
    outcomes.emplace_back(suite, code);
    if (std::filesystem::exists(run.out_dir + "/results.json")) results.push_back(run.out_dir + "/results.json");
    if (code == kExitUsage) break;  // a broken suite: nothing after it is meaningful
  }
  return outcomes;
}

// The verdict table; returns the exit code.
int print_qualification(DeviceKind device, const std::string& out,
                        const std::vector<std::pair<std::string, int>>& outcomes, bool reported) {
  int worst = kExitOk;
  std::cout << "\n== qualification of " << to_string(device) << " (" << out << ")\n";
  for (const auto& [suite, code] : outcomes) {
    std::cout << "  " << std::left << std::setw(14) << suite << std::right
              << (code == kExitOk ? "PASS" : code == kExitFailure ? "FAIL (a case does not conform)" : "ERROR")
              << "\n";
    worst = std::max(worst, code);
  }
  if (!reported) std::cout << "  report        FAILED (results are intact)\n";
  std::cout << (worst == kExitOk && reported ? "QUALIFIED" : "NOT QUALIFIED") << "\n";
  return worst != kExitOk ? worst : reported ? kExitOk : kExitFailure;
}

int qualify(const QualifyArgs& args) {
  DeviceKind device = DeviceKind::kCpu;
  try {
    device = resolve_device(args.device);
  } catch (const std::exception& e) {
    std::cerr << "ampbench qualify: error: " << e.what() << "\n";
    return kExitUsage;
  }
  std::string stamp = utc_now_iso8601();
  for (char& ch : stamp)
    if (ch == ':') ch = '-';
  const std::string out = args.out_dir.empty() ? "results/qualify-" + to_string(device) + "-" + stamp : args.out_dir;
  const std::vector<std::string> suites = args.suites.empty() ? default_suites(device) : args.suites;
  try {
    // Every suite read before the ceilings are measured: a misspelt last
    // suite used to be refused only after the others had run.
    for (const std::string& suite : suites) load_suite(suite, device);
    if (args.overwrite) io::check_replaceable("--out", out);
    io::prepare_output_dir("--out", out, !args.overwrite);
    io::mark_run_dir(out, "qualify");
  } catch (const std::exception& e) {
    std::cerr << "ampbench qualify: error: " << e.what() << "\n";
    return kExitUsage;
  }

  std::cout << "== ceilings\n";
  nlohmann::json ceilings;
  const std::string ceilings_path = out + "/ceilings.json";
  try {
    const bool cuda = device == DeviceKind::kCuda;
    const c10::Device dev(cuda ? c10::kCUDA : c10::kCPU, cuda ? 0 : -1);
    kernels::to_json(ceilings, kernels::measure_ceilings(kernels::CeilingOptions::for_device(dev)));
    io::write_file_atomically(ceilings_path, ceilings.dump(1));
  } catch (const std::exception& e) {
    std::cerr << "ampbench qualify: error: measuring ceilings: " << e.what() << "\n";
    return kExitUsage;
  }
  print_ceilings(ceilings);

  std::vector<std::string> results;
  const auto outcomes = run_suites(suites, device, out, ceilings_path, results);
  bool reported = true;
  if (!args.no_report && !results.empty()) {
    std::cout << "\n== report\n";
    reported = make_report(results, out + "/report");
  }
  return print_qualification(device, out, outcomes, reported);
}

}  // namespace

void add_qualify_command(CLI::App& app, Action& selected) {
  auto args = std::make_shared<QualifyArgs>();
  CLI::App* sub = app.add_subcommand(
      "qualify", "Hardware qualification: measure ceilings, run the suites with utilisation, report, pass/fail");
  sub->add_option("--device", args->device, "Device to qualify")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  sub->add_option("--out", args->out_dir, "Output directory [default: results/qualify-DEVICE-TIME]");
  // One token, split here: CLI11's own splitting of `--suites ,` consumed
  // the next flag as a suite name.
  auto suites = std::make_shared<std::string>();
  CLI::Option* suites_option =
      sub->add_option("--suites", *suites, "Suites to run, comma-separated [default: conformance,throughput on CUDA; smoke on CPU]");
  sub->add_flag("--no-report", args->no_report, "Do not build the report");
  sub->add_flag("--overwrite", args->overwrite, "Reuse a non-empty --out, replacing its suites' results");
  sub->callback([args, suites, suites_option, &selected] {
    if (suites_option->count() > 0) args->suites = split_suite_names(*suites);
    selected = [args] { return qualify(*args); };
  });
}

}  // namespace ampbench::cli
