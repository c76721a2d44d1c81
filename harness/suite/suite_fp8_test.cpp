// The FP8 precisions in suite files: the recipe each resolves to, the "fp8"
// object, the FP8 controls and every refusal known at load (a model with no
// Linear its recipe converts, torch's own Linear, a workload, a scaler, a
// fault the recipe cannot make), each naming the case's field and reason.
#include "suite/suite.h"

#include <gtest/gtest.h>

#include "suite/suite_test_util.h"

namespace ampbench {
namespace {

const char* kRow = R"({"loss_rel_units": 2, "param_rel_units": 8})";

// An mlp whose middle Linear (32 x 32) converts, and the given cases.
std::string suite_with(const std::string& cases, const std::string& matrix = "") {
  return std::string(R"({
    "name": "t",
    "models": {"mlp": {"batch": 8, "in_features": 16, "hidden": 32, "classes": 8},
               "cnn": {"batch": 4, "channels": 4, "image": 8, "classes": 8},
               "transformer": {"batch": 4, "seq": 8, "d_model": 32, "heads": 4, "ffn": 64, "classes": 8}},)") +
         (matrix.empty() ? "" : R"("matrix": )" + matrix + ",") + R"(
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}, "fp8_tensorwise": )" + kRow + R"(, "fp8_rowwise": )" + kRow +
         R"(, "fp8_delayed": )" + kRow + R"(, "mxfp8": )" + kRow + R"(, "nvfp4": )" + kRow + R"(},
    "cases": )" + cases + "}";
}

std::string one_case(const std::string& fields) {
  return R"([{"workload": "plain", "model": "mlp", "optimizer": "sgd", )" + fields + "}]";
}

std::string error_of(const std::string& text) { return test::suite_error(text); }

using test::find_case;

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST(SuiteFp8, EachPrecisionResolvesToItsRecipeWithoutFaultsOrScaler) {
  const Suite s = parse_suite(
      suite_with(R"([])", R"({"workloads": ["plain"], "models": ["mlp"], "precisions": ["fp32", "fp8_tensorwise",
                 "fp8_rowwise", "fp8_delayed"], "optimizers": ["sgd"]})"),
      "t.json", DeviceKind::kCpu);
  const std::pair<const char*, fp8::Scaling> expected[] = {{"plain/mlp/fp8_tensorwise/sgd", fp8::Scaling::kTensorwise},
                                                           {"plain/mlp/fp8_rowwise/sgd", fp8::Scaling::kRowwise},
                                                           {"plain/mlp/fp8_delayed/sgd", fp8::Scaling::kDelayed}};
  for (const auto& [id, scaling] : expected) {
    const CaseSpec& c = find_case(s, id);
    ASSERT_TRUE(c.fp8.has_value()) << id;
    EXPECT_EQ(c.fp8->recipe.scaling(), scaling) << id;
    EXPECT_FALSE(c.fp8->recipe.faulted()) << id;
    EXPECT_FALSE(c.fp8->conversion.convert_first());
    EXPECT_FALSE(c.scaler_enabled);
    EXPECT_EQ(c.baseline_id, "plain/mlp/fp32/sgd");
    EXPECT_EQ(c.tolerance.param_rel_units, 8);
  }
  EXPECT_FALSE(find_case(s, "plain/mlp/fp32/sgd").fp8.has_value());
}

