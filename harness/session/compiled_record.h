// The record the compiled implementation writes (python -m
// reference.python.compiled, docs/compiled.md): schema
// "ampbench.compiled_record" version 1. Read back into the CaseRecord the
// checker judges: the trajectory and final state of the compiled run in
// the C++ runner's order, and how torch.compile took the model.
#pragma once

#include <string>

#include "runner/case_record.h"

namespace ampbench {

inline constexpr const char* kCompiledRecordSchema = "ampbench.compiled_record";
inline constexpr int kCompiledRecordVersion = 1;

// What the compiled run produced: its trajectory in CaseRecord's fields, and
// its compile facts and throughput.
struct CompiledRecord {
  std::string case_id;
  std::vector<double> loss, scale;
  std::vector<bool> skipped;
  std::vector<std::vector<bool>> optimizer_skipped;
  std::vector<float> initial_params, final_params, optimizer_state, final_probe;
  CompiledRun run;
  std::vector<double> samples_per_s;  // steady-state, compiled; empty when not timed
};

// Reads and validates the record of `expected_id` (bounded JSON reader):
// every series one per step of `steps`, non-finite values as null. Throws
// std::invalid_argument naming the file and the field.
CompiledRecord read_compiled_record(const std::string& path, const std::string& expected_id, int steps);

// The record's trajectory, final state and compile facts in place of the
// eager run's; the eager run's throughput is kept in compiled->eager_samples_per_s
// and the compiled one's becomes the case's. Throws std::invalid_argument
// where the record's state is not the size of the eager run's (another model
// or another order).
void apply_compiled_record(CaseRecord& rec, CompiledRecord compiled);

}  // namespace ampbench
