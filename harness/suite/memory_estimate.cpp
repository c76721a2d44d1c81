#include "suite/memory_estimate.h"

#include <cstdio>
#include <unistd.h>

#include "workloads/workload_traits.h"

namespace ampbench {

namespace {

// Floats per parameter: weight, gradient, two Adam moments, the initial and
// final copies the checker compares, an autocast low-precision copy, and the
// fp32 baseline's replicas that live beside them.
constexpr double kParameterCopies = 10;
// Per activation: the saved forward value, its gradient, an autocast copy.
constexpr double kActivationCopies = 3;
constexpr double kFloatBytes = 4;
constexpr double kCnnInputChannels = 8;  // models/cnn.h

double parameters(const std::string& model, const ModelSizes& s) {
  const double c = s.classes;
  if (model == "mlp") {
    const double in = s.in_features, h = s.hidden;
    return in * h + h + h * h + h + h * c + c;
  }
  if (model == "cnn") {
    const double ch = s.channels;
    return kCnnInputChannels * ch * 9 + ch * 2 * ch * 9 + 2 * ch * c + c + 8 * ch;
  }
  const double d = s.d_model, f = s.ffn;
  const double block = 4 * d * d + 4 * d + 2 * d * f + f + d + 4 * d;
  return (model == "decoder" ? s.layers : 1) * block + (model == "decoder" ? 2 * d : 0) + d * c + c;
}

// Activations of one sample, in floats.
double activations(const std::string& model, const ModelSizes& s) {
  if (model == "mlp") return s.in_features + 4.0 * s.hidden + 2.0 * s.classes;
  if (model == "cnn") return static_cast<double>(s.image) * s.image * (kCnnInputChannels + 6.0 * s.channels);
  const double seq = s.seq;
  // The decoder's attention is fused (flash and friends keep no seq x seq
  // matrix); its blocks each hold their own activations.
  if (model == "decoder") return s.layers * seq * (10.0 * s.d_model + 2.0 * s.ffn);
  return seq * (8.0 * s.d_model + 2.0 * s.ffn) + 2.0 * s.heads * seq * seq;
}

// Input floats of one sample.
double input(const std::string& model, const ModelSizes& s) {
  if (model == "mlp") return s.in_features;
  if (model == "cnn") return kCnnInputChannels * s.image * s.image;
  return static_cast<double>(s.seq) * s.d_model;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

}  // namespace

MemoryEstimate estimate_case_memory(const CaseSpec& c) {
  // DataParallel keeps its replicas in one process; multi trains two models.
  const WorkloadTraits& workload = workload_traits(c.workload);
  const double replicas = (workload.replication() == Replication::kThreads ? c.world_size : 1) * workload.models();
  const double batches = static_cast<double>(c.steps) * c.iters_to_accumulate;
  MemoryEstimate e;
  e.parameter_bytes = kFloatBytes * kParameterCopies * replicas * parameters(c.model, c.sizes);
  e.activation_bytes = kFloatBytes * kActivationCopies * c.sizes.batch * activations(c.model, c.sizes);
  e.data_bytes = kFloatBytes * batches * c.sizes.batch * (input(c.model, c.sizes) + 1);
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
