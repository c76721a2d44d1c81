#include "runner/determinism.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>

#include <cstdio>
#include <cstdlib>

namespace ampbench {

DeterminismSettings enable_determinism(bool cuda) {
  DeterminismSettings out;
  if (cuda) {
    // ":4096:8" is one of the two values cuBLAS documents as reproducible;
    // an operator's own choice is kept and recorded.
    ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
    out.cublas_workspace_config = std::getenv("CUBLAS_WORKSPACE_CONFIG");
  }
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setBenchmarkCuDNN(false);
  at::set_num_threads(out.intra_op_threads);
  return out;
}

std::string fnv1a64_hex(const void* data, std::size_t size, std::uint64_t seed) {
  std::uint64_t h = seed;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

CaseFingerprint fingerprint_of(const std::vector<double>& loss, const std::vector<float>& final_params,
                               const std::vector<float>& optimizer_state) {
  CaseFingerprint f;
  f.loss = fnv1a64_hex(loss.data(), loss.size() * sizeof(double));
  f.final_params = fnv1a64_hex(final_params.data(), final_params.size() * sizeof(float));
  f.optimizer_state = fnv1a64_hex(optimizer_state.data(), optimizer_state.size() * sizeof(float));
  // The parts' lengths are in their hashes' inputs: a part that moved
  // bytes into another cannot leave the combined hash unchanged.
  const std::string parts = f.loss + f.final_params + f.optimizer_state;
  f.combined = fnv1a64_hex(parts.data(), parts.size());
  return f;
}

}  // namespace ampbench
