#include "gate/baseline_store.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include <unistd.h>

#include "gate/atomic_file.h"
#include "io/remove_tree.h"
#include "gate/run_set.h"

namespace ampbench::gate {

namespace fs = std::filesystem;

std::string sanitize_name_part(const std::string& text) {
  std::string out;
  bool pending_dash = false;
  for (char ch : text) {
    const bool keep = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                      ch == '_' || ch == '-';
    if (!keep) {
      pending_dash = true;
      continue;
    }
    if (pending_dash && !out.empty()) out += '-';
    pending_dash = false;
    out += ch;
  }
  // No "__" inside a part: it separates parts.
  std::string collapsed;
  for (char ch : out) {
    if (ch == '_' && !collapsed.empty() && collapsed.back() == '_') continue;
    collapsed += ch;
  }
  const auto first = collapsed.find_first_not_of("-._");
  if (first == std::string::npos) return "unknown";
  const auto last = collapsed.find_last_not_of("-._");
  return collapsed.substr(first, last - first + 1);
}

namespace {

std::string env_value(const ResultsFile& r, const char* key) {
  const auto it = r.env.find(key);
  return it == r.env.end() ? "none" : it->second;
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// cpu_model, then the generation where it is recorded: a hypervisor may name
// Zen 4 and Zen 5 alike "AMD EPYC", and each needs its own baseline.
std::string cpu_hardware(const ResultsFile& r, bool with_generation) {
  const std::string id = env_value(r, "cpu_id");
  return env_value(r, "cpu_model") + (with_generation && id != "none" ? " " + id : "");
}

std::string name_for(const ResultsFile& r, bool with_generation) {
  const std::string device = env_value(r, "device");
  const std::string hardware =
      r.device == DeviceKind::kCpu ? cpu_hardware(r, with_generation) : env_value(r, "gpu_name");
  std::string name = sanitize_name_part(r.suite) + "__" + sanitize_name_part(device) + "__" +
                     sanitize_name_part(hardware) + "__torch-" + sanitize_name_part(env_value(r, "libtorch_version"));
  if (r.device == DeviceKind::kCuda) name += "__cuda-" + sanitize_name_part(env_value(r, "cuda_runtime"));
  // A compiled run is its own baseline; an eager one keeps the name it had.
  if (const auto it = r.env.find("implementation"); it != r.env.end() && it->second == "compiled") name += "__compiled";
  return name;
}

}  // namespace

std::string baseline_name(const ResultsFile& r) { return name_for(r, true); }

namespace {

std::string run_filename(std::size_t index) {
  const std::string n = std::to_string(index + 1);
  return "run-" + std::string(n.size() < 2 ? 2 - n.size() : 0, '0') + n + ".json";
}

// Moves `fresh` into place at `final_path`, replacing what is there.
void replace_folder(const fs::path& fresh, const fs::path& final_path) {
  std::error_code ec;
  const fs::path old = final_path.parent_path() / ("." + final_path.filename().string() + ".old-" +
                                                   std::to_string(::getpid()));
  const bool had_old = fs::exists(final_path, ec);
  if (had_old) {
    fs::rename(final_path, old, ec);
    if (ec) throw GateInputError(final_path.string(), "cannot move the old baseline aside: " + ec.message());
  }
  fs::rename(fresh, final_path, ec);
  if (ec) {
    std::error_code undo;
    if (had_old) fs::rename(old, final_path, undo);
    throw GateInputError(final_path.string(), "cannot move the new baseline into place: " + ec.message());
  }
  if (had_old) io::remove_tree(old.string());
}

}  // namespace

BaselineUpdate update_baseline(const std::vector<std::string>& results_paths, const std::string& dir,
                               bool allow_incomplete) {
  if (results_paths.empty()) throw GateInputError("--results", "no results file given");
  std::vector<ResultsFile> runs;
  for (const auto& path : results_paths) {
    runs.push_back(load_results(path));
    const ResultsFile& r = runs.back();
    if (!r.complete && !allow_incomplete) {
      throw GateInputError(path, "the run is incomplete (\"complete\": false); finish it, or pass --allow-incomplete");
    }
    if (r.cases.empty()) throw GateInputError(path, "has no cases; refusing to write an empty baseline");
    // A fault injected on purpose must never become the yardstick of later runs.
    if (const auto faults = injected_faults(r); !faults.empty()) {
      throw GateInputError(path, "was made with " + faults.front() +
                                     ", a test-only fault switch: a rehearsal never becomes a baseline; store a run "
                                     "made without it");
    }
  }
  require_same_suite_and_env(runs);

  const fs::path root = dir.empty() ? "." : dir;
  const fs::path final_path = root / baseline_name(runs[0]);
  const fs::path fresh = root / ("." + baseline_name(runs[0]) + ".new-" + std::to_string(::getpid()));
  std::error_code ec;
  io::remove_tree(fresh.string());
  BaselineUpdate u;
  u.path = final_path.string();
  if (fs::exists(final_path, ec)) u.replaced = u.path;
  const std::string now = utc_now();
  try {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      nlohmann::json doc = runs[i].doc;
      doc["baseline_source"] = {{"results", results_paths[i]}, {"run", i + 1}, {"runs", runs.size()},
                                {"updated_utc", now}};
      write_file_atomic((fresh / run_filename(i)).string(), doc.dump(2) + "\n");
    }
    replace_folder(fresh, final_path);
  } catch (const GateInputError&) {
    io::remove_tree(fresh.string());
    throw;
  }
  u.runs = runs.size();
  u.cases = runs[0].cases.size();
  return u;
}

namespace {

std::vector<std::string> stored_runs(const std::string& folder) {
  std::vector<std::string> runs;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return runs;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string f = entry.path().filename().string();
    if (entry.is_regular_file(ec) && f.rfind("run-", 0) == 0 && entry.path().extension() == ".json") {
      runs.push_back(entry.path().string());
    }
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

// What was looked for, what the folder has for the suite, and how to make one.
std::string no_baseline_message(const ResultsFile& current, const fs::path& root, const std::string& dir) {
  const bool cpu = current.device == DeviceKind::kCpu;
  std::string message = "no baseline for the environment of " + current.path + " (suite \"" + current.suite +
                        "\", device \"" + current.env.at("device") + "\", " +
                        (cpu ? "cpu_model \"" + current.env.at("cpu_model") + "\"" +
                                   (env_value(current, "cpu_id") != "none" ? ", cpu_id \"" + env_value(current, "cpu_id") + "\""
                                                                           : std::string())
                             : "gpu_name \"" + current.env.at("gpu_name") + "\"") +
                        ", libtorch_version \"" + current.env.at("libtorch_version") + "\"" +
                        (current.device == DeviceKind::kCuda ? ", cuda_runtime \"" + current.env.at("cuda_runtime") + "\""
                                                             : std::string()) +
                        ")";
  std::vector<std::string> same_suite;
  const std::string prefix = sanitize_name_part(current.suite) + "__";
  std::error_code ec;
  if (fs::is_directory(root, ec)) {
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      const std::string f = entry.path().filename().string();
      if (f.rfind(prefix, 0) == 0 && entry.is_directory(ec)) same_suite.push_back(f);
    }
  } else {
    message += "; the folder " + dir + " does not exist";
  }
  std::sort(same_suite.begin(), same_suite.end());
  if (!same_suite.empty()) {
    message += "; baselines for this suite:";
    for (const auto& f : same_suite) message += " " + f;
  }
  return message + "; create one with: ampbench baseline update --results " + current.path + " [more runs] --dir " + dir;
}

}  // namespace

StoredBaseline find_baseline(const ResultsFile& current, const std::string& dir) {
  const fs::path root = dir.empty() ? "." : dir;
  const std::string folder = (root / baseline_name(current)).string();
  if (auto runs = stored_runs(folder); !runs.empty()) return {folder, std::move(runs)};
  // A baseline stored before the CPU's generation was recorded: its name
  // has the model alone, and the gate compares it on the model alone.
  if (const std::string legacy = (root / name_for(current, false)).string(); legacy != folder) {
    if (auto runs = stored_runs(legacy); !runs.empty()) return {legacy, std::move(runs)};
  }
  throw GateInputError(folder, no_baseline_message(current, root, dir));
}

}  // namespace ampbench::gate
