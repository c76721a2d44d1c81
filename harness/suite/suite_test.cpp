#include "suite/suite.h"

#include <gtest/gtest.h>

#include "suite/suite_test_util.h"

#include <algorithm>
#include <stdexcept>

#include "workloads/workload.h"

namespace ampbench {
namespace {

// A minimal valid suite; tests patch one field at a time.
std::string minimal_suite(const std::string& extra_top = "", const std::string& cases = "") {
  return R"({
    "name": "t",
    "models": {"mlp": {"batch": 8, "in_features": 8, "hidden": 8, "classes": 8}},
    "matrix": {"workloads": ["plain", "clip_norm"], "models": ["mlp"], "precisions": ["fp32", "fp16", "bf16"],
               "optimizers": ["sgd"]},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}})" +
         extra_top + (cases.empty() ? "" : R"(, "cases": )" + cases) + "}";
}

std::string error_of(const std::string& text) { return test::suite_error(text); }

TEST(Suite, ExpandsTheMatrixWithOneBaselinePerWorkload) {
  const Suite s = parse_suite(minimal_suite(), "t.json", DeviceKind::kCpu);
  ASSERT_EQ(s.cases.size(), 6u);
  for (const CaseSpec& c : s.cases) {
    if (c.precision.precision() == Precision::kFp32) {
      EXPECT_TRUE(c.is_baseline()) << c.id;
    } else {
      EXPECT_EQ(c.baseline_id, c.workload->name() + "/mlp/fp32/sgd") << c.id;
    }
  }
  const auto fp16 = std::find_if(s.cases.begin(), s.cases.end(), [](const CaseSpec& c) { return c.id == "plain/mlp/fp16/sgd"; });
  ASSERT_NE(fp16, s.cases.end());
  EXPECT_TRUE(fp16->scaler_enabled);
}

TEST(Suite, BaselinesComeBeforeTheirCases) {
  const Suite s = parse_suite(minimal_suite(), "t.json", DeviceKind::kCpu);
  for (size_t i = 0; i < s.cases.size(); ++i) {
    if (s.cases[i].is_baseline()) continue;
    const auto base = std::find_if(s.cases.begin(), s.cases.begin() + i,
                                   [&](const CaseSpec& c) { return c.id == s.cases[i].baseline_id; });
    EXPECT_NE(base, s.cases.begin() + i) << s.cases[i].id;
  }
}

TEST(Suite, ExplicitCaseWithOverridesGetsItsOwnBaseline) {
  const Suite s = parse_suite(
      minimal_suite("", R"([{"workload": "plain", "model": "mlp", "precision": "fp16", "optimizer": "sgd",
                            "tag": "tiny", "loss_multiplier": 0.001}])"),
      "t.json", DeviceKind::kCpu);
  const auto c = std::find_if(s.cases.begin(), s.cases.end(), [](const CaseSpec& x) { return x.id == "plain/mlp/fp16/sgd@tiny"; });
  ASSERT_NE(c, s.cases.end());
  EXPECT_EQ(c->baseline_id, "plain/mlp/fp32/sgd@tiny");
  EXPECT_DOUBLE_EQ(c->loss_multiplier, 0.001);
}

TEST(Suite, NegativeControlIdNamesTheVariant) {
  const Suite s = parse_suite(
      minimal_suite("", R"([{"workload": "clip_norm", "model": "mlp", "precision": "fp16", "optimizer": "sgd",
                            "variant": "clip_before_unscale", "expect": "fail"}])"),
      "t.json", DeviceKind::kCpu);
  EXPECT_EQ(s.cases.back().id, "clip_norm+clip_before_unscale/mlp/fp16/sgd");
  EXPECT_EQ(s.cases.back().baseline_id, "clip_norm/mlp/fp32/sgd");
  EXPECT_EQ(s.cases.back().expect, Expect::kFail);
  EXPECT_FALSE(s.cases.back().throughput.enabled);
}

