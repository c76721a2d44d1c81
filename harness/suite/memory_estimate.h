// A rough upper estimate of the memory one case needs, checked when a suite
// is read so that a size typo (hidden: 2147483647) is refused with a message
// instead of attempting a 256 GB allocation half way through a run. It counts
// parameters (weights, gradients, optimizer moments and the copies the
// checker keeps), activations of one batch with their gradients and
// autocast copies, and the synthetic batches held for every step. It errs
// high: a case it refuses could not run beside the others anyway.
#pragma once

#include <cstdint>
#include <string>

#include "spec/case_spec.h"

namespace ampbench {

struct MemoryEstimate {
  double parameter_bytes = 0;
  double activation_bytes = 0;
  double data_bytes = 0;
  double total() const { return parameter_bytes + activation_bytes + data_bytes; }
};

MemoryEstimate estimate_case_memory(const CaseSpec& c);

// The host's physical memory (sysconf), 0 when unknown.
std::uint64_t physical_memory_bytes();

// "" when the case fits in `budget_bytes`, else the reason, e.g.
// "needs about 512.0 GiB (parameters 500.0 GiB, ...) but this machine has 23.4 GiB".
std::string memory_refusal(const CaseSpec& c, double budget_bytes);

}  // namespace ampbench
