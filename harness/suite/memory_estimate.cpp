#include "suite/memory_estimate.h"

#include <cstdio>
#include <unistd.h>

#include "spec/workload_traits.h"

namespace ampbench {

namespace {

// Floats per parameter: weight, gradient, two Adam moments, the initial and
// final copies the checker compares, an autocast low-precision copy, and the
// fp32 baseline's replicas that live beside them.
constexpr double kParameterCopies = 10;
// Per activation: the saved forward value, its gradient, an autocast copy.
constexpr double kActivationCopies = 3;
constexpr double kFloatBytes = 4;

// Input floats of one sample.
double input_floats(const CaseSpec& c) {
  double n = 1;
  for (const int64_t d : c.model->sample_shape(c.sizes)) n *= static_cast<double>(d);
  return n;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

}  // namespace

MemoryEstimate estimate_case_memory(const CaseSpec& c) {
  // DataParallel keeps its replicas in one process; multi trains two models.
  const WorkloadTraits& workload = *c.workload;
  const double replicas = (workload.replication() == Replication::kThreads ? c.world_size : 1) * workload.models();
  const double batches = static_cast<double>(c.steps) * c.iters_to_accumulate;
  MemoryEstimate e;
  e.parameter_bytes = kFloatBytes * kParameterCopies * replicas * c.model->parameters(c.sizes);
  e.activation_bytes = kFloatBytes * kActivationCopies * c.sizes.batch * c.model->activations(c.sizes);
  e.data_bytes = kFloatBytes * batches * c.sizes.batch * (input_floats(c) + 1);
  return e;
}

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::string memory_refusal(const CaseSpec& c, double budget_bytes) {
  const MemoryEstimate e = estimate_case_memory(c);
  if (budget_bytes <= 0 || e.total() <= budget_bytes) return "";
  return "needs about " + gib(e.total()) + " (parameters " + gib(e.parameter_bytes) + ", activations " +
         gib(e.activation_bytes) + ", data " + gib(e.data_bytes) + ") but this machine has " + gib(budget_bytes);
}

}  // namespace ampbench
