#include "amp/autocast_ivalues.h"

#include <ATen/ATen.h>
#include <ATen/core/jit_type.h>

#include <limits>
#include <map>
#include <optional>

#include "amp/autocast_policy.h"

namespace ampbench::amp {
namespace {

using nlohmann::json;

const std::map<std::string, at::ScalarType>& dtypes() {
  static const std::map<std::string, at::ScalarType> names = {
      {"float32", at::kFloat}, {"float64", at::kDouble}, {"float16", at::kHalf}, {"bfloat16", at::kBFloat16},
      {"int64", at::kLong},    {"int32", at::kInt},      {"int16", at::kShort},  {"int8", at::kChar},
      {"uint8", at::kByte},    {"bool", at::kBool}};
  return names;
}

at::ScalarType dtype_named(const json& name, const std::string& where) {
  const auto it = name.is_string() ? dtypes().find(name.get<std::string>()) : dtypes().end();
  if (it == dtypes().end()) throw CannotCall(where + ": unknown dtype " + name.dump());
  return it->second;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool is_tensor(const json& v) { return v.is_object() && v.contains("tensor"); }

void collect_tensors(const json& v, std::vector<at::Tensor>& out, const std::string& where) {
  if (is_tensor(v)) out.push_back(decode_tensor(v, where));
  if (v.is_array())
    for (const json& x : v) collect_tensors(x, out, where);
}

// How the boxed calling convention holds a value of this schema type: a
// SymInt as an int, a ScalarType as its integer, and so on.
c10::TypePtr boxed_type(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::SymIntType:
    case c10::TypeKind::ScalarTypeType:
    case c10::TypeKind::LayoutType:
    case c10::TypeKind::MemoryFormatType: return c10::IntType::get();
    case c10::TypeKind::SymFloatType: return c10::FloatType::get();
    case c10::TypeKind::SymBoolType: return c10::BoolType::get();
    case c10::TypeKind::OptionalType:
      return c10::OptionalType::create(boxed_type(type->castRaw<c10::OptionalType>()->getElementType()));
    default: return type;
  }
}

std::optional<double> as_double(const json& v) {
  if (v.is_number() && !v.is_boolean()) return v.get<double>();
  if (v.is_object() && v.contains("float") && v["float"].is_string()) {
    const std::string s = v["float"].get<std::string>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  return std::nullopt;
}

c10::IValue to_ivalue(const c10::TypePtr& type, const json& v, std::optional<int32_t> n, at::Device device,
                      const std::string& where);

c10::IValue to_list(const c10::ListType& type, const json& v, std::optional<int32_t> n, at::Device device,
                    const std::string& where) {
  const c10::TypePtr& elem = type.getElementType();
  c10::impl::GenericList list(boxed_type(elem));
  if (!v.is_array()) {  // int[2] given as 1: broadcast, as Python's bindings do
    if (!n || !v.is_number_integer())
      throw CannotCall(where + ": expected a list for " + type.str() + ", got " + v.dump().substr(0, 40));
    for (int32_t k = 0; k < *n; ++k) list.push_back(to_ivalue(elem, v, std::nullopt, device, where));
    return list;
  }
  for (std::size_t k = 0; k < v.size(); ++k)
    list.push_back(to_ivalue(elem, v[k], std::nullopt, device, where + "[" + std::to_string(k) + "]"));
  return list;
}

c10::IValue to_ivalue(const c10::TypePtr& type, const json& v, std::optional<int32_t> n, at::Device device,
                      const std::string& where) {
  auto refuse = [&](const std::string& why) -> CannotCall {
    return CannotCall(where + " (" + type->str() + "): " + why);
  };
  switch (type->kind()) {
    case c10::TypeKind::OptionalType:
      if (v.is_null()) return c10::IValue();
      return to_ivalue(type->castRaw<c10::OptionalType>()->getElementType(), v, n, device, where);
    case c10::TypeKind::TensorType:
      if (!is_tensor(v)) throw refuse("expected a tensor, got " + v.dump().substr(0, 40));
      return decode_tensor(v, where).to(device);
    case c10::TypeKind::ListType: return to_list(*type->castRaw<c10::ListType>(), v, n, device, where);
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
      if (!v.is_number_integer()) throw refuse("expected an integer, got " + v.dump().substr(0, 40));
      return v.get<int64_t>();
    case c10::TypeKind::FloatType:
    case c10::TypeKind::SymFloatType:
      if (const auto d = as_double(v)) return *d;
      throw refuse("expected a number, got " + v.dump().substr(0, 40));
    case c10::TypeKind::BoolType:
    case c10::TypeKind::SymBoolType:
      if (!v.is_boolean()) throw refuse("expected a bool, got " + v.dump().substr(0, 40));
      return v.get<bool>();
    case c10::TypeKind::NumberType:  // Scalar
      if (v.is_boolean()) return v.get<bool>();
      if (v.is_number_integer()) return v.get<int64_t>();
      if (const auto d = as_double(v)) return *d;
      throw refuse("expected a number, got " + v.dump().substr(0, 40));
    case c10::TypeKind::StringType:
      if (!v.is_string()) throw refuse("expected a string, got " + v.dump().substr(0, 40));
      return v.get<std::string>();
    case c10::TypeKind::ScalarTypeType:
      if (!v.is_object() || !v.contains("dtype"))
        throw refuse("expected {\"dtype\": ...}, got " + v.dump().substr(0, 40));
      return static_cast<int64_t>(dtype_named(v["dtype"], where));
    default: throw refuse("no JSON form builds this type");
  }
}

c10::IValue cast_value(const c10::IValue& v, at::ScalarType dtype) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    return t.defined() && t.is_floating_point() ? c10::IValue(t.to(dtype)) : v;
  }
  if (v.isList()) {
    const c10::impl::GenericList in = v.toList();
    c10::impl::GenericList out(in.elementType());
    for (const c10::IValue& x : in) out.push_back(cast_value(x, dtype));
    return out;
  }
  return v;
}

void describe(const c10::IValue& v, Outputs& out) {
  auto add = [&](const std::string& part) { out.description += (out.description.empty() ? "" : ",") + part; };
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    add(t.defined() ? dtype_name(t.scalar_type()) : "none");
    if (t.defined()) out.tensors.push_back(t);
  } else if (v.isList()) {
    for (const c10::IValue& x : v.toList()) describe(x, out);
  } else if (v.isTuple()) {
    for (const c10::IValue& x : v.toTupleRef().elements()) describe(x, out);
  } else if (v.isNone()) {
    add("none");
  } else if (v.isBool()) {
    add(v.toBool() ? "bool:true" : "bool:false");
  } else if (v.isInt()) {
    add("int:" + std::to_string(v.toInt()));
  } else {
    add(v.isDouble() ? "float" : v.tagKind());
  }
}

}  // namespace

