// Autocast op-policy conformance: does LibTorch's autocast, driven from C++
// through AutocastGuard, cast each op as Python's torch.autocast does on the
// same machine? The op list and its inputs come from one data file
// (harness/amp/autocast_ops.json) that the Python oracle
// (reference/python/autocast_policy.py) reads too; both build their inputs
// from the same deterministic recipe (no RNG), so each side can fingerprint
// the very bits it ran on.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "amp/autocast_op_calls.h"

namespace ampbench::amp {

struct OpInput {
  std::vector<int64_t> shape;
  std::optional<int64_t> integers_below;                // int64 input: (arange(n) * 3 + 1) % m
  std::optional<std::pair<double, double>> range;       // float input mapped onto [lo, hi]
  bool low = false;                                      // fed in the dtype under test
};

struct AutocastOp {
  std::string op;    // the ATen op (and the key of its C++ and Python calls)
  std::string list;  // lower_precision | fp32 | promote: CUDA's documented list
  std::vector<OpInput> inputs;
  nlohmann::json args = nlohmann::json::object();
};

struct AutocastOpList {
  double step = 0;   // float input k: sin(arange(n) * step + phase * (k + 1))
  double phase = 0;
  std::vector<AutocastOp> ops;
};

// Parses and checks the op list: every op has a C++ call taking as many
// tensors as the file gives it. Throws AutocastOpsError naming `source` and
// the op ("op 'foo' has no C++ call").
AutocastOpList parse_autocast_ops(const nlohmann::json& doc, const std::string& source);
AutocastOpList read_autocast_ops(const std::string& path);

// One row of a policy table, in the Python oracle's JSON format.
struct OpOutcome {
  std::string op;
  std::string list;
  std::string dtype;                                  // float16 | bfloat16
  std::optional<std::string> output_dtype;            // nullopt when it raised
  std::optional<bool> bitwise_equal_to_manual_cast;   // only for a lower-precision output
  std::optional<std::string> error;                   // the error's first line
  std::string inputs_fnv1a64;
  std::optional<std::string> output_fnv1a64;
  // Rows of PyTorch's own lists (autocast_list_calls.h) only:
  std::optional<std::string> aten;                 // the operator called, "aten::mm" or "aten::pow.Tensor_Scalar"
  std::optional<std::string> skipped;              // why neither side ran it (PyTorch's own test skips it)
  std::optional<std::string> cannot_call;          // C++ only: why it could not call the entry
  std::optional<std::string> public_call_differs;  // Python only: its public call and the operator disagree
};

// The op's inputs on the CPU, bit for bit the Python oracle's (make_input).
std::vector<at::Tensor> make_inputs(const AutocastOp& op, const AutocastOpList& list, at::ScalarType low_dtype);

// Runs one op under AutocastGuard(device, dtype) (dtype: kHalf or
// kBFloat16). The op's own failure is recorded in `error`; a broken op list
// throws AutocastOpsError.
OpOutcome run_autocast_op(const AutocastOp& op, const AutocastOpList& list, at::Device device,
                          at::ScalarType dtype);
std::vector<OpOutcome> run_autocast_ops(const AutocastOpList& list, at::Device device, at::ScalarType dtype);

// "float16" / "bfloat16" / "float32" ..., as Python prints torch dtypes.
std::string dtype_name(at::ScalarType dtype);

// FNV-1a 64 over the tensors' bytes (contiguous, on the CPU), 16 hex digits.
std::string fnv1a64(const std::vector<at::Tensor>& tensors);

// Same dtype, shape and bytes (NaNs compare, -0 != +0).
bool same_bits(const at::Tensor& a, const at::Tensor& b);

// The first line of an error, without LibTorch's backtrace (as Python's
// str(e) shows it).
std::string first_line(const std::exception& e);

nlohmann::json to_json(const OpOutcome& row);
// {"torch", "device", "ops": [...]}: the oracle's format.
nlohmann::json policy_table(const std::string& device, const std::vector<OpOutcome>& rows);
// Reads the oracle's table; throws AutocastOpsError naming `source` and the
// field when it is not one.
std::vector<OpOutcome> rows_from_policy_table(const nlohmann::json& table, const std::string& source);

enum class OpStatus { kAgrees, kDisagrees, kCannotCall, kSkipped };
// "agrees" | "disagrees" | "cannot_call" | "skipped", as the report writes it.
std::string to_string(OpStatus status);

struct OpVerdict {
  std::string op;
  std::string dtype;
  bool agrees = false;  // true for kAgrees and kSkipped
  OpStatus status = OpStatus::kDisagrees;
  std::optional<OpOutcome> expected;  // Python's row
  std::optional<OpOutcome> got;       // ours
  std::string message;                // empty when it agrees
};

// One verdict per row of `got` (in order), then one per row of `expected`
// that `got` lacks. A row agrees when both raised, or both gave the same
// output dtype, bitwise flag and output bits, from the same input bits; it
// is "cannot_call" when C++ could not call it, "skipped" when both sides
// skipped it, and disagrees when Python's public call and operator differ.
std::vector<OpVerdict> compare_policies(const std::vector<OpOutcome>& expected, const std::vector<OpOutcome>& got,
                                        const std::string& device);
nlohmann::json to_json(const OpVerdict& verdict);

}  // namespace ampbench::amp
