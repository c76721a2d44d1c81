// Numbers in a suite file are range-checked when read: no silent
// integer wrap, no unbounded run, no allocation that cannot fit.
#include "suite/memory_estimate.h"
#include "suite/suite.h"
#include "spec/workload_traits.h"

#include <gtest/gtest.h>

#include "suite/suite_test_util.h"

#include <string>

namespace ampbench {
namespace {

std::string suite_with(const std::string& defaults, const std::string& mlp = "\"hidden\": 8") {
  return R"({"name": "t", "defaults": {)" + defaults + R"(},
    "models": {"mlp": {"batch": 8, "in_features": 8, "classes": 8, )" + mlp + R"(}},
    "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": ["fp32", "fp16"], "optimizers": ["sgd"]},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}}})";
}

std::string error_of(const std::string& text) { return test::suite_error(text, DeviceKind::kCpu, "(accepted)"); }

struct BadNumber {
  std::string defaults;
  std::string says;
};

class SuiteRange : public testing::TestWithParam<BadNumber> {};

TEST_P(SuiteRange, IsRefusedNamingFieldAndValue) {
  const std::string error = error_of(suite_with(GetParam().defaults));
  EXPECT_NE(error.find(GetParam().says), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(
    Suite, SuiteRange,
    testing::Values(BadNumber{R"("steps": 4294967308)", "defaults.steps: 4294967308 is out of range (at most 2147483647)"},
                    BadNumber{R"("steps": 1000000000000)", "defaults.steps: 1000000000000 is out of range"},
                    BadNumber{R"("steps": 1000000000)", "defaults.steps: must be in [1, 100000], got 1000000000"},
                    BadNumber{R"("steps": 0)", "defaults.steps: must be in [1, 100000], got 0"},
                    BadNumber{R"("seed": -1)", "defaults.seed: -1 is out of range (at least 0)"},
                    BadNumber{R"("iters_to_accumulate": 5000)", "defaults.iters_to_accumulate: must be in [1, 1024]"},
                    BadNumber{R"("inject_inf_step": -2)", "defaults.inject_inf_step: must be -1 (none)"},
                    BadNumber{R"("world_size": 100000)", "defaults.world_size: must be in [1, 1024]"},
                    BadNumber{R"("lr": 1e300)", "defaults.lr: must be in [0, 1000000]"},
                    BadNumber{R"("scaler": {"init_scale": 1e39})", "defaults.scaler.init_scale: must be finite in float32"}));

TEST(SuiteRange, LargestValuesInRangeAreAccepted) {
  EXPECT_EQ(error_of(suite_with(R"("steps": 100000, "seed": 18446744073709551615)")), "(accepted)");
}

TEST(SuiteRange, ModelThatCannotFitIsRefusedBeforeAllocating) {
  const std::string error = error_of(suite_with("", "\"hidden\": 1048576"));
  EXPECT_NE(error.find("case plain/mlp/fp32/sgd cannot fit: needs about"), std::string::npos) << error;
}

TEST(MemoryEstimate, GrowsWithTheSquareOfTheHiddenWidth) {
  CaseSpec c;
  c.workload = &workload_traits("plain");
  c.model = find_model_family("mlp");
  c.sizes.in_features = 1;
  c.sizes.classes = 1;
  c.sizes.hidden = 1000;
  const double small = estimate_case_memory(c).parameter_bytes;
  c.sizes.hidden = 2000;
  EXPECT_NEAR(estimate_case_memory(c).parameter_bytes / small, 4.0, 0.01);
}

TEST(MemoryEstimate, RefusalNamesTheBudget) {
  CaseSpec c;
  c.workload = &workload_traits("plain");
  c.model = find_model_family("mlp");
  c.sizes.hidden = 65536;  // 4.3e9 parameters
  EXPECT_EQ(memory_refusal(c, 1e15), "");
  const std::string why = memory_refusal(c, 16.0 * (1ull << 30));
  EXPECT_NE(why.find("but this machine has 16.0 GiB"), std::string::npos) << why;
  c.sizes.hidden = 64;
  EXPECT_EQ(memory_refusal(c, 16.0 * (1ull << 30)), "");
}

}  // namespace
}  // namespace ampbench
