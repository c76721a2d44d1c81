#include "workloads/workload.h"

#include <stdexcept>

namespace ampbench {

const Workload& find_workload(const std::string& name) {
  static const std::vector<Workload> workloads = {
      {"plain", plain_step},           {"clip_norm", clip_norm_step}, {"clip_value", clip_value_step},
      {"accumulation", accumulation_step}, {"penalty", penalty_step},     {"multi", multi_step},
      {"dataparallel", dataparallel_step}, {"ddp", ddp_step},
  };
  for (const Workload& w : workloads) {
    if (w.name == name) return w;
  }
  throw std::invalid_argument("unknown workload '" + name + "'");
}

}  // namespace ampbench