TEST(Suite, RejectsUnknownWorkloadNamingTheField) {
  std::string text = minimal_suite();
  text.replace(text.find("\"clip_norm\""), 11, "\"warp\"");
  const std::string err = error_of(text);
  EXPECT_NE(err.find("t.json"), std::string::npos) << err;
  EXPECT_NE(err.find("matrix.workloads[1]"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown workload 'warp'"), std::string::npos) << err;
}

TEST(Suite, RejectsUnsupportedPrecision) {
  std::string text = minimal_suite();
  text.replace(text.find("\"bf16\"]"), 6, "\"fp8\"");
  EXPECT_NE(error_of(text).find("unknown precision 'fp8'"), std::string::npos) << error_of(text);
}

// minimal_suite() with o2 and o3 tolerance rows (and, with `matrix`, in its matrix).
std::string with_o2_o3(std::string text, bool matrix) {
  if (matrix) text.replace(text.find("\"bf16\"]"), 7, "\"bf16\", \"o2\", \"o3\"]");
  text.replace(text.find("\"bf16\": {}}"), 11, "\"bf16\": {}, \"o2\": {}, \"o3\": {}}");
  return text;
}

TEST(Suite, O2TakesAScalerAndO3IsReportedOnlyByDefault) {
  const Suite s = parse_suite(with_o2_o3(minimal_suite(), true), "t.json", DeviceKind::kCpu);
  auto find = [&](const std::string& id) {
    const auto it = std::find_if(s.cases.begin(), s.cases.end(), [&](const CaseSpec& c) { return c.id == id; });
    if (it == s.cases.end()) throw std::runtime_error("no case " + id);
    return *it;
  };
  EXPECT_TRUE(find("plain/mlp/o2/sgd").scaler_enabled);
  EXPECT_EQ(find("plain/mlp/o2/sgd").expect, Expect::kPass);
  EXPECT_FALSE(find("clip_norm/mlp/o3/sgd").scaler_enabled);
  EXPECT_EQ(find("clip_norm/mlp/o3/sgd").expect, Expect::kReport);
  EXPECT_TRUE(find("clip_norm/mlp/o3/sgd").throughput.enabled);  // O3 is the speed-of-light column
  EXPECT_EQ(find("plain/mlp/o2/sgd").baseline_id, "plain/mlp/fp32/sgd");
  // A case may still require O3's verdict.
  const Suite pinned = parse_suite(
      with_o2_o3(minimal_suite("", R"([{"workload": "plain", "model": "mlp", "precision": "o3", "optimizer": "sgd",
                                        "expect": "pass"}])"), false), "t.json", DeviceKind::kCpu);
  EXPECT_EQ(pinned.cases.back().expect, Expect::kPass);
}

TEST(Suite, O2AndO3AreRefusedOnReplicatedWorkloadsAndO3WithAScaler) {
  std::string err = error_of(with_o2_o3(
      minimal_suite("", R"([{"workload": "ddp", "model": "mlp", "precision": "o2", "optimizer": "sgd"}])"), false));
  EXPECT_NE(err.find("cases[0].precision: o2 runs the single-process workloads only; ddp replicates"),
            std::string::npos) << err;
  err = error_of(with_o2_o3(minimal_suite("", R"([{"workload": "plain", "model": "mlp", "precision": "o3",
                                                  "optimizer": "sgd", "scaler_enabled": true}])"), false));
  EXPECT_NE(err.find("o3 with a GradScaler is a configuration mistake"), std::string::npos) << err;
  err = error_of(minimal_suite("", R"([{"workload": "plain", "model": "mlp", "precision": "o2", "optimizer": "sgd"}])"));
  EXPECT_NE(err.find("precision 'o2' has no row in \"tolerances\""), std::string::npos) << err;
  err = error_of(minimal_suite(
      "", R"([{"workload": "plain", "model": "mlp", "precision": "fp16", "optimizer": "sgd", "expect": "maybe"}])"));
  EXPECT_NE(err.find("expected \"pass\", \"fail\" or \"report\", got \"maybe\""), std::string::npos) << err;
}

TEST(Suite, ACudaGraphCaseIsNamedAndRefusedWhereACaptureCannotHoldTheStep) {
  const Suite ok = parse_suite(minimal_suite("", R"([{"workload": "plain", "model": "mlp", "precision": "bf16",
      "optimizer": "adamw", "optimizer_impl": "fused", "cuda_graph": true}])"), "t.json", DeviceKind::kCpu);
  EXPECT_EQ(ok.cases.back().id, "plain/mlp/bf16/adamw+fused+graph");
  EXPECT_TRUE(ok.cases.back().cuda_graph);
  EXPECT_EQ(ok.cases.back().baseline_id, "plain/mlp/fp32/adamw+fused+graph");
  const std::pair<std::string, std::string> refused[] = {
      {R"("workload": "penalty", "optimizer_impl": "fused")", "the penalty workload cannot be captured"},
      {R"("workload": "plain")", "needs \"optimizer_impl\": \"fused\""},
      {R"("workload": "plain", "optimizer_impl": "fused", "input": "host", "tag": "h")", "needs the cached input"},
      {R"("workload": "plain", "optimizer_impl": "fused", "cosine_schedule": true, "tag": "c")", "a capture fixes the learning rate"},
  };
  for (const auto& [fields, why] : refused) {
    const std::string err = error_of(minimal_suite(
        "", R"([{"model": "mlp", "precision": "fp16", "optimizer": "adamw", "cuda_graph": true, )" + fields + "}]"));
    EXPECT_NE(err.find("cases[0].cuda_graph: " + why), std::string::npos) << err;
  }
  const std::string err = error_of(minimal_suite(R"(, "throughput": {"warmup_steps": 0})",
      R"([{"workload": "plain", "model": "mlp", "precision": "fp16", "optimizer": "adamw", "optimizer_impl": "fused",
           "cuda_graph": true}])"));
  EXPECT_NE(err.find("cases[0].cuda_graph: needs throughput.warmup_steps >= 1"), std::string::npos) << err;
}

