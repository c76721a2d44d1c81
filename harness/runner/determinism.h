// Determinism fingerprints (`ampbench run --deterministic`): the run pins
// what would otherwise make two healthy machines of one kind disagree
// (non-deterministic kernels, the intra-op thread count that decides the
// order of a reduction, cuBLAS's workspace), and every case that ran records
// a hash of its loss trajectory, final parameters and optimizer state. Two
// machines of the same hardware and software must then produce the same
// hash; one that does not computed something else (reports/fleet.py).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/case_record.h"

namespace ampbench {

// The intra-op thread count every deterministic run uses, whatever the
// machine: a reduction split over another number of threads sums in another
// order, so the hash would follow the core count rather than the hardware.
inline constexpr int kDeterministicThreads = 1;

struct DeterminismSettings {
  int intra_op_threads = kDeterministicThreads;
  std::string cublas_workspace_config;  // "" off CUDA
};

// Pins the process: deterministic algorithms (an op without one fails its
// case loudly rather than silently varying), the thread count, cuDNN without
// autotuning and, on CUDA, CUBLAS_WORKSPACE_CONFIG unless the user set one.
// Call before any CUDA work: cuBLAS reads the variable once.
DeterminismSettings enable_determinism(bool cuda);

// FNV-1a, 64 bits, as 16 hex digits: no cryptographic claim, only "these
// bytes are not those bytes" across machines.
std::string fnv1a64_hex(const void* data, std::size_t size, std::uint64_t seed = 0xcbf29ce484222325ULL);

// The hash of each part and of the three together.
CaseFingerprint fingerprint_of(const std::vector<double>& loss, const std::vector<float>& final_params,
                               const std::vector<float>& optimizer_state);

}  // namespace ampbench
