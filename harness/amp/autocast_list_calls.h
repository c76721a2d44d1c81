// PyTorch's own autocast test lists (torch.testing._internal.
// autocast_test_lists, read from the installed torch by
// reference/python/autocast_lists.py) run from C++: each entry is a call of
// one ATen operator, serialized exactly by the Python oracle, which the C++
// side finds in the dispatcher, builds the IValue stack of from its schema
// (amp/autocast_ivalues.h) and calls boxed under AutocastGuard. An entry it
// cannot call is a row saying why, never dropped.
#pragma once

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "amp/autocast_policy.h"

namespace ampbench::amp {

// One entry of a PyTorch list under one dtype.
struct ListCall {
  std::string id;     // "torch_16/conv1d"; "torch_fp32/norm#2" for a second entry of that name
  std::string list;   // PyTorch's list: torch_16, nn_fp32, ...
  std::string dtype;  // float16 | bfloat16
  std::string op;     // "aten::conv1d"; empty when Python could not resolve the entry
  std::string overload;  // "" for the default overload
  nlohmann::json args = nlohmann::json::array();
  nlohmann::json kwargs = nlohmann::json::object();
  std::optional<std::string> unresolved;  // why Python found no operator to call
  std::optional<std::string> skipped;     // why PyTorch's own test skips it
};

struct TorchLists {
  std::string source;  // the lists' class, e.g. ...autocast_test_lists.AutocastCPUTestLists
  std::vector<std::pair<std::string, int>> lists;  // name, entries; by name
  std::vector<ListCall> calls;
};

// The "torch_lists" of Python's policy table. Throws AutocastOpsError
// naming `source` and the field when it is missing or malformed.
TorchLists parse_torch_lists(const nlohmann::json& table, const std::string& source);

// Runs one call under AutocastGuard(device, dtype): a row of the policy
// table, with `cannot_call` set when the operator does not exist here or an
// argument cannot be built, `skipped` when PyTorch skips it.
OpOutcome run_list_call(const ListCall& call, at::Device device);

}  // namespace ampbench::amp