TEST(Suite, RefusesBf16WithAScaler) {
  const std::string err = error_of(minimal_suite(
      "", R"([{"workload": "plain", "model": "mlp", "precision": "bf16", "optimizer": "sgd", "scaler_enabled": true}])"));
  EXPECT_NE(err.find("cases[0].scaler_enabled"), std::string::npos) << err;
  EXPECT_NE(err.find("bf16 with a GradScaler is a configuration mistake"), std::string::npos) << err;
}

TEST(Suite, RejectsUnknownKeysSoTyposAreNotIgnored) {
  const std::string err = error_of(minimal_suite(R"(, "throughput": {"repetitons": 3})"));
  EXPECT_NE(err.find("throughput.repetitons: unknown field"), std::string::npos) << err;
}

TEST(Suite, RejectsMalformedJson) {
  EXPECT_NE(error_of("{\"name\": ").find("t.json: not valid JSON"), std::string::npos);
}

TEST(Suite, RejectsWrongTypes) {
  const std::string err = error_of(minimal_suite(R"(, "defaults": {"steps": "ten"})"));
  EXPECT_NE(err.find("defaults.steps: expected an integer"), std::string::npos) << err;
}

TEST(Suite, NegativeControlMustExpectFailure) {
  const std::string err = error_of(minimal_suite(
      "", R"([{"workload": "clip_norm", "model": "mlp", "precision": "fp16", "optimizer": "sgd",
              "variant": "clip_before_unscale"}])"));
  EXPECT_NE(err.find("must declare \"expect\": \"fail\""), std::string::npos) << err;
}

