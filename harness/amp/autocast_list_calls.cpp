#include "amp/autocast_list_calls.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include <set>

#include "amp/autocast_guard.h"
#include "amp/autocast_ivalues.h"

namespace ampbench::amp {
namespace {

using nlohmann::json;

std::optional<std::string> text_or_null(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  if (!j[key].is_string()) throw AutocastOpsError(where + ": \"" + key + "\" must be a string or null");
  return j[key].get<std::string>();
}

ListCall parse_call(const json& j, const std::string& where) {
  if (!j.is_object()) throw AutocastOpsError(where + ": not an object");
  ListCall c;
  for (const auto& [key, field] : {std::pair{"id", &c.id}, std::pair{"list", &c.list}, std::pair{"dtype", &c.dtype}}) {
    const auto text = text_or_null(j, key, where);
    if (!text) throw AutocastOpsError(where + ": needs \"" + key + "\"");
    *field = *text;
  }
  if (c.dtype != "float16" && c.dtype != "bfloat16")
    throw AutocastOpsError(where + " (" + c.id + "): dtype must be float16 or bfloat16");
  c.op = text_or_null(j, "op", where).value_or("");
  c.overload = text_or_null(j, "overload", where).value_or("");
  c.unresolved = text_or_null(j, "unresolved", where);
  c.skipped = text_or_null(j, "skipped", where);
  if (c.op.empty() && !c.unresolved && !c.skipped)
    throw AutocastOpsError(where + " (" + c.id + "): no \"op\", and neither \"unresolved\" nor \"skipped\" says why");
  if (j.contains("args")) c.args = j["args"];
  if (j.contains("kwargs")) c.kwargs = j["kwargs"];
  return c;
}

// The operator's outcome on the stack, outside any autocast: the manual
// cast's outputs, or nullopt with the error.
std::optional<Outputs> call_plain(const c10::OperatorHandle& op, std::vector<c10::IValue> stack, OpOutcome& row) {
  try {
    op.callBoxed(stack);
    return describe_outputs(stack);
  } catch (const std::exception& e) {
    row.error = "manual cast: " + first_line(e);
    return std::nullopt;
  }
}

bool same_outputs(const Outputs& a, const Outputs& b) {
  if (a.description != b.description || a.tensors.size() != b.tensors.size()) return false;
  for (std::size_t i = 0; i < a.tensors.size(); ++i)
    if (!same_bits(a.tensors[i], b.tensors[i])) return false;
  return true;
}

at::ScalarType lower_dtype(const std::string& name) { return name == "float16" ? at::kHalf : at::kBFloat16; }

// Calls the operator under autocast and fills in the row as Python's
// run_call does: outputs, their fingerprint, the manual-cast flag.
void run_operator(const c10::OperatorHandle& op, const std::vector<c10::IValue>& inputs, at::Device device,
                  const ListCall& call, OpOutcome& row) {
  const at::ScalarType dtype = lower_dtype(call.dtype);
  std::vector<c10::IValue> stack = inputs;
  try {
    AutocastGuard autocast(device.type(), dtype);
    op.callBoxed(stack);
  } catch (const std::exception& e) {  // the op's own failure on this device/dtype: recorded
    row.error = first_line(e);
    return;
  }
  const Outputs out = describe_outputs(stack);
  row.output_dtype = out.description;
  row.output_fnv1a64 = fnv1a64(out.tensors);
  if (out.tensors.empty() || out.description.substr(0, out.description.find(',')) != call.dtype) return;
  if (const auto manual = call_plain(op, cast_floating(inputs, dtype), row))
    row.bitwise_equal_to_manual_cast = same_outputs(*manual, out);
}

}  // namespace

TorchLists parse_torch_lists(const json& table, const std::string& source) {
  if (!table.is_object() || !table.contains("torch_lists") || !table["torch_lists"].is_object())
    throw AutocastOpsError(source + ": no \"torch_lists\" (PyTorch's own autocast test lists): written by an "
                                    "older oracle? Run reference/python/autocast_policy.py again");
  const json& t = table["torch_lists"];
  TorchLists out;
  out.source = t.value("source", "?");
  if (!t.contains("lists") || !t["lists"].is_object() || !t.contains("calls") || !t["calls"].is_array())
    throw AutocastOpsError(source + ": torch_lists needs \"lists\" (name: entries) and \"calls\"");
  for (const auto& [name, n] : t["lists"].items()) {
    if (!n.is_number_integer()) throw AutocastOpsError(source + ": torch_lists.lists." + name + " is not a count");
    out.lists.emplace_back(name, n.get<int>());
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < t["calls"].size(); ++i) {
    ListCall c = parse_call(t["calls"][i], source + ": torch_lists.calls[" + std::to_string(i) + "]");
    if (!seen.insert({c.id, c.dtype}).second)
      throw AutocastOpsError(source + ": torch_lists.calls: " + c.id + " under " + c.dtype + " twice");
    out.calls.push_back(std::move(c));
  }
  return out;
}

OpOutcome run_list_call(const ListCall& call, at::Device device) {
  OpOutcome row{call.id, call.list, call.dtype, std::nullopt, std::nullopt, std::nullopt, "", std::nullopt};
  try {
    row.inputs_fnv1a64 = fnv1a64(serialized_tensors(call.args, call.kwargs));
  } catch (const CannotCall& e) {
    row.inputs_fnv1a64 = fnv1a64({});
    row.cannot_call = e.what();
    return row;
  }
  if (call.skipped) {
    row.skipped = call.skipped;
    return row;
  }
  if (call.op.empty()) {
    row.cannot_call = "Python found no operator for it: " + call.unresolved.value_or("?");
    return row;
  }
  row.aten = call.overload.empty() ? call.op : call.op + "." + call.overload;
  const auto op = c10::Dispatcher::singleton().findSchema({call.op, call.overload});
  if (!op) {
    row.cannot_call = "no operator " + *row.aten + " in this LibTorch";
    return row;
  }
  std::vector<c10::IValue> inputs;
  try {
    inputs = build_stack(op->schema(), call.args, call.kwargs, device);
  } catch (const CannotCall& e) {
    row.cannot_call = e.what();
    return row;
  }
  run_operator(*op, inputs, device, call, row);
  return row;
}

}  // namespace ampbench::amp
