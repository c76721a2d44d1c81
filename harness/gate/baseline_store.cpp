#include "gate/baseline_store.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include "gate/atomic_file.h"

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

}  // namespace

std::string baseline_filename(const ResultsFile& r) {
  const std::string device = env_value(r, "device");
  const std::string hardware = device == "cpu" ? env_value(r, "cpu_model") : env_value(r, "gpu_name");
  std::string name = sanitize_name_part(r.suite) + "__" + sanitize_name_part(device) + "__" +
                     sanitize_name_part(hardware) + "__torch-" + sanitize_name_part(env_value(r, "libtorch_version"));
  if (device == "cuda") name += "__cuda-" + sanitize_name_part(env_value(r, "cuda_runtime"));
  return name + ".json";
}

BaselineUpdate update_baseline(const std::string& results_path, const std::string& dir, bool allow_incomplete) {
  const ResultsFile r = load_results(results_path);
  if (!r.complete && !allow_incomplete) {
    throw GateInputError(results_path,
                         "the run is incomplete (\"complete\": false); finish it, or pass --allow-incomplete");
  }
  if (r.cases.empty()) throw GateInputError(results_path, "has no cases; refusing to write an empty baseline");
  BaselineUpdate u;
  u.path = (fs::path(dir.empty() ? "." : dir) / baseline_filename(r)).string();
  std::error_code ec;
  if (fs::exists(u.path, ec)) u.replaced = u.path;
  nlohmann::json doc = r.doc;
  doc["baseline_source"] = {{"results", results_path}, {"updated_utc", utc_now()}};
  write_file_atomic(u.path, doc.dump(2) + "\n");
  u.cases = r.cases.size();
  return u;
}

std::string find_baseline(const ResultsFile& current, const std::string& dir) {
  const std::string name = baseline_filename(current);
  const fs::path path = fs::path(dir.empty() ? "." : dir) / name;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return path.string();

  std::string message = "no baseline for the environment of " + current.path + " (suite \"" +
                        current.suite + "\", device \"" + current.env.at("device") + "\", " +
                        (current.env.at("device") == "cpu" ? "cpu_model \"" + current.env.at("cpu_model")
                                                            : "gpu_name \"" + current.env.at("gpu_name")) +
                        "\", libtorch_version \"" + current.env.at("libtorch_version") + "\"" +
                        (current.env.at("device") == "cuda" ? ", cuda_runtime \"" + current.env.at("cuda_runtime") + "\""
                                                            : std::string()) +
                        ")";
  std::vector<std::string> same_suite;
  const std::string prefix = sanitize_name_part(current.suite) + "__";
  if (fs::is_directory(dir.empty() ? "." : dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir.empty() ? "." : dir, ec)) {
      const std::string f = entry.path().filename().string();
      if (f.rfind(prefix, 0) == 0 && entry.path().extension() == ".json") same_suite.push_back(f);
    }
  } else {
    message += "; the folder " + dir + " does not exist";
  }
  std::sort(same_suite.begin(), same_suite.end());
  if (!same_suite.empty()) {
    message += "; baselines for this suite:";
    for (const auto& f : same_suite) message += " " + f;
  }
  message += "; create one with: ampbench baseline update --results " + current.path + " --dir " + dir;
  throw GateInputError(path.string(), message);
}

}  // namespace ampbench::gate
