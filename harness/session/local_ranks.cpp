#include "session/local_ranks.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <torch/cuda.h>

#include "distributed/launcher.h"
#include "runner/case_filter.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

// ^(id1|id2|...)$: exactly these cases (their baselines are among them).
std::string exact_ids_filter(const std::vector<CaseSpec>& cases) {
  std::string re = "^(";
  for (size_t i = 0; i < cases.size(); ++i) re += (i ? "|" : "") + quote_regex(cases[i].id);
  return re + ")$";
}

ResultsFile read_rank0_results(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  try {
    return load_results(path);
  } catch (const std::exception& e) {
    std::cerr << "ampbench run: error: " << path << ": unreadable rank 0 results: " << e.what() << "\n";
    return {};
  }
}

}  // namespace

bool needs_local_ranks(const CaseSpec& c) { return find_workload(c.workload->name()).collective() && c.world_size > 1; }

void check_rank_filter(const std::vector<CaseSpec>& all) {
  std::vector<CaseSpec> ranked;
  for (const CaseSpec& c : all)
    if (needs_local_ranks(c)) ranked.push_back(c);
  if (ranked.empty()) return;
  const size_t length = exact_ids_filter(ranked).size();
  if (length > kMaxFilterLength)
    throw std::invalid_argument(std::to_string(ranked.size()) + " ddp cases run in local ranks, and their ids make a " +
                                std::to_string(length) + "-character rank filter (at most " +
                                std::to_string(kMaxFilterLength) +
                                "): select fewer of them per run (--filter), or run them with --nproc");
}

RankRunResult run_in_local_ranks(const std::vector<CaseSpec>& cases, const RankRunSettings& settings) {
  int nproc = 1;
  for (const CaseSpec& c : cases) nproc = std::max(nproc, c.world_size);
  // One GPU per rank: NCCL refuses two ranks on one device.
  const int gpus = settings.device == DeviceKind::kCuda ? static_cast<int>(torch::cuda::device_count()) : nproc;
  if (gpus < nproc) {
    std::cout << "\nddp cases ask for " << nproc << " ranks but there are " << gpus << " GPUs: running " << gpus
              << " (the cases record the world size they ran with)\n";
    nproc = std::max(1, gpus);
  }
  distributed::LaunchOptions launch;
  launch.nproc = nproc;
  launch.rank_timeout_s = settings.rank_timeout_s;
  launch.out_dir = settings.out_dir;
  launch.args = {"ampbench", "run", "--suite", settings.suite_path, "--device", to_string(settings.device),
                 "--filter", exact_ids_filter(cases), "--out", settings.out_dir, "--no-report",
                 "--rank-timeout", std::to_string(settings.rank_timeout_s)};
  if (settings.no_throughput) launch.args.push_back("--no-throughput");
  if (settings.inject_slowdown > 0) {
    launch.args.push_back("--inject-slowdown");
    launch.args.push_back(std::to_string(settings.inject_slowdown));
  }
  if (!settings.dump_dir.empty()) {
    launch.args.push_back("--dump");
    launch.args.push_back(settings.dump_dir);
  }
  if (settings.seed) {
    launch.args.push_back("--seed");
    launch.args.push_back(std::to_string(*settings.seed));
  }
  if (settings.no_mkldnn) launch.args.push_back("--no-mkldnn");
  if (settings.deterministic) launch.args.push_back("--deterministic");
  if (settings.inject_bitflip_step >= 0) {
    launch.args.push_back("--inject-bitflip");
    launch.args.push_back(std::to_string(settings.inject_bitflip_step));
  }
  std::cout << "\n" << cases.size() << " ddp cases need " << nproc << " ranks: launching them\n" << std::flush;
  RankRunResult result;
  result.exit_code = distributed::launch_local_ranks(launch);
  result.rank0 = read_rank0_results(settings.out_dir + "/results.json");
  return result;
}

}  // namespace ampbench
