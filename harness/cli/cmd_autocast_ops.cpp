// `ampbench autocast-ops`: does autocast, driven from C++, cast each op as
// PyTorch's own policy does on this device? The expected table is Python's,
// measured on this machine by reference/python/autocast_policy.py (or read
// from --expected). It covers every entry of PyTorch's own autocast test
// lists for the device, read from the installed torch and serialized into
// the table, which C++ calls boxed (amp/autocast_list_calls.h), and our own
// op list, harness/amp/autocast_ops.json, which both sides read
// (amp/autocast_policy.h).
#include <c10/core/Device.h>
#include <torch/headeronly/version.h>

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "amp/autocast_coverage.h"
#include "amp/autocast_list_calls.h"
#include "amp/autocast_policy.h"
#include "session/child_process.h"
#include "session/run_session.h"
#include "cli/command.h"
#include "core/build_info.h"
#include "io/atomic_file.h"
#include "io/json_file.h"
#include "io/output_path.h"
#include "results/results_writer.h"

namespace ampbench::cli {
namespace {

struct AutocastOpsArgs {
  std::string device = "auto";
  std::string expected;  // "": run the Python oracle
  std::string out_dir;
};

// Bad input (exit 2): device, --expected, --out, the op list.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const std::vector<at::ScalarType> kDtypes = {at::kHalf, at::kBFloat16};

std::string ops_file() { return std::string(build_info::source_dir()) + "/harness/amp/autocast_ops.json"; }

// --expected FILE: a table of the oracle's format, measured on this device.
nlohmann::json read_expected(const std::string& path, const std::string& device) {
  nlohmann::json table;
  try {
    table = io::read_json_file(path);
  } catch (const io::JsonFileError& e) {
    throw UsageError(std::string("--expected ") + e.what());
  }
  if (!table.is_object() || !table.contains("device") || !table["device"].is_string())
    throw UsageError("--expected " + path + ": not an autocast policy table (no \"device\")");
  if (table["device"] != device)
    throw UsageError("--expected " + path + " was measured on " + table["device"].get<std::string>() +
                     ", this run is on " + device);
  return table;
}

// Python's table for this device, both dtypes, written beside ours (it can
// be passed back as --expected).
nlohmann::json run_oracle(const std::string& device, const std::string& out_dir) {
  const std::string path = std::filesystem::absolute(out_dir + "/python-policy.json").string();
  const std::vector<std::string> argv = {python_interpreter(), "-m", "reference.python.autocast_policy",
                                         "--device", device, "--ops", ops_file(), "--out", path};
  const int code = run_dying_with_us(argv, build_info::source_dir());
  if (code != 0) {
    std::string cmd;
    for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    throw std::runtime_error("the Python oracle failed (exit " + std::to_string(code) + "): " + cmd);
  }
  return io::read_json_file(path);
}

std::string shown(const std::optional<amp::OpOutcome>& row) {
  if (!row) return "-";
  if (row->cannot_call) return "-";
  if (row->skipped) return "skipped";
  return row->error ? "raises" : row->output_dtype.value_or("?");
}

std::string shown_flag(const std::optional<amp::OpOutcome>& row) {
  if (!row || !row->bitwise_equal_to_manual_cast) return "-";
  return *row->bitwise_equal_to_manual_cast ? "yes" : "no";
}

std::string shown_status(const amp::OpVerdict& v) {
  if (v.status == amp::OpStatus::kDisagrees) return "MISMATCH";
  if (v.status == amp::OpStatus::kCannotCall) return "CANNOT CALL";
  return to_string(v.status);
}

void print_table(const std::vector<amp::OpVerdict>& verdicts) {
  std::cout << std::left << std::setw(46) << "op" << std::setw(10) << "dtype" << std::setw(18) << "expected"
            << std::setw(18) << "got" << std::setw(16) << "bitwise py/c++" << "verdict\n";
  for (const amp::OpVerdict& v : verdicts) {
    std::cout << std::setw(46) << v.op << std::setw(10) << v.dtype << std::setw(18) << shown(v.expected)
              << std::setw(18) << shown(v.got) << std::setw(16) << (shown_flag(v.expected) + "/" + shown_flag(v.got))
              << shown_status(v) << "\n";
  }
  std::cout << std::right;
}

// How many rows agree, in all and per dtype; how many could not be called
// or were skipped.
nlohmann::json summary(const std::vector<amp::OpVerdict>& verdicts) {
  std::map<std::string, std::pair<int, int>> by_dtype;  // agree, rows
  std::map<amp::OpStatus, int> by_status;
  for (const amp::OpVerdict& v : verdicts) {
    auto& [a, n] = by_dtype[v.dtype];
    a += v.status == amp::OpStatus::kAgrees;
    ++by_status[v.status];
    ++n;
  }
  nlohmann::json j = {{"rows", verdicts.size()},
                      {"agree", by_status[amp::OpStatus::kAgrees]},
                      {"disagree", by_status[amp::OpStatus::kDisagrees]},
                      {"cannot_call", by_status[amp::OpStatus::kCannotCall]},
                      {"skipped", by_status[amp::OpStatus::kSkipped]},
                      {"by_dtype", nlohmann::json::object()}};
  for (const auto& [dtype, counts] : by_dtype) j["by_dtype"][dtype] = {{"agree", counts.first}, {"rows", counts.second}};
  return j;
}

// Everything a reader needs, in one file written atomically.
// Python's table without the serialized calls (megabytes of tensor bytes,
// which python-policy.json keeps).
nlohmann::json without_calls(nlohmann::json table) {
  if (table.contains("torch_lists") && table["torch_lists"].is_object()) table["torch_lists"].erase("calls");
  return table;
}

void write_report(const std::string& out_dir, const std::string& device, const std::string& expected_source,
                  const nlohmann::json& expected, const nlohmann::json& got,
                  const std::vector<amp::OpVerdict>& verdicts, const nlohmann::json& counts,
                  const nlohmann::json& coverage) {
  nlohmann::json v = nlohmann::json::array();
  for (const amp::OpVerdict& verdict : verdicts) v.push_back(amp::to_json(verdict));
  const nlohmann::json report = {{"device", device},       {"libtorch", TORCH_VERSION},
                                 {"ops_file", ops_file()}, {"expected_source", expected_source},
                                 {"summary", counts},      {"coverage", coverage},
                                 {"verdicts", v},          {"expected", without_calls(expected)},
                                 {"got", got}};
  io::write_file_atomically(out_dir + "/autocast-ops.json", report.dump(1) + "\n");
}

// Parses and checks everything a user can get wrong before anything runs.
struct Plan {
  DeviceKind kind = DeviceKind::kCpu;
  std::string device;  // its name, as the tables and the report write it
  std::string out_dir;
  amp::AutocastOpList ops;
  std::optional<nlohmann::json> expected;  // from --expected
};

Plan make_plan(const AutocastOpsArgs& args) {
  Plan plan;
  try {
    plan.kind = resolve_device(args.device);
    plan.device = to_string(plan.kind);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  try {
    plan.ops = amp::read_autocast_ops(ops_file());
  } catch (const amp::AutocastOpsError& e) {
    throw UsageError(e.what());
  }
  if (!args.expected.empty()) plan.expected = read_expected(args.expected, plan.device);
  std::string stamp = utc_now_iso8601();
  for (char& ch : stamp)
    if (ch == ':') ch = '-';
  plan.out_dir = args.out_dir.empty() ? "results/autocast-ops-" + plan.device + "-" + stamp : args.out_dir;
  try {
    io::prepare_output_dir("--out", plan.out_dir, false);  // one file, replaced atomically
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return plan;
}

// Python's rows and PyTorch's lists, from the oracle or --expected.
struct Expected {
  std::vector<amp::OpOutcome> rows;
  amp::TorchLists lists;
};

// Exit code on failure, nullopt when the plan and Python's table are ready.
std::optional<int> load_expected(const AutocastOpsArgs& args, Plan& plan, Expected& expected) {
  try {
    plan = make_plan(args);
    if (!plan.expected) plan.expected = run_oracle(plan.device, plan.out_dir);
    const std::string source = args.expected.empty() ? "the Python oracle" : args.expected;
    expected.rows = amp::rows_from_policy_table(*plan.expected, source);
    expected.lists = amp::parse_torch_lists(*plan.expected, source);
  } catch (const UsageError& e) {
    std::cerr << "ampbench autocast-ops: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const amp::AutocastOpsError& e) {  // a table the oracle wrote is its failure; --expected is input
    std::cerr << "ampbench autocast-ops: error: " << e.what() << "\n";
    return args.expected.empty() ? kExitFailure : kExitUsage;
  } catch (const std::exception& e) {  // the oracle did not run or wrote nothing readable
    std::cerr << "ampbench autocast-ops: error: " << e.what() << "\n";
    return kExitFailure;
  }
  const std::string python_torch = plan.expected->value("torch", std::string("?"));
  if (python_torch.rfind(TORCH_VERSION, 0) != 0)
    std::cerr << "ampbench autocast-ops: warning: Python's table is from torch " << python_torch
              << ", this binary links LibTorch " << TORCH_VERSION << ": policies may differ between versions\n";
  return std::nullopt;
}

// Our rows: the op list under each dtype, then every call of PyTorch's lists.
std::vector<amp::OpOutcome> run_cpp(const Plan& plan, const amp::TorchLists& lists) {
  const c10::Device device =
      plan.kind == DeviceKind::kCuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  std::vector<amp::OpOutcome> got;
  for (at::ScalarType dtype : kDtypes) {
    const std::vector<amp::OpOutcome> rows = amp::run_autocast_ops(plan.ops, device, dtype);
    got.insert(got.end(), rows.begin(), rows.end());
  }
  for (const amp::ListCall& call : lists.calls) got.push_back(amp::run_list_call(call, device));
  return got;
}

int autocast_ops(const AutocastOpsArgs& args) {
  Plan plan;
  Expected expected;
  if (const auto code = load_expected(args, plan, expected)) return *code;
  std::vector<amp::OpOutcome> got;
  try {
    got = run_cpp(plan, expected.lists);
  } catch (const amp::AutocastOpsError& e) {  // e.g. an op's args lack what its call reads
    std::cerr << "ampbench autocast-ops: error: " << ops_file() << ": " << e.what() << "\n";
    return kExitUsage;
  }
  const std::vector<amp::OpVerdict> verdicts = amp::compare_policies(expected.rows, got, plan.device);
  print_table(verdicts);
  const nlohmann::json counts = summary(verdicts);
  const auto coverage = amp::list_coverage(expected.lists, static_cast<int>(plan.ops.ops.size()), verdicts);
  write_report(plan.out_dir, plan.device, args.expected.empty() ? "python-policy.json" : args.expected,
               *plan.expected, amp::policy_table(plan.device, got), verdicts, counts, amp::to_json(coverage));
  std::cout << "\ncoverage of PyTorch's autocast test lists (" << expected.lists.source << ") and of "
            << amp::kOwnList << ", rows = entries x dtypes:\n";
  amp::print_coverage(std::cout, coverage);
  std::cout << "autocast-ops on " << plan.device << ": " << counts["agree"] << " of " << counts["rows"]
            << " rows agree with Python's policy, " << counts["disagree"] << " disagree, " << counts["cannot_call"]
            << " cannot be called from C++, " << counts["skipped"] << " skipped as PyTorch's tests skip them\nwrote "
            << plan.out_dir << "/autocast-ops.json\n";
  for (const amp::OpVerdict& v : verdicts)
    if (!v.agrees) std::cerr << v.message << "\n";
  const int failing = counts["disagree"].get<int>() + counts["cannot_call"].get<int>();
  if (failing == 0) return kExitOk;
  std::cerr << "ampbench autocast-ops: error: " << counts["disagree"] << " row(s) disagree with Python's policy, "
            << counts["cannot_call"] << " cannot be called from C++\n";
  return kExitFailure;
}

}  // namespace

void add_autocast_ops_command(CLI::App& app, Action& selected) {
  auto args = std::make_shared<AutocastOpsArgs>();
  CLI::App* sub = app.add_subcommand(
      "autocast-ops", "Check that autocast casts each op as PyTorch's own policy does on this device");
  sub->add_option("--device", args->device, "Device to check (auto: cuda if present)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  sub->add_option("--expected", args->expected,
                  "Python's table (reference/python/autocast_policy.py output); default: run the oracle now");
  sub->add_option("--out", args->out_dir, "Output folder (default results/autocast-ops-DEVICE-TIME)");
  sub->callback([args, &selected] { selected = [args] { return autocast_ops(*args); }; });
}

}  // namespace ampbench::cli
