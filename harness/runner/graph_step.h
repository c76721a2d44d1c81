// CUDA-graph-captured training steps (a case's "cuda_graph": true): the
// timed step (forward, backward, the scaler's inf check and unscale inside
// the fused optimizer, the step, the scale update) is captured once into a
// CUDA graph and replayed, so the host launches one graph instead of every
// kernel. Only what a capture can hold qualifies (suite/suite.cpp
// graph_refusal): a fused optimizer (the inf flag and AdamW's step count
// stay on the device), one static cached batch, a constant learning rate.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "spec/case_spec.h"

namespace c10 {
struct Device;
}  // namespace c10

namespace ampbench {

class GraphedStep {
 public:
  // Runs `step` warmup_steps times on a side stream (as PyTorch's whole-
  // network capture recipe does: lazy state, cuBLAS handles and autograd's
  // streams settle), then captures one call of it. Capturing does not run
  // it: the first replay() takes that step. Throws outside a CUDA build.
  GraphedStep(const std::function<void()>& step, int warmup_steps);
  ~GraphedStep();
  GraphedStep(const GraphedStep&) = delete;
  GraphedStep& operator=(const GraphedStep&) = delete;

  void replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The captured run against the uncaptured one: two fresh states of `spec`
// on `device`, trained in timed mode on the cached batch for
// `warmup_steps + replays` steps each, one eagerly and one through a
// GraphedStep. Nothing when the parameters and the loss scale end bitwise
// equal; else the first parameter that differs and by how many of its
// float32 ulps (the case fails).
std::optional<std::string> graph_difference(const CaseSpec& spec, const c10::Device& device, int warmup_steps,
                                            int replays);

}  // namespace ampbench
