// The range counters of one cast operand (what saturated, what flushed, of
// how many values) carried from an autograd Function's forward to its
// backward, which counts the gradient's cast into the same run's record.
#pragma once

#include <torch/autograd.h>

#include <string>

#include "fp8/delayed_scaling.h"

namespace ampbench::fp8 {

inline void save_counts(torch::autograd::AutogradContext* ctx, const std::string& key, const DelayedTensorState* s) {
  if (s == nullptr || !s->saturated.defined()) return;
  ctx->saved_data[key + "_saturated"] = s->saturated;
  ctx->saved_data[key + "_flushed"] = s->flushed;
  ctx->saved_data[key + "_elements"] = s->elements;
}

// The counters saved under `key` (undefined when the run does not count).
inline DelayedTensorState saved_counts(torch::autograd::AutogradContext* ctx, const std::string& key) {
  DelayedTensorState s;
  if (!ctx->saved_data.count(key + "_saturated")) return s;
  s.saturated = ctx->saved_data[key + "_saturated"].toTensor();
  s.flushed = ctx->saved_data[key + "_flushed"].toTensor();
  s.elements = ctx->saved_data[key + "_elements"].toTensor();
  return s;
}

}  // namespace ampbench::fp8
