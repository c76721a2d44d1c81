// What a run will do, decided before any case runs: the device, the suite
// and its selected cases, where this process writes, and whether it is one
// rank of several. Every input and output is checked here (a bad one throws
// std::invalid_argument: exit 2, nothing written).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "distributed/context.h"
#include "session/run_session.h"
#include "suite/suite.h"

namespace ampbench {

struct RunPlan {
  DeviceKind device = DeviceKind::kCpu;
  Suite suite;
  std::vector<CaseSpec> cases;
  std::optional<distributed::RankEnv> rank_env;  // set: this process is one rank of several
  std::string out_dir;    // where this process writes (a staging folder with --overwrite)
  std::string final_out;  // where the finished run lands
  bool staged = false;
  // --implementation compiled: the cases left eager and skipped, with why.
  std::map<std::string, std::string> not_compiled;

  bool rank0() const { return !rank_env || rank_env->rank == 0; }
  std::string results_path() const {
    return rank0() ? out_dir + "/results.json" : out_dir + "/rank" + std::to_string(rank_env->rank) + "/results.json";
  }
  std::string final_results_path() const { return staged ? final_out + "/results.json" : results_path(); }
};

RunPlan plan_run(const RunSettings& args);

// A ceilings file (`ampbench qualify`'s), or std::invalid_argument naming it.
nlohmann::json read_ceilings(const std::string& path);

}  // namespace ampbench