TEST(SuiteFp8, TheFp8ObjectSetsDelayedScalingAndTheLayerChoice) {
  const Suite s = parse_suite(suite_with(one_case(R"("precision": "fp8_delayed", "tag": "h4",
      "fp8": {"history_len": 4, "margin": 1, "amax_compute": "most_recent", "convert_first": true})")),
                              "t.json", DeviceKind::kCpu);
  const CaseSpec& c = find_case(s, "plain/mlp/fp8_delayed/sgd@h4");
  EXPECT_EQ(c.fp8->recipe.history_len(), 4);
  EXPECT_EQ(c.fp8->recipe.margin(), 1);
  EXPECT_EQ(c.fp8->recipe.amax_compute(), fp8::AmaxCompute::kMostRecent);
  EXPECT_TRUE(c.fp8->conversion.convert_first());
  EXPECT_FALSE(c.fp8->conversion.convert_last());
}

TEST(SuiteFp8, BadFp8SettingsAreRefusedNamingTheField) {
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "fp8_delayed", "tag": "x", "fp8": {"history_len": 0})"))),
             "history_len must be in [1, 4096] (got 0)");
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "fp8_delayed", "tag": "x", "fp8": {"history_len": 1099511627776})"))),
             "history_len must be in [1, 4096] (got 1099511627776)");
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "fp8_delayed", "tag": "x", "fp8": {"amax_compute": "avg"})"))),
             "cases[0].fp8.amax_compute: expected \"max\" or \"most_recent\", got \"avg\"");
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "fp8_tensorwise", "tag": "x", "fp8": {"margin": 1})"))),
             "delayed scaling's (fp8_delayed), not fp8_tensorwise's");
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "fp16", "tag": "x", "fp8": {"margin": 1})"))),
             "cases[0].fp8: FP8 settings need an fp8_* precision, not fp16");
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "fp8_delayed", "fp8": {"margin": 1})"))),
             "needs a \"tag\"");
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "fp8_delayed", "tag": "x", "fp8": {"histroy_len": 2})"))),
             "histroy_len");
  // Resumable: the checkpoint holds the scaling state (runner/checkpoint.h).
  const Suite resumed = parse_suite(suite_with(one_case(R"("precision": "fp8_delayed", "tag": "x", "resume_at": 3)")),
                                    "t.json", DeviceKind::kCpu);
  EXPECT_EQ(find_case(resumed, "plain/mlp/fp8_delayed/sgd@x").resume_at, 3);
}

TEST(SuiteFp8, EachControlSetsItsOneFaultOnARecipeThatCanMakeIt) {
  const Suite s = parse_suite(suite_with(R"([
      {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "fp8_tensorwise", "variant": "fp8_frozen_scales", "expect": "fail"},
      {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "fp8_delayed", "variant": "fp8_input_amax_from_weight", "expect": "fail"},
      {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "fp8_delayed", "variant": "fp8_e4m3_gradients", "expect": "fail"},
      {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "fp8_delayed", "variant": "fp8_history_not_rolled", "expect": "fail"},
      {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "fp8_delayed", "variant": "fp8_no_saturation", "expect": "fail"},
      {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "fp8_rowwise", "variant": "fp8_rowwise_unrounded_scales", "expect": "fail"}])"),
                              "t.json", DeviceKind::kCpu);
  EXPECT_TRUE(find_case(s, "plain+fp8_frozen_scales/mlp/fp8_tensorwise/sgd").fp8->recipe.freeze_scales());
  EXPECT_TRUE(find_case(s, "plain+fp8_input_amax_from_weight/mlp/fp8_delayed/sgd").fp8->recipe.input_amax_from_weight());
  EXPECT_TRUE(find_case(s, "plain+fp8_e4m3_gradients/mlp/fp8_delayed/sgd").fp8->recipe.e4m3_gradients());
  EXPECT_FALSE(find_case(s, "plain+fp8_history_not_rolled/mlp/fp8_delayed/sgd").fp8->recipe.roll_history());
  const CaseSpec& unsaturated = find_case(s, "plain+fp8_no_saturation/mlp/fp8_delayed/sgd");
  EXPECT_FALSE(unsaturated.fp8->recipe.saturate());
  EXPECT_FALSE(unsaturated.fp8->recipe.freeze_scales());  // one fault each
  EXPECT_EQ(unsaturated.baseline_id, "plain/mlp/fp32/sgd");
  const CaseSpec& unrounded = find_case(s, "plain+fp8_rowwise_unrounded_scales/mlp/fp8_rowwise/sgd");
  EXPECT_FALSE(unrounded.fp8->recipe.pow2_scales());
  EXPECT_TRUE(unrounded.fp8->recipe.faulted());
}