TEST(Suite, UnknownVariantListsTheKnownOnes) {
  const std::string err = error_of(minimal_suite(
      "", R"([{"workload": "plain", "model": "mlp", "precision": "fp16", "optimizer": "sgd", "variant": "oops",
              "expect": "fail"}])"));
  EXPECT_NE(err.find("unknown variant of plain 'oops'"), std::string::npos) << err;
}

TEST(Suite, OverridesNeedATag) {
  const std::string err = error_of(minimal_suite(
      "", R"([{"workload": "plain", "model": "mlp", "precision": "fp16", "optimizer": "sgd", "steps": 3}])"));
  EXPECT_NE(err.find("needs a \"tag\""), std::string::npos) << err;
}

TEST(Suite, ModelWithoutSizesIsRejected) {
  std::string text = minimal_suite();
  text.replace(text.find("\"models\": [\"mlp\"]"), 17, "\"models\": [\"cnn\"]");
  EXPECT_NE(error_of(text).find("model 'cnn' has no sizes"), std::string::npos) << error_of(text);
}

using test::find_case;

TEST(Suite, HostInputIsACaseOverrideAndItsBaselineReadsTheSameWay) {
  const Suite s = parse_suite(
      minimal_suite("", R"([{"workload": "plain", "model": "mlp", "precision": "bf16", "optimizer": "sgd",
                            "input": "host", "tag": "host"}])"),
      "t.json", DeviceKind::kCpu);
  EXPECT_EQ(find_case(s, "plain/mlp/bf16/sgd@host").throughput.input, InputMode::kHost);
  EXPECT_EQ(find_case(s, "plain/mlp/fp32/sgd@host").throughput.input, InputMode::kHost);
  EXPECT_EQ(find_case(s, "plain/mlp/bf16/sgd").throughput.input, InputMode::kCached);
  const std::string err = error_of(minimal_suite(
      "", R"([{"workload": "plain", "model": "mlp", "precision": "bf16", "optimizer": "sgd", "input": "disk",
              "tag": "x"}])"));
  EXPECT_NE(err.find("cases[0].input: expected \"cached\" or \"host\""), std::string::npos) << err;
  EXPECT_NE(error_of(minimal_suite(
                "", R"([{"workload": "plain", "model": "mlp", "precision": "bf16", "optimizer": "sgd",
                        "input": "host"}])"))
                .find("needs a \"tag\""),
            std::string::npos);
}

TEST(Suite, GateThresholdsAreReadAndValidated) {
  const Suite s = parse_suite(
      minimal_suite(R"(, "gate": {"min_effect": 0.07})",
                    R"([{"workload": "plain", "model": "mlp", "precision": "bf16", "optimizer": "sgd",
                         "tag": "noisy", "gate": {"min_effect": 0.2}}])"),
      "t.json", DeviceKind::kCpu);
  ASSERT_TRUE(s.gate.min_effect.has_value());
  EXPECT_DOUBLE_EQ(*s.gate.min_effect, 0.07);
  EXPECT_DOUBLE_EQ(find_case(s, "plain/mlp/bf16/sgd@noisy").gate_min_effect.value_or(0), 0.2);
  EXPECT_FALSE(find_case(s, "plain/mlp/bf16/sgd").gate_min_effect.has_value());
  const std::string err = error_of(minimal_suite(R"(, "gate": {"min_effect": 5})"));
  EXPECT_NE(err.find("gate.min_effect: must be in (0, 1)"), std::string::npos) << err;
  EXPECT_NE(error_of(minimal_suite(R"(, "gate": {"alpha": 0.01})")).find("gate.alpha: unknown field"),
            std::string::npos);
}

