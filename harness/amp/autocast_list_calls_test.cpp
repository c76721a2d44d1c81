#include "amp/autocast_list_calls.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "amp/autocast_ivalues.h"

namespace ampbench::amp {
namespace {

using nlohmann::json;

// The JSON form Python's autocast_values.encode writes for a tensor.
json encoded(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  const auto* p = static_cast<const unsigned char*>(c.const_data_ptr());
  std::string hex;
  for (std::size_t i = 0; i < c.nbytes(); ++i) {
    char byte[3];
    std::snprintf(byte, sizeof byte, "%02x", p[i]);
    hex += byte;
  }
  return {{"tensor", {{"dtype", dtype_name(c.scalar_type()), }, {"shape", c.sizes().vec()}, {"hex", hex}}}};
}

const c10::FunctionSchema& schema_of(const char* name, const char* overload) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).schema();
}

at::Tensor ramp(std::vector<int64_t> shape, at::ScalarType dtype = at::kFloat) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return at::arange(n, at::kFloat).mul(0.37).sin().reshape(shape).to(dtype);
}

TEST(AutocastListCalls, ATensorRoundTripsBitForBit) {
  const at::Tensor x = at::tensor({-0.0f, 1.5f, std::numeric_limits<float>::quiet_NaN()}).to(at::kBFloat16);
  const at::Tensor back = decode_tensor(encoded(x), "x");
  EXPECT_TRUE(same_bits(x, back));  // -0 and NaN included
}

// Positional args, then kwargs by name, then the schema's defaults; an int
// where the schema takes int[1] is broadcast as Python's bindings do.
TEST(AutocastListCalls, TheStackFollowsTheSchema) {
  const at::Tensor x = ramp({2, 4, 8}), w = ramp({6, 4, 3});
  // aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0,
  //              SymInt[1] dilation=1, SymInt groups=1)
  const auto stack = build_stack(schema_of("aten::conv1d", ""), json::array({encoded(x), encoded(w)}),
                                 json{{"padding", 1}, {"groups", 1}}, at::Device(at::kCPU));
  ASSERT_EQ(stack.size(), 7u);
  EXPECT_TRUE(same_bits(stack[0].toTensor(), x));
  EXPECT_TRUE(stack[2].isNone());
  EXPECT_EQ(stack[3].toIntVector(), std::vector<int64_t>{1});  // default
  EXPECT_EQ(stack[4].toIntVector(), std::vector<int64_t>{1});  // padding=1 broadcast to [1]
  EXPECT_EQ(stack[6].toInt(), 1);
}

TEST(AutocastListCalls, ScalarsListsAndDtypesAreBuilt) {
  const at::Tensor x = ramp({4, 8});
  // aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)
  const auto stack = build_stack(schema_of("aten::sum", "dim_IntList"), json::array({encoded(x), json::array({1})}),
                                 json{{"dtype", {{"dtype", "float64"}}}}, at::Device(at::kCPU));
  ASSERT_EQ(stack.size(), 4u);
  EXPECT_EQ(stack[1].toIntVector(), std::vector<int64_t>{1});
  EXPECT_FALSE(stack[2].toBool());
  EXPECT_EQ(stack[3].toInt(), static_cast<int64_t>(at::kDouble));
  // aten::pow.Tensor_Scalar(Tensor self, Scalar exponent): {"float": "inf"} is a float.
  const auto pow = build_stack(schema_of("aten::pow", "Tensor_Scalar"),
                               json::array({encoded(x), {{"float", "inf"}}}), json::object(), at::Device(at::kCPU));
  EXPECT_TRUE(pow[1].isDouble());
  EXPECT_TRUE(std::isinf(pow[1].toDouble()));
}