TEST(SuiteFp8, AControlTheRecipeCannotMakeIsRefusedWithTheReason) {
  EXPECT_HAS(error_of(suite_with(one_case(
                 R"("precision": "fp16", "variant": "fp8_frozen_scales", "expect": "fail")"))),
             "cases[0].variant: negative control 'fp8_frozen_scales' is an FP8 mistake: it needs an fp8_* precision, not fp16");
  EXPECT_HAS(error_of(suite_with(one_case(
                 R"("precision": "fp8_tensorwise", "variant": "fp8_no_saturation", "expect": "fail")"))),
             "no value reaches the clamp");
  EXPECT_HAS(error_of(suite_with(one_case(
                 R"("precision": "fp8_rowwise", "variant": "fp8_frozen_scales", "expect": "fail")"))),
             "is not a mistake the rowwise recipe can make");
  EXPECT_HAS(error_of(suite_with(one_case(
                 R"("precision": "fp8_tensorwise", "variant": "fp8_history_not_rolled", "expect": "fail")"))),
             "is not a mistake the tensorwise recipe can make");
  EXPECT_HAS(error_of(suite_with(one_case(
                 R"("precision": "fp8_delayed", "variant": "fp8_rowwise_unrounded_scales", "expect": "fail")"))),
             "is not a mistake the delayed recipe can make");
}

TEST(SuiteFp8, ModelsWorkloadsAndScalersFp8CannotRunAreRefusedAtLoad) {
  // cnn: its one Linear (8 x 8) is misaligned, and the first and the last.
  EXPECT_HAS(error_of(suite_with(R"([{"workload": "plain", "model": "cnn", "optimizer": "sgd", "precision": "fp8_tensorwise"}])")),
             "case plain/cnn/fp8_tensorwise/sgd: fp8_tensorwise: no Linear layer of the model can run in FP8 (head: "
             "in_features 8 and out_features 8 not divisible by 16)");
  // transformer: torch's TransformerEncoderLayer holds torch::nn::Linear.
  EXPECT_HAS(error_of(suite_with(R"([{"workload": "plain", "model": "transformer", "optimizer": "sgd", "precision": "fp8_delayed"}])")),
             "is a torch::nn::Linear, not the model families' Linear: it cannot run in FP8");
  EXPECT_HAS(error_of(suite_with(R"([{"workload": "penalty", "model": "mlp", "optimizer": "sgd", "precision": "fp8_rowwise"}])")),
             "penalty differentiates the backward pass, which the FP8 Linear's GEMMs cannot");
  EXPECT_HAS(error_of(suite_with(R"([{"workload": "dataparallel", "model": "mlp", "optimizer": "sgd", "precision": "fp8_delayed", "world_size": 2, "tag": "2"}])")),
             "fp8_delayed runs the single-process workloads only; dataparallel replicates the model, and delayed "
             "scaling's amax history would need to be shared");
  EXPECT_HAS(error_of(suite_with(R"([{"workload": "ddp", "model": "mlp", "optimizer": "sgd", "precision": "fp8_delayed", "world_size": 2, "tag": "2"}])")),
             "fp8_delayed runs the single-process workloads only; ddp replicates the model");
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "fp8_tensorwise", "scaler_enabled": true, "tag": "s")"))),
             "fp8_tensorwise with a GradScaler is a configuration mistake");
}

