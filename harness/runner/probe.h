// Function space: what the trained weights compute on a fixed probe batch.
// A network with BatchNorm computes the same function when the weights in
// front of a BatchNorm grow or shrink (it divides their scale out), so two
// correct runs can drift apart in weight space while agreeing on what they
// compute. The checker holds the probe outputs to their own envelope beside
// the weights (check/checker.h): a mistake that changes the function is
// measured where scale drift does not dilute it.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace ampbench {

struct TrainingState;

// Whether a case's models are probed: those with a BatchNorm layer.
bool probes_function_space(const TrainingState& s);

// The outputs on `inputs` of every model of `s` with the weights its
// optimizer trains (O2: the float32 masters), flattened: computed in float32
// and in training mode (BatchNorm normalizes with the probe batch's own
// statistics, as in training), on a fresh copy, so that the run's modules
// and running statistics are untouched. Dropout draws from a seed of the
// case alone, so every run of the case sees the same masks.
std::vector<float> probe_outputs(const TrainingState& s, const at::Tensor& inputs);

}  // namespace ampbench
