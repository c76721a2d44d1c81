#include "amp/autocast_policy.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/headeronly/version.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "amp/autocast_guard.h"
#include "io/json_file.h"

namespace ampbench::amp {
namespace {

using nlohmann::json;

OpInput parse_input(const json& entry, const std::string& where) {
  OpInput in;
  const json& shape = entry.is_object() ? entry.value("shape", json()) : entry;
  if (!shape.is_array() || shape.empty()) throw AutocastOpsError(where + ": shape must be a non-empty list");
  for (const json& d : shape) {
    if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > 4096)
      throw AutocastOpsError(where + ": every dimension must be an integer in [1, 4096]");
    in.shape.push_back(d.get<int64_t>());
  }
  if (entry.is_object() && entry.contains("integers_below")) {
    const json& m = entry["integers_below"];
    if (!m.is_number_integer() || m.get<int64_t>() < 1) throw AutocastOpsError(where + ": integers_below must be >= 1");
    in.integers_below = m.get<int64_t>();
  }
  if (entry.is_object() && entry.contains("range")) {
    const json& r = entry["range"];
    if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number())
      throw AutocastOpsError(where + ": range must be [lo, hi]");
    in.range = std::make_pair(r[0].get<double>(), r[1].get<double>());
  }
  return in;
}

AutocastOp parse_op(const json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("op") || !j["op"].is_string())
    throw AutocastOpsError(where + ": needs an \"op\" name");
  AutocastOp op;
  op.op = j["op"].get<std::string>();
  const std::string at = where + " (" + op.op + ")";
  const OpCall* call = find_op_call(op.op);
  if (call == nullptr)
    throw AutocastOpsError(at + ": op '" + op.op + "' has no C++ call (add it to harness/amp/autocast_op_calls.cpp)");
  op.list = j.value("list", "");
  if (op.list != "lower_precision" && op.list != "fp32" && op.list != "promote")
    throw AutocastOpsError(at + ": \"list\" must be lower_precision, fp32 or promote");
  const json& inputs = j.value("inputs", json::array());
  if (!inputs.is_array() || static_cast<int>(inputs.size()) != call->inputs)
    throw AutocastOpsError(at + ": its C++ call takes " + std::to_string(call->inputs) + " tensor inputs, the file gives " +
                           std::to_string(inputs.is_array() ? inputs.size() : 0));
  for (std::size_t k = 0; k < inputs.size(); ++k)
    op.inputs.push_back(parse_input(inputs[k], at + ".inputs[" + std::to_string(k) + "]"));
  const json low = j.value("low_inputs", json::array());
  if (!low.is_array()) throw AutocastOpsError(at + ": low_inputs must be a list of positions");
  for (const json& k : low) {
    if (!k.is_number_integer() || k.get<int64_t>() < 0 || k.get<std::size_t>() >= op.inputs.size() ||
        op.inputs[k.get<std::size_t>()].integers_below)
      throw AutocastOpsError(at + ": low_inputs must name float inputs by position");
    op.inputs[k.get<std::size_t>()].low = true;
  }
  if (j.contains("args")) {
    if (!j["args"].is_object()) throw AutocastOpsError(at + ": args must be an object");
    op.args = j["args"];
  }
  return op;
}

// The bytes of a tensor as stored: the fingerprint and the bitwise test
// both look at bits, so NaNs compare and -0 != +0.
at::Tensor bytes_of(const at::Tensor& t) { return t.detach().contiguous().cpu(); }

at::Tensor call_op(const OpCall& call, const AutocastOp& op, const std::vector<at::Tensor>& x) {
  try {
    return call.call(x, op.args);
  } catch (const AutocastOpsError& e) {
    throw AutocastOpsError("op " + op.op + ": " + e.what());
  }
}

// The same op, outside autocast, on every floating input cast to `dtype`.
std::optional<bool> equals_manual_cast(const OpCall& call, const AutocastOp& op, const std::vector<at::Tensor>& x,
                                       const at::Tensor& out, at::ScalarType dtype, OpOutcome& row) {
  std::vector<at::Tensor> manual;
  for (const at::Tensor& t : x) manual.push_back(t.is_floating_point() ? t.to(dtype) : t);
  try {
    return same_bits(call_op(call, op, manual), out);
  } catch (const AutocastOpsError&) {
    throw;
  } catch (const std::exception& e) {
    row.error = "manual cast: " + first_line(e);
    return std::nullopt;
  }
}

