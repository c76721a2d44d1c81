// Dropout replayed. A model that draws random numbers in its forward (a
// model given by file at its default dropout) draws them from the default
// generators, which everything else in the process shares. So that the fp32
// baseline, every mixed-precision run of the same case and the Python oracle
// see the same masks, a recorded run seeds those generators before each
// forward from (case seed, step, forward within the step) alone: what the
// process drew before (the weights, other cases, load probes) cannot shift
// them. A mask depends on the seed and the tensor's shape only, not on its
// dtype (CPU Bernoulli draws integers, then casts), so fp16 and fp32 agree.
// reference/python/forward_rng.py computes the same seeds.
#pragma once

#include <cstdint>
#include <mutex>

namespace ampbench {

struct TrainingState;

// The seed of forward `forward_index` (0-based, in call order) of step `step`.
std::uint64_t forward_seed(std::uint64_t case_seed, int step, int forward_index);

// Seeds the default generators (CPU and every CUDA device) with `seed` and
// returns the lock every seeding shares, held until the caller's forward has
// drawn its numbers.
std::unique_lock<std::mutex> seed_generators(std::uint64_t seed);

// Seeds the default generators (CPU and every CUDA device) for the next
// forward of a recorded run and returns a lock the caller holds until the
// forward has drawn its numbers: ranks run as threads share the generators.
// Timed runs (and CUDA-graph capture, which may not reseed) are left alone:
// an unlocked lock.
std::unique_lock<std::mutex> seed_next_forward(TrainingState& s);

}  // namespace ampbench