TEST(Suite, DdpRanksComeFromTheSuite) {
  const Suite s = parse_suite(
      minimal_suite("", R"([{"workload": "ddp", "model": "mlp", "precision": "fp16", "optimizer": "sgd",
                            "world_size": 2, "tag": "2ranks"}])"),
      "t.json", DeviceKind::kCpu);
  EXPECT_EQ(find_case(s, "ddp/mlp/fp16/sgd@2ranks").world_size, 2);
  EXPECT_EQ(find_case(s, "ddp/mlp/fp32/sgd@2ranks").world_size, 2);
  const CaseSpec& ddp = find_case(s, "ddp/mlp/fp16/sgd@2ranks");
  EXPECT_EQ(find_workload(ddp.workload->name()).effective_batch(ddp), 16);
}

TEST(Suite, ShippedSuitesLoad) {
  for (const char* name : {"smoke", "conformance", "throughput", "distributed", "calibration"}) {
    EXPECT_NO_THROW(load_suite(name, DeviceKind::kCpu)) << name;
  }
  EXPECT_THROW(load_suite("no-such-suite", DeviceKind::kCpu), SuiteError);
}

}  // namespace
}  // namespace ampbench

namespace ampbench {
namespace {

std::string with_envelope(const std::string& envelope) {
  return R"({
    "name": "t",
    "models": {"mlp": {"batch": 8, "in_features": 8, "hidden": 8, "classes": 8}},
    "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": ["fp32", "fp16", "bf16"],
               "optimizers": ["sgd"]},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}, "envelope": )" +
         envelope + "}}";
}

TEST(SuiteEnvelope, BaselinesMeasureAnEnvelopeForEveryPrecisionComparedWithThem) {
  const Suite s = parse_suite(with_envelope(R"({"replicas": 2, "c": 3, "noise": "grad+init"})"), "t.json", DeviceKind::kCpu);
  const CaseSpec& base = s.cases.front();
  ASSERT_TRUE(base.is_baseline());
  EXPECT_EQ(base.envelope_precisions, (std::vector<Precision>{Precision::kFp16, Precision::kBf16}));
  for (const CaseSpec& c : s.cases) {
    EXPECT_EQ(c.envelope.replicas, 2);
    EXPECT_EQ(c.envelope.c, 3);
    EXPECT_EQ(c.envelope.noise, NoiseModel::kGradInit);
    EXPECT_FALSE(c.perturbation);
  }
}

TEST(SuiteEnvelope, NoReplicasMeansNoEnvelope) {
  const Suite s = parse_suite(with_envelope(R"({"replicas": 0})"), "t.json", DeviceKind::kCpu);
  EXPECT_TRUE(s.cases.front().envelope_precisions.empty());
}

TEST(SuiteEnvelope, BadSettingsNameTheField) {
  EXPECT_NE(error_of(with_envelope(R"({"replicas": -1})")).find("replicas"), std::string::npos);
  EXPECT_NE(error_of(with_envelope(R"({"replicas": 100})")).find("replicas"), std::string::npos);
  EXPECT_NE(error_of(with_envelope(R"({"c": 0.5})")).find("envelope.c:"), std::string::npos);
  EXPECT_NE(error_of(with_envelope(R"({"noise": "gauss"})")).find("gauss"), std::string::npos);
  EXPECT_NE(error_of(with_envelope(R"({"colour": 1})")).find("colour"), std::string::npos);
}

TEST(Suite, ACaseOverridingOneScalerFieldKeepsTheSuitesOtherScalerDefaults) {
  const Suite s = parse_suite(
      minimal_suite(R"(, "defaults": {"scaler": {"init_scale": 1024, "growth_interval": 3}})",
                    R"([{"workload": "plain", "model": "mlp", "precision": "fp16", "optimizer": "sgd",
                         "tag": "backoff", "scaler": {"backoff_factor": 0.25}}])"),
      "t.json", DeviceKind::kCpu);
  const auto c = std::find_if(s.cases.begin(), s.cases.end(), [](const CaseSpec& x) { return x.tag == "backoff"; });
  ASSERT_NE(c, s.cases.end());
  EXPECT_EQ(c->scaler.backoff_factor, 0.25);
  EXPECT_EQ(c->scaler.init_scale, 1024);
  EXPECT_EQ(c->scaler.growth_interval, 3);
}