template <typename T>
std::optional<T> optional_field(const json& row, const char* key, const std::string& where) {
  if (!row.contains(key) || row[key].is_null()) return std::nullopt;
  try {
    return row[key].get<T>();
  } catch (const json::exception&) {
    throw AutocastOpsError(where + ": \"" + key + "\" has the wrong type");
  }
}

}  // namespace

bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const at::Tensor x = bytes_of(a), y = bytes_of(b);
  return x.nbytes() == y.nbytes() && std::memcmp(x.const_data_ptr(), y.const_data_ptr(), x.nbytes()) == 0;
}

std::string first_line(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  std::string text = c10_error ? c10_error->what_without_backtrace() : e.what();
  const std::size_t start = text.find_first_not_of(" \t\n");
  if (start == std::string::npos) return "error";
  text = text.substr(start);
  return text.substr(0, text.find('\n'));
}

AutocastOpList parse_autocast_ops(const json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("ops") || !doc["ops"].is_array() || doc["ops"].empty())
    throw AutocastOpsError(source + ": no \"ops\" list");
  const json recipe = doc.value("input_recipe", json());
  if (!recipe.is_object() || !recipe.value("step", json()).is_number() || !recipe.value("phase", json()).is_number())
    throw AutocastOpsError(source + ": \"input_recipe\" needs numbers \"step\" and \"phase\"");
  AutocastOpList list;
  list.step = recipe["step"].get<double>();
  list.phase = recipe["phase"].get<double>();
  std::set<std::string> seen;
  for (std::size_t i = 0; i < doc["ops"].size(); ++i) {
    const std::string where = source + ": ops[" + std::to_string(i) + "]";
    try {
      list.ops.push_back(parse_op(doc["ops"][i], where));
    } catch (const json::exception& e) {  // a field of the wrong type
      throw AutocastOpsError(where + ": " + io::strip_json_prefix(e.what()));
    }
    if (!seen.insert(list.ops.back().op).second)
      throw AutocastOpsError(source + ": op '" + list.ops.back().op + "' is listed twice");
  }
  return list;
}

AutocastOpList read_autocast_ops(const std::string& path) {
  try {
    return parse_autocast_ops(io::read_json_file(path), path);
  } catch (const io::JsonFileError& e) {
    throw AutocastOpsError(e.what());
  }
}

// The same ATen ops, in the same order, as make_input in
// reference/python/autocast_policy.py: the scalars are doubles on both
// sides, rounded to float32 by the same kernels.
std::vector<at::Tensor> make_inputs(const AutocastOp& op, const AutocastOpList& list, at::ScalarType low_dtype) {
  std::vector<at::Tensor> xs;
  for (std::size_t k = 0; k < op.inputs.size(); ++k) {
    const OpInput& in = op.inputs[k];
    int64_t n = 1;
    for (int64_t d : in.shape) n *= d;
    if (in.integers_below) {
      xs.push_back(at::arange(n, at::kLong).mul(3).add(1).remainder(*in.integers_below).reshape(in.shape));
      continue;
    }
    at::Tensor x = at::arange(n, at::kFloat).mul(list.step).add(list.phase * static_cast<double>(k + 1)).sin();
    if (in.range) {
      const auto [lo, hi] = *in.range;
      x = x.mul((hi - lo) / 2).add((hi + lo) / 2);
    }
    x = x.reshape(in.shape);
    xs.push_back(in.low ? x.to(low_dtype) : x);
  }
  return xs;
}

OpOutcome run_autocast_op(const AutocastOp& op, const AutocastOpList& list, at::Device device, at::ScalarType dtype) {
  const OpCall* call = find_op_call(op.op);
  if (call == nullptr) throw AutocastOpsError("op '" + op.op + "' has no C++ call");
  const std::vector<at::Tensor> cpu_inputs = make_inputs(op, list, dtype);
  OpOutcome row{op.op, op.list, dtype_name(dtype), std::nullopt, std::nullopt, std::nullopt, fnv1a64(cpu_inputs),
                std::nullopt};
  std::vector<at::Tensor> x;
  for (const at::Tensor& t : cpu_inputs) x.push_back(t.to(device));
  at::Tensor out;
  try {
    AutocastGuard autocast(device.type(), dtype);
    out = call_op(*call, op, x);
  } catch (const AutocastOpsError&) {
    throw;
  } catch (const std::exception& e) {  // the op's own failure on this device/dtype: recorded
    row.error = first_line(e);
    return row;
  }
  row.output_dtype = dtype_name(out.scalar_type());
  row.output_fnv1a64 = fnv1a64({out});
  if (out.scalar_type() == dtype)
    row.bitwise_equal_to_manual_cast = equals_manual_cast(*call, op, x, out, dtype, row);
  return row;
}

