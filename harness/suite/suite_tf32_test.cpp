// The tf32 policy in suite files: matrix and explicit cases, its tolerance
// row (required once a suite runs tf32, accepted before), the scaler refusal.
#include "suite/suite.h"

#include <gtest/gtest.h>

#include "suite/suite_test_util.h"

namespace ampbench {
namespace {

const char* kTf32Row = R"(, "tf32": {"loss_rel_units": 5, "param_rel_units": 200})";

std::string tf32_suite(const std::string& precisions, const std::string& tf32_row, const std::string& cases = "") {
  return R"({
    "name": "t",
    "models": {"mlp": {"batch": 8, "in_features": 8, "hidden": 8, "classes": 8}},
    "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": )" +
         precisions + R"(, "optimizers": ["sgd"]},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {})" +
         tf32_row + "}" + (cases.empty() ? "" : R"(, "cases": )" + cases) + "}";
}

std::string tf32_error(const std::string& text) { return test::suite_error(text, DeviceKind::kCuda); }

using test::find_case;

TEST(SuiteTf32, AMatrixTf32CaseIsComparedWithFp32UnderItsOwnRow) {
  const Suite s = parse_suite(tf32_suite(R"(["fp32", "fp16", "tf32"])", kTf32Row), "t.json", DeviceKind::kCuda);
  ASSERT_EQ(s.cases.size(), 3u);
  const CaseSpec& tf32 = find_case(s, "plain/mlp/tf32/sgd");
  EXPECT_EQ(tf32.precision.precision(), Precision::kTf32);
  EXPECT_EQ(tf32.baseline_id, "plain/mlp/fp32/sgd");
  EXPECT_FALSE(tf32.scaler_enabled);
  EXPECT_EQ(tf32.tolerance.loss_rel_units, 5);
  EXPECT_EQ(tf32.tolerance.param_rel_units, 200);
  EXPECT_EQ(tf32.tolerance.max_extra_skipped_steps, ToleranceRule{}.max_extra_skipped_steps);
  // The baseline's replicas are perturbed at each compared precision's u.
  const CaseSpec& base = find_case(s, "plain/mlp/fp32/sgd");
  EXPECT_EQ(base.envelope_precisions, (std::vector<Precision>{Precision::kFp16, Precision::kTf32}));
  EXPECT_EQ(base.tolerance.loss_rel_units, ToleranceRule{}.loss_rel_units);
}

TEST(SuiteTf32, AMatrixWithTf32AndNoRowIsRefusedNamingTheEntry) {
  const std::string err = tf32_error(tf32_suite(R"(["fp32", "tf32"])", ""));
  EXPECT_NE(err.find("t.json"), std::string::npos) << err;
  EXPECT_NE(err.find("matrix.precisions[1]"), std::string::npos) << err;
  EXPECT_NE(err.find("precision 'tf32' has no row in \"tolerances\""), std::string::npos) << err;
}

TEST(SuiteTf32, AnExplicitCaseIsAcceptedWithTheRowAndRefusedWithout) {
  const std::string tf32_case =
      R"([{"workload": "plain", "model": "mlp", "precision": "tf32", "optimizer": "adamw"}])";
  const Suite s = parse_suite(tf32_suite(R"(["fp32"])", kTf32Row, tf32_case), "t.json", DeviceKind::kCuda);
  const CaseSpec& c = find_case(s, "plain/mlp/tf32/adamw");
  EXPECT_EQ(c.baseline_id, "plain/mlp/fp32/adamw");
  EXPECT_EQ(c.tolerance.loss_rel_units, 5);
  const std::string err = tf32_error(tf32_suite(R"(["fp32"])", "", tf32_case));
  EXPECT_NE(err.find("cases[0].precision: precision 'tf32' has no row"), std::string::npos) << err;
}

TEST(SuiteTf32, Tf32WithAScalerIsRefused) {
  const std::string err = tf32_error(tf32_suite(
      R"(["fp32"])", kTf32Row,
      R"([{"workload": "plain", "model": "mlp", "precision": "tf32", "optimizer": "sgd", "scaler_enabled": true}])"));
  EXPECT_NE(err.find("cases[0].scaler_enabled"), std::string::npos) << err;
  EXPECT_NE(err.find("tf32 with a GradScaler is a configuration mistake"), std::string::npos) << err;
}

TEST(SuiteTf32, TheRowIsOptionalAndValidatedWithoutTf32Cases) {
  EXPECT_NO_THROW(parse_suite(tf32_suite(R"(["fp32", "fp16"])", ""), "t.json", DeviceKind::kCpu));
  EXPECT_NO_THROW(parse_suite(tf32_suite(R"(["fp32", "fp16"])", kTf32Row), "t.json", DeviceKind::kCpu));
  const std::string err = tf32_error(tf32_suite(R"(["fp32"])", R"(, "tf32": {"loss_rel_units": 0})"));
  EXPECT_NE(err.find("tolerances.tf32.loss_rel_units: must be in (0, 1e6]"), std::string::npos) << err;
}

TEST(SuiteTf32, TheCudaSuitesRunTf32AndSmokeDoesNot) {
  for (const char* name : {"conformance", "throughput"}) {
    const Suite s = load_suite(name, DeviceKind::kCuda);
    EXPECT_NO_THROW(find_case(s, "plain/mlp/tf32/adamw")) << name;
    EXPECT_NO_THROW(find_case(s, "clip_norm/transformer/tf32/adamw")) << name;
  }
  const Suite smoke = load_suite("smoke", DeviceKind::kCpu);
  EXPECT_TRUE(std::none_of(smoke.cases.begin(), smoke.cases.end(),
                           [](const CaseSpec& c) { return c.precision.precision() == Precision::kTf32; }));
}

}  // namespace
}  // namespace ampbench
