// DDP cases that ask for more ranks than the process running the suite has
// (a suite "world_size": 2, run without --nproc or a launcher): after the
// single-process cases, ampbench starts that many local ranks for them alone
// (through the --nproc launcher) and merges rank 0's results into the run's
// own results file. So `ampbench run --suite smoke` exercises 2-rank DDP over
// Gloo while every other case is timed in one undisturbed process.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/results_file.h"
#include "spec/case_spec.h"

namespace ampbench {

// What the ranks' command line carries over from this run.
struct RankRunSettings {
  std::string suite_path;
  DeviceKind device = DeviceKind::kCpu;
  std::string out_dir;  // the ranks' OUT (logs, rank 0's results.json)
  int rank_timeout_s = 120;
  bool no_throughput = false;
  double inject_slowdown = 0;
  std::string dump_dir;
  std::optional<std::uint64_t> seed;  // --seed
  bool no_mkldnn = false;             // --no-mkldnn
  bool deterministic = false;         // --deterministic
  int inject_bitflip_step = -1;       // --inject-bitflip
};

struct RankRunResult {
  int exit_code = 0;                 // the launcher's: 0, 1, or a rank failure
  ResultsFile rank0;                  // what rank 0 wrote (no cases when it wrote nothing readable)
};

// True for a case that must run in launched ranks when this process is not
// one of a launch already.
bool needs_local_ranks(const CaseSpec& c);

// The ranks are told their cases as a filter of exact ids: throws
// std::invalid_argument (exit 2, before any case runs) when the cases of
// `all` that need local ranks make a filter longer than --filter allows.
void check_rank_filter(const std::vector<CaseSpec>& all);

// Runs `cases` (and nothing else) in max(world_size) local ranks.
RankRunResult run_in_local_ranks(const std::vector<CaseSpec>& cases, const RankRunSettings& settings);

}  // namespace ampbench