std::vector<OpOutcome> run_autocast_ops(const AutocastOpList& list, at::Device device, at::ScalarType dtype) {
  TORCH_CHECK_VALUE(dtype == at::kHalf || dtype == at::kBFloat16, "autocast-ops: dtype must be float16 or bfloat16");
  std::vector<OpOutcome> rows;
  for (const AutocastOp& op : list.ops) rows.push_back(run_autocast_op(op, list, device, dtype));
  return rows;
}

std::string dtype_name(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kLong: return "int64";
    case at::kInt: return "int32";
    case at::kShort: return "int16";
    case at::kChar: return "int8";
    case at::kByte: return "uint8";
    case at::kComplexFloat: return "complex64";
    case at::kComplexDouble: return "complex128";
    case at::kBool: return "bool";
    default: return c10::toString(dtype);
  }
}

std::string fnv1a64(const std::vector<at::Tensor>& tensors) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const at::Tensor& t : tensors) {
    const at::Tensor c = bytes_of(t);
    const auto* p = static_cast<const unsigned char*>(c.const_data_ptr());
    for (std::size_t i = 0; i < c.nbytes(); ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

json to_json(const OpOutcome& r) {
  auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json j = {{"op", r.op}, {"list", r.list}, {"dtype", r.dtype}, {"output_dtype", opt(r.output_dtype)},
          {"bitwise_equal_to_manual_cast", opt(r.bitwise_equal_to_manual_cast)}, {"error", opt(r.error)},
          {"inputs_fnv1a64", r.inputs_fnv1a64}, {"output_fnv1a64", opt(r.output_fnv1a64)}};
  for (const auto& [key, value] : {std::pair{"aten", &r.aten}, std::pair{"skipped", &r.skipped},
                                   std::pair{"cannot_call", &r.cannot_call},
                                   std::pair{"public_call_differs", &r.public_call_differs}})
    if (*value) j[key] = **value;
  return j;
}

json policy_table(const std::string& device, const std::vector<OpOutcome>& rows) {
  json ops = json::array();
  for (const OpOutcome& r : rows) ops.push_back(to_json(r));
  return {{"torch", TORCH_VERSION}, {"device", device}, {"ops", ops}};
}

std::vector<OpOutcome> rows_from_policy_table(const json& table, const std::string& source) {
  if (!table.is_object() || !table.contains("ops") || !table["ops"].is_array())
    throw AutocastOpsError(source + ": not an autocast policy table (no \"ops\" list)");
  std::vector<OpOutcome> rows;
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < table["ops"].size(); ++i) {
    const json& j = table["ops"][i];
    const std::string where = source + ": ops[" + std::to_string(i) + "]";
    if (!j.is_object()) throw AutocastOpsError(where + ": not an object");
    OpOutcome r;
    const auto op = optional_field<std::string>(j, "op", where);
    const auto dtype = optional_field<std::string>(j, "dtype", where);
    const auto inputs = optional_field<std::string>(j, "inputs_fnv1a64", where);
    if (!op || !dtype || !inputs) throw AutocastOpsError(where + ": needs \"op\", \"dtype\" and \"inputs_fnv1a64\"");
    r.op = *op;
    r.dtype = *dtype;
    r.inputs_fnv1a64 = *inputs;
    r.list = optional_field<std::string>(j, "list", where).value_or("");
    r.output_dtype = optional_field<std::string>(j, "output_dtype", where);
    r.bitwise_equal_to_manual_cast = optional_field<bool>(j, "bitwise_equal_to_manual_cast", where);
    r.error = optional_field<std::string>(j, "error", where);
    r.output_fnv1a64 = optional_field<std::string>(j, "output_fnv1a64", where);
    r.aten = optional_field<std::string>(j, "aten", where);
    r.skipped = optional_field<std::string>(j, "skipped", where);
    r.cannot_call = optional_field<std::string>(j, "cannot_call", where);
    r.public_call_differs = optional_field<std::string>(j, "public_call_differs", where);
    if (!r.error && !r.output_dtype && !r.skipped)
      throw AutocastOpsError(where + ": neither an output_dtype nor an error (nor skipped)");
    if (!seen.insert({r.op, r.dtype}).second) throw AutocastOpsError(where + ": " + r.op + " under " + r.dtype + " twice");
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace ampbench::amp
