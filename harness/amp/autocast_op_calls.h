// The C++ call of every op of harness/amp/autocast_ops.json: one ATen call
// each (at::mm, at::softmax, ...), the ones the Python oracle's calls reach
// (reference/python/autocast_policy.py, CALLS).
#pragma once

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace ampbench::amp {

// The op list is unusable (unknown op, wrong input count, missing argument,
// malformed file): never recorded as the op's own failure ("unsupported").
class AutocastOpsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OpCall {
  int inputs;  // tensor arguments, in call order
  at::Tensor (*call)(const std::vector<at::Tensor>& x, const nlohmann::json& args);
};

// nullptr when the op has no C++ call.
const OpCall* find_op_call(const std::string& op);

}  // namespace ampbench::amp