TEST(SuiteFp8, Mxfp8ResolvesItsRuleAndItsThreeMistakes) {
  const Suite s = parse_suite(
      suite_with(one_case(R"("precision": "mxfp8", "tag": "r", "fp8": {"mx_scale_mode": "rceil"}},
        {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "mxfp8"},
        {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "mxfp8", "variant": "mxfp8_ceil_scales", "expect": "fail"},
        {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "mxfp8", "variant": "mxfp8_block_16", "expect": "fail"},
        {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "mxfp8", "variant": "mxfp8_e8m0_wrap", "expect": "fail")")),
      "t.json", DeviceKind::kCpu);
  const CaseSpec& plain = find_case(s, "plain/mlp/mxfp8/sgd");
  EXPECT_EQ(plain.fp8->recipe.scaling(), fp8::Scaling::kMxfp8);
  EXPECT_EQ(plain.fp8->recipe.mx_scale_mode(), fp8::MxScaleMode::kFloor);
  EXPECT_FALSE(plain.fp8->recipe.faulted());
  EXPECT_FALSE(plain.precision.autocast_dtype().has_value());  // float32 around the MX GEMMs
  EXPECT_EQ(find_case(s, "plain/mlp/mxfp8/sgd@r").fp8->recipe.mx_scale_mode(), fp8::MxScaleMode::kRceil);
  EXPECT_EQ(find_case(s, "plain+mxfp8_ceil_scales/mlp/mxfp8/sgd").fp8->recipe.mx_scale_mode(), fp8::MxScaleMode::kCeil);
  EXPECT_EQ(find_case(s, "plain+mxfp8_block_16/mlp/mxfp8/sgd").fp8->recipe.mx_block(), 16);
  EXPECT_FALSE(find_case(s, "plain+mxfp8_e8m0_wrap/mlp/mxfp8/sgd").fp8->recipe.mx_clamp_exponent());
}

TEST(SuiteFp8, MxSettingsAndMistakesElsewhereAreRefused) {
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "mxfp8", "tag": "c", "fp8": {"mx_scale_mode": "ceil"})"))),
             "expected \"floor\" or \"rceil\", got \"ceil\"");
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "fp8_tensorwise", "tag": "c", "fp8": {"mx_scale_mode": "floor"})"))),
             "an MXFP8 setting (mxfp8), not one of fp8_tensorwise");
  EXPECT_HAS(error_of(suite_with(one_case(
                 R"("precision": "fp8_delayed", "variant": "mxfp8_block_16", "expect": "fail")"))),
             "is not a mistake the delayed recipe can make");
  EXPECT_HAS(error_of(suite_with(one_case(
                 R"("precision": "mxfp8", "variant": "fp8_frozen_scales", "expect": "fail")"))),
             "is not a mistake the mxfp8 recipe can make");
}

}  // namespace
TEST(SuiteFp8, Nvfp4CasesTakeTheirMistakesAndTheCaseSeed) {
  const Suite s = parse_suite(
      suite_with(R"([
        {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "nvfp4"},
        {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "nvfp4", "variant": "nvfp4_same_stream", "expect": "fail"},
        {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "nvfp4", "variant": "nvfp4_no_hadamard", "expect": "fail"},
        {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "nvfp4", "variant": "nvfp4_block_32", "expect": "fail"},
        {"workload": "plain", "model": "mlp", "optimizer": "sgd", "precision": "nvfp4", "variant": "nvfp4_no_tensor_scale", "expect": "fail"}])"),
      "t.json", DeviceKind::kCpu);
  const CaseSpec& plain = find_case(s, "plain/mlp/nvfp4/sgd");
  EXPECT_EQ(plain.fp8->recipe.scaling(), fp8::Scaling::kNvfp4);
  EXPECT_FALSE(plain.fp8->recipe.faulted());
  EXPECT_EQ(plain.fp8->recipe.nvfp4_seed(), static_cast<int64_t>(plain.seed));
  EXPECT_FALSE(find_case(s, "plain+nvfp4_same_stream/mlp/nvfp4/sgd").fp8->recipe.nvfp4_fresh_stream());
  EXPECT_FALSE(find_case(s, "plain+nvfp4_no_hadamard/mlp/nvfp4/sgd").fp8->recipe.nvfp4_hadamard());
  EXPECT_EQ(find_case(s, "plain+nvfp4_block_32/mlp/nvfp4/sgd").fp8->recipe.nvfp4_block(), 32);
  EXPECT_FALSE(find_case(s, "plain+nvfp4_no_tensor_scale/mlp/nvfp4/sgd").fp8->recipe.nvfp4_tensor_scale());
  EXPECT_HAS(error_of(suite_with(one_case(R"("precision": "mxfp8", "variant": "nvfp4_block_32", "expect": "fail")"))),
             "is not a mistake the mxfp8 recipe can make");
}

}  // namespace ampbench
