// An ATen operator's arguments, from the exact JSON form the Python oracle
// writes (reference/python/autocast_values.py) to the IValue stack of the
// operator's schema, so that any operator can be called boxed through the
// dispatcher on the very bits Python ran it on.
//
// JSON forms: {"tensor": {"dtype", "shape", "hex"}} (the tensor's bytes,
// contiguous); {"float": "inf"} for what JSON numbers cannot carry;
// {"dtype": "float32"}; lists; null, bools, integers, floats, strings.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace ampbench::amp {

// An entry the C++ side cannot call: an argument of a type it has no JSON
// form for, a value of the wrong form, an argument the schema lacks or that
// is missing. what() names the operator and the argument.
class CannotCall : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The tensor of {"tensor": {...}}, bit for bit, on the CPU. Throws
// CannotCall naming `where`.
at::Tensor decode_tensor(const nlohmann::json& value, const std::string& where);

// Every tensor of a serialized call, positional arguments first, then
// keyword arguments by name (the order of Python's tensors_in): what the
// inputs fingerprint covers.
std::vector<at::Tensor> serialized_tensors(const nlohmann::json& args, const nlohmann::json& kwargs);

// The stack for `schema`: `args` positionally, then `kwargs` by argument
// name, then the schema's defaults for the rest; tensors on `device`.
// An int where the schema takes int[N] is broadcast to N, as Python's
// bindings do. Throws CannotCall naming the operator and the argument.
std::vector<c10::IValue> build_stack(const c10::FunctionSchema& schema, const nlohmann::json& args,
                                     const nlohmann::json& kwargs, at::Device device);

// The stack with every floating tensor (lists included) cast to dtype: the
// inputs of the manual cast.
std::vector<c10::IValue> cast_floating(const std::vector<c10::IValue>& stack, at::ScalarType dtype);

// What an operator returned: "bfloat16", "float32,float32" (a tuple or
// list, flattened), "none" (an undefined tensor or None), "bool:true",
// "int:3", and the tensors among them; as Python's describe_outputs.
struct Outputs {
  std::string description;
  std::vector<at::Tensor> tensors;
};
Outputs describe_outputs(const std::vector<c10::IValue>& returned);

}  // namespace ampbench::amp
