// --dump DIR: everything Python's torch needs to replay one case with the
// reference implementation (reference/python): initial weights, every batch,
// per-step loss/scale/skipped, final weights and optimizer state.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "data/synthetic_data.h"
#include "runner/case_record.h"

namespace ampbench {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

struct CaseDump {
  const CaseRecord& record;  // spec, trajectory (loss/scale/skipped)
  std::vector<NamedTensors> initial_state;  // per model: parameters and buffers by name
  std::vector<NamedTensors> final_state;
  std::vector<Batch> batches;               // every micro-batch, in the order used
  std::vector<at::Tensor> optimizer_state;  // as flattened by the runner
};

// Writes DIR/<case id with '/' -> '__'>/..., readable by torch.load.
void write_case_dump(const std::string& dir, const CaseDump& dump);

// The folder of case `id` under a dump directory ("/", "#", ":" -> "_").
std::string dump_folder_name(const std::string& id);

}  // namespace ampbench
