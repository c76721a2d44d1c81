#include "workloads/workload.h"

#include <stdexcept>

namespace ampbench {

std::vector<std::string> Workload::variants() const {
  std::vector<std::string> all = {"correct"};
  all.insert(all.end(), controls_.begin(), controls_.end());
  return all;
}

// Each defined in its own file, beside its step.
Workload plain_workload();
Workload clip_norm_workload();
Workload clip_value_workload();
Workload accumulation_workload();
Workload penalty_workload();
Workload multi_workload();
Workload dataparallel_workload();
Workload ddp_workload();

const std::vector<Workload>& all_workloads() {
  // The registry: one line per workload.
  static const std::vector<Workload> workloads = {
      plain_workload(),   clip_norm_workload(), clip_value_workload(),   accumulation_workload(),
      penalty_workload(), multi_workload(),     dataparallel_workload(), ddp_workload(),
  };
  return workloads;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const Workload& w : all_workloads()) names.push_back(w.name());
  return names;
}

const Workload& find_workload(const std::string& name) {
  std::string known;
  for (const Workload& w : all_workloads()) {
    if (w.name() == name) return w;
    known += (known.empty() ? "" : ", ") + w.name();
  }
  throw std::invalid_argument("unknown workload '" + name + "' (known: " + known + ")");
}

const Workload& single_replica_workload() { return find_workload("plain"); }

}  // namespace ampbench
