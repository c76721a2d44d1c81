#include "workloads/forward_rng.h"

#include <torch/utils.h>

#include "workloads/training_state.h"

namespace ampbench {
namespace {

// splitmix64's finalizer: nearby (seed, step, index) give unrelated seeds.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t forward_seed(std::uint64_t case_seed, int step, int forward_index) {
  return mix(mix(mix(case_seed) ^ static_cast<std::uint64_t>(step)) ^ static_cast<std::uint64_t>(forward_index));
}

std::unique_lock<std::mutex> seed_generators(std::uint64_t seed) {
  static std::mutex generators;
  std::unique_lock<std::mutex> lock(generators);
  torch::manual_seed(seed);
  return lock;
}

std::unique_lock<std::mutex> seed_next_forward(TrainingState& s) {
  if (!s.record_engagement) return {};
  if (s.rng_step != s.step_index) {
    s.rng_step = s.step_index;
    s.forwards_in_step = 0;
  }
  return seed_generators(forward_seed(s.spec.seed, s.step_index, s.forwards_in_step++));
}

}  // namespace ampbench
