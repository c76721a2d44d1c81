#include "amp/autocast_policy.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ampbench::amp {
namespace {

// The real op list, the one `ampbench autocast-ops` and the Python oracle read.
const AutocastOpList& op_list() {
  static const AutocastOpList list = read_autocast_ops(AMPBENCH_AUTOCAST_OPS_FILE);
  return list;
}

const AutocastOp& op_named(const std::string& name) {
  for (const AutocastOp& op : op_list().ops)
    if (op.op == name) return op;
  throw std::invalid_argument("no op " + name + " in " AMPBENCH_AUTOCAST_OPS_FILE);
}

OpOutcome run_on_cpu(const AutocastOp& op, at::ScalarType dtype) {
  return run_autocast_op(op, op_list(), at::Device(at::kCPU), dtype);
}

const nlohmann::json kMm = {{"op", "mm"}, {"list", "lower_precision"}, {"inputs", {{8, 16}, {16, 4}}}};

TEST(AutocastPolicy, MmUnderBf16IsBfloat16AndBitwiseTheManualCast) {
  const OpOutcome row = run_on_cpu(op_named("mm"), at::kBFloat16);
  EXPECT_FALSE(row.error) << *row.error;
  EXPECT_EQ(row.output_dtype, "bfloat16");
  EXPECT_EQ(row.bitwise_equal_to_manual_cast, true);
  EXPECT_EQ(row.inputs_fnv1a64.size(), 16u);
}

// Softmax is on CUDA's fp32 list, not on CPU's: CPU autocast leaves it alone
// (float32 in, float32 out; bfloat16 in, bfloat16 out), where mse_loss,
// on both lists, turns bfloat16 inputs into a float32 loss.
TEST(AutocastPolicy, SoftmaxOfFloat32StaysFloat32) {
  AutocastOp softmax = op_named("softmax");
  for (OpInput& in : softmax.inputs) in.low = false;
  const OpOutcome row = run_on_cpu(softmax, at::kBFloat16);
  EXPECT_EQ(row.output_dtype, "float32");
  EXPECT_EQ(row.bitwise_equal_to_manual_cast, std::nullopt);
}

TEST(AutocastPolicy, OnCpuSoftmaxOfBfloat16StaysBfloat16ButMseLossIsFloat32) {
  EXPECT_EQ(run_on_cpu(op_named("softmax"), at::kBFloat16).output_dtype, "bfloat16");
  EXPECT_EQ(run_on_cpu(op_named("mse_loss"), at::kBFloat16).output_dtype, "float32");
}

TEST(AutocastPolicy, InputsFollowTheRecipeExactly) {
  const std::vector<at::Tensor> x = make_inputs(op_named("cat"), op_list(), at::kHalf);
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[0].scalar_type(), at::kFloat);
  EXPECT_EQ(x[1].scalar_type(), at::kHalf);  // low_inputs: [1]
  const at::Tensor first = at::arange(32, at::kFloat).mul(op_list().step).add(op_list().phase).sin().reshape({4, 8});
  EXPECT_TRUE(at::equal(x[0], first));
  EXPECT_NE(fnv1a64({x[0]}), fnv1a64({x[1]}));
}

TEST(AutocastPolicy, AnOpThatRaisesIsRecordedNotSkipped) {
  // dot of float32 and bfloat16: CPU autocast does not promote it (CUDA does).
  const OpOutcome row = run_on_cpu(op_named("dot"), at::kBFloat16);
  ASSERT_TRUE(row.error);
  EXPECT_NE(row.error->find("same dtype"), std::string::npos) << *row.error;
  EXPECT_EQ(row.output_dtype, std::nullopt);
}

TEST(AutocastPolicy, ADoctoredExpectedTableIsAMismatchNamingTheOp) {
  const std::vector<OpOutcome> got = run_autocast_ops(op_list(), at::Device(at::kCPU), at::kBFloat16);
  std::vector<OpOutcome> expected = rows_from_policy_table(policy_table("cpu", got), "table");
  for (const OpVerdict& v : compare_policies(expected, got, "cpu")) EXPECT_TRUE(v.agrees) << v.message;

  for (OpOutcome& r : expected)
    if (r.op == "addmm") r.output_dtype = "float32";
  int mismatches = 0;
  for (const OpVerdict& v : compare_policies(expected, got, "cpu")) {
    if (v.agrees) continue;
    ++mismatches;
    EXPECT_EQ(v.message, "autocast-ops: addmm on cpu under bfloat16: output bfloat16, Python's policy gives float32");
  }
  EXPECT_EQ(mismatches, 1);
}

TEST(AutocastPolicy, OtherDifferencesAreNamedToo) {
  const OpOutcome got = run_on_cpu(op_named("mm"), at::kBFloat16);
  OpOutcome bits = got, flag = got, raised = got, inputs = got;
  bits.output_fnv1a64 = "0000000000000000";
  flag.bitwise_equal_to_manual_cast = false;
  raised.error = "not implemented";
  inputs.inputs_fnv1a64 = "0000000000000000";
  const auto message = [&](const OpOutcome& want) { return compare_policies({want}, {got}, "cpu").at(0).message; };
  EXPECT_NE(message(bits).find("output bits differ from Python's"), std::string::npos);
  EXPECT_NE(message(flag).find("bitwise equal to the manual cast: true, Python's: false"), std::string::npos);
  EXPECT_NE(message(raised).find("Python raised 'not implemented'"), std::string::npos);
  EXPECT_NE(message(inputs).find("the input recipes drifted"), std::string::npos);
  // A row only one side has is a mismatch as well.
  EXPECT_NE(compare_policies({}, {got}, "cpu").at(0).message.find("not in Python's table"), std::string::npos);
  EXPECT_FALSE(compare_policies({got}, {}, "cpu").at(0).agrees);
}

TEST(AutocastPolicy, AnOpWithoutACppCallIsAnErrorNamingIt) {
  nlohmann::json doc = {{"input_recipe", {{"step", 0.37}, {"phase", 0.11}}}, {"ops", {kMm}}};
  EXPECT_NO_THROW(parse_autocast_ops(doc, "ops.json"));
  doc["ops"].push_back({{"op", "frobnicate"}, {"list", "fp32"}, {"inputs", {{4}}}});
  try {
    parse_autocast_ops(doc, "ops.json");
    FAIL() << "an op without a C++ call was accepted";
  } catch (const AutocastOpsError& e) {
    EXPECT_NE(std::string(e.what()).find("op 'frobnicate' has no C++ call"), std::string::npos) << e.what();
  }
}

TEST(AutocastPolicy, AMalformedOpListIsRefused) {
  const nlohmann::json recipe = {{"step", 0.37}, {"phase", 0.11}};
  nlohmann::json wrong_arity = kMm;
  wrong_arity["inputs"] = {{8, 16}};
  EXPECT_THROW(parse_autocast_ops({{"input_recipe", recipe}, {"ops", {wrong_arity}}}, "f"), AutocastOpsError);
  nlohmann::json twice = {{"input_recipe", recipe}, {"ops", {kMm, kMm}}};
  EXPECT_THROW(parse_autocast_ops(twice, "f"), AutocastOpsError);
  EXPECT_THROW(parse_autocast_ops({{"ops", {kMm}}}, "f"), AutocastOpsError);  // no recipe
  // A missing argument is the list's fault, not an "unsupported" op.
  AutocastOp softmax = op_named("softmax");
  softmax.args = nlohmann::json::object();
  EXPECT_THROW(run_on_cpu(softmax, at::kBFloat16), AutocastOpsError);
}

}  // namespace
}  // namespace ampbench::amp