// What cannot be built is refused naming the operator and the argument.
TEST(AutocastListCalls, AnArgumentItCannotBuildIsRefusedByName) {
  const at::Tensor x = ramp({4, 8});
  try {
    // aten::bernoulli(Tensor self, *, Generator? generator=None): a Generator has no JSON form.
    build_stack(schema_of("aten::bernoulli", ""), json::array({encoded(x)}), json{{"generator", "seed 7"}},
                at::Device(at::kCPU));
    FAIL() << "a Generator argument was built";
  } catch (const CannotCall& e) {
    EXPECT_NE(std::string(e.what()).find("aten::bernoulli: argument 'generator'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(build_stack(schema_of("aten::mm", ""), json::array({encoded(x)}), json{{"mat3", encoded(x)}},
                           at::Device(at::kCPU)),
               CannotCall);  // no such argument
  EXPECT_THROW(build_stack(schema_of("aten::mm", ""), json::array({encoded(x)}), json::object(), at::Device(at::kCPU)),
               CannotCall);  // mat2 missing, no default
  EXPECT_THROW(build_stack(schema_of("aten::mm", ""), json::array({encoded(x), 3}), json::object(),
                           at::Device(at::kCPU)),
               CannotCall);  // an int where a tensor goes
}

ListCall call_of(const std::string& op, json args, const std::string& dtype = "bfloat16") {
  ListCall c;
  c.id = "torch_16/" + op;
  c.list = "torch_16";
  c.dtype = dtype;
  c.op = "aten::" + op;
  c.args = std::move(args);
  return c;
}

TEST(AutocastListCalls, MmUnderBf16IsBfloat16AndTheManualCast) {
  const OpOutcome row = run_list_call(call_of("mm", json::array({encoded(ramp({8, 8})), encoded(ramp({8, 8}))})),
                                      at::Device(at::kCPU));
  EXPECT_FALSE(row.cannot_call) << *row.cannot_call;
  EXPECT_FALSE(row.error) << *row.error;
  EXPECT_EQ(row.aten, "aten::mm");
  EXPECT_EQ(row.output_dtype, "bfloat16");
  EXPECT_EQ(row.bitwise_equal_to_manual_cast, true);
  EXPECT_EQ(row.inputs_fnv1a64, fnv1a64({ramp({8, 8}), ramp({8, 8})}));
}

TEST(AutocastListCalls, CatOfFloat32AndBfloat16IsPromotedToFloat32) {
  ListCall cat = call_of("cat", json::array({json::array({encoded(ramp({8}, at::kBFloat16)), encoded(ramp({8}))})}));
  const OpOutcome row = run_list_call(cat, at::Device(at::kCPU));
  EXPECT_EQ(row.output_dtype, "float32");
  EXPECT_EQ(row.bitwise_equal_to_manual_cast, std::nullopt);
}

TEST(AutocastListCalls, AnOperatorThatDoesNotExistCannotBeCalled) {
  const OpOutcome row = run_list_call(call_of("no_such_op", json::array({encoded(ramp({2}))})), at::Device(at::kCPU));
  ASSERT_TRUE(row.cannot_call);
  EXPECT_EQ(*row.cannot_call, "no operator aten::no_such_op in this LibTorch");
  ListCall unresolved = call_of("mm", json::array());
  unresolved.op.clear();
  unresolved.unresolved = "tracing the public call failed";
  EXPECT_NE(run_list_call(unresolved, at::Device(at::kCPU)).cannot_call.value_or("").find("tracing"),
            std::string::npos);
}

// A C++ row that cannot be called fails the comparison as such, even where
// Python's row raised.
TEST(AutocastListCalls, CannotCallIsAVerdictOfItsOwn) {
  OpOutcome python{"torch_16/x", "torch_16", "bfloat16", std::nullopt, std::nullopt, "boom", "00", std::nullopt};
  OpOutcome ours = python;
  ours.cannot_call = "no operator aten::x in this LibTorch";
  const auto verdicts = compare_policies({python}, {ours}, "cpu");
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_FALSE(verdicts[0].agrees);
  EXPECT_EQ(verdicts[0].status, OpStatus::kCannotCall);
  EXPECT_NE(verdicts[0].message.find("torch_16/x on cpu under bfloat16: cannot be called from C++"),
            std::string::npos);
}

TEST(AutocastListCalls, ATableWithoutTorchListsIsRefused) {
  EXPECT_THROW(parse_torch_lists(json{{"ops", json::array()}}, "t.json"), AutocastOpsError);
  const json table = {{"torch_lists",
                       {{"source", "S"},
                        {"lists", {{"torch_16", 1}}},
                        {"calls", json::array({{{"id", "torch_16/mm"}, {"list", "torch_16"}, {"dtype", "float16"},
                                                {"op", "aten::mm"}, {"overload", ""}, {"args", json::array()}}})}}}};
  const TorchLists lists = parse_torch_lists(table, "t.json");
  ASSERT_EQ(lists.calls.size(), 1u);
  EXPECT_EQ(lists.calls[0].op, "aten::mm");
  json twice = table;
  twice["torch_lists"]["calls"].push_back(table["torch_lists"]["calls"][0]);
  EXPECT_THROW(parse_torch_lists(twice, "t.json"), AutocastOpsError);
}

}  // namespace
}  // namespace ampbench::amp