at::Tensor decode_tensor(const json& value, const std::string& where) {
  const json& t = value.at("tensor");
  if (!t.is_object() || !t.contains("dtype") || !t.contains("shape") || !t.contains("hex") || !t["hex"].is_string() ||
      !t["shape"].is_array())
    throw CannotCall(where + ": a tensor needs \"dtype\", \"shape\" and \"hex\"");
  std::vector<int64_t> shape;
  for (const json& d : t["shape"]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) throw CannotCall(where + ": a tensor's shape must be sizes");
    shape.push_back(d.get<int64_t>());
  }
  at::Tensor out = at::empty(shape, at::TensorOptions().dtype(dtype_named(t["dtype"], where)));
  const std::string& hex = t["hex"].get_ref<const std::string&>();
  if (hex.size() != 2 * out.nbytes())
    throw CannotCall(where + ": " + std::to_string(hex.size() / 2) + " bytes for a tensor of " +
                     std::to_string(out.nbytes()));
  auto* bytes = static_cast<unsigned char*>(out.data_ptr());
  for (std::size_t i = 0; i < out.nbytes(); ++i) {
    const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw CannotCall(where + ": a tensor's hex has a non-hex digit");
    bytes[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return out;
}

std::vector<at::Tensor> serialized_tensors(const json& args, const json& kwargs) {
  std::vector<at::Tensor> out;
  collect_tensors(args, out, "args");
  if (kwargs.is_object())  // nlohmann keeps keys sorted, as Python's tensors_in walks them
    for (const auto& [key, v] : kwargs.items()) collect_tensors(v, out, "kwargs." + key);
  return out;
}

std::vector<c10::IValue> build_stack(const c10::FunctionSchema& schema, const json& args, const json& kwargs,
                                     at::Device device) {
  const std::string op = schema.overload_name().empty() ? schema.name() : schema.name() + "." + schema.overload_name();
  const std::vector<c10::Argument>& params = schema.arguments();
  if (!args.is_array() || !(kwargs.is_object() || kwargs.is_null()))
    throw CannotCall(op + ": args must be a list and kwargs an object");
  std::size_t positional = 0;
  while (positional < params.size() && !params[positional].kwarg_only()) ++positional;
  if (args.size() > positional)
    throw CannotCall(op + ": " + std::to_string(args.size()) + " positional arguments, its schema takes " +
                     std::to_string(positional));
  std::vector<std::optional<c10::IValue>> slots(params.size());
  auto build = [&](std::size_t i, const json& v) {
    const c10::Argument& p = params[i];
    slots[i] = to_ivalue(p.real_type(), v, p.N(), device, op + ": argument '" + p.name() + "'");
  };
  for (std::size_t i = 0; i < args.size(); ++i) build(i, args[i]);
  if (kwargs.is_object()) {
    for (const auto& [key, v] : kwargs.items()) {
      std::size_t i = 0;
      while (i < params.size() && params[i].name() != key) ++i;
      if (i == params.size()) throw CannotCall(op + ": its schema has no argument '" + key + "'");
      if (slots[i]) throw CannotCall(op + ": argument '" + key + "' given twice");
      build(i, v);
    }
  }
  std::vector<c10::IValue> stack;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!slots[i] && !params[i].default_value())
      throw CannotCall(op + ": argument '" + params[i].name() + "' is missing and has no default");
    stack.push_back(slots[i] ? *slots[i] : *params[i].default_value());
  }
  return stack;
}

std::vector<c10::IValue> cast_floating(const std::vector<c10::IValue>& stack, at::ScalarType dtype) {
  std::vector<c10::IValue> out;
  for (const c10::IValue& v : stack) out.push_back(cast_value(v, dtype));
  return out;
}

Outputs describe_outputs(const std::vector<c10::IValue>& returned) {
  Outputs out;
  for (const c10::IValue& v : returned) describe(v, out);
  return out;
}

}  // namespace ampbench::amp