std::string tag_error(const std::string& tag_json) {
  return error_of(minimal_suite("", R"([{"workload": "plain", "model": "mlp", "precision": "fp16",
                                         "optimizer": "sgd", "tag": )" + tag_json + "}]"));
}

TEST(Suite, ATagIsPrintableWithoutSeparatorsAndShortEnoughForAFileName) {
  EXPECT_EQ(tag_error(R"("inf@8-second-optimizer")"), "");
  EXPECT_EQ(tag_error(R"("exact-2^100")"), "");
  const std::string nul = tag_error(R"("a\u0000b")");
  EXPECT_NE(nul.find("cases[0].tag: character 1 (0x00) is not allowed"), std::string::npos) << nul;
  EXPECT_NE(tag_error(R"("a/b")").find("character 1 (0x2f)"), std::string::npos);
  EXPECT_NE(tag_error(R"("a b")").find("character 1 (0x20)"), std::string::npos);
  EXPECT_NE(tag_error(R"("caf\u00e9")").find("character 3 (0xc3)"), std::string::npos);
  const std::string longer = tag_error("\"" + std::string(65, 'x') + "\"");
  EXPECT_NE(longer.find("is 65 characters long (at most 64)"), std::string::npos) << longer;
  EXPECT_EQ(tag_error("\"" + std::string(64, 'x') + "\""), "");
}

}  // namespace
}  // namespace ampbench

namespace ampbench {
namespace {

// What a real architecture's layers cannot do is refused when the suite is
// read, naming the case's field and the reason, in an explicit case and in a
// matrix alike; a next-token model takes no "classes".
TEST(Suite, RealArchitecturesRefuseWhatTheirLayersCannotRun) {
  const std::string models = R"("models": {
    "vit": {"batch": 2, "image": 8, "patch": 4, "d_model": 8, "heads": 2, "ffn": 16, "layers": 1, "classes": 3},
    "gpt2": {"batch": 2, "seq": 4, "d_model": 8, "heads": 2, "ffn": 16, "layers": 1, "vocab": 16}},
    "tolerances": {"fp32": {}, "fp16": {}, "o2": {}, "bf16": {}})";
  auto suite = [&](const std::string& body) { return R"({"name": "t", )" + models + ", " + body + "}"; };
  const std::string vit = error_of(suite(
      R"("cases": [{"workload": "penalty", "model": "vit", "precision": "fp16", "optimizer": "sgd"}])"));
  EXPECT_NE(vit.find("cases[0].precision"), std::string::npos) << vit;
  EXPECT_NE(vit.find("no double backward"), std::string::npos) << vit;
  const std::string gpt2 = error_of(suite(
      R"("matrix": {"workloads": ["plain", "penalty"], "models": ["gpt2"], "precisions": ["fp32", "o2"], "optimizers": ["sgd"]})"));
  EXPECT_NE(gpt2.find("matrix.models"), std::string::npos) << gpt2;
  EXPECT_NE(gpt2.find("LayerNorms to float16"), std::string::npos) << gpt2;
  EXPECT_EQ(error_of(suite(
                R"("matrix": {"workloads": ["plain", "penalty"], "models": ["gpt2"], "precisions": ["fp32", "fp16"], "optimizers": ["sgd"]})")),
            "");
  std::string with_classes = suite(R"("cases": [{"workload": "plain", "model": "gpt2", "precision": "fp32", "optimizer": "sgd"}])");
  with_classes.replace(with_classes.find(R"("vocab": 16)"), 11, R"("vocab": 16, "classes": 4)");
  EXPECT_NE(error_of(with_classes).find("classes"), std::string::npos) << error_of(with_classes);
}

}  // namespace
}  // namespace ampbench
