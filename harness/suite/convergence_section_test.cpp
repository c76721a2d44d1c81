// The converge cases against their data (check_convergence_data): which
// models take the digits, and what a refusal tells the suite's author.
#include "suite/convergence_section.h"

#include <ATen/ops/zeros.h>
#include <gtest/gtest.h>

#include "suite/suite.h"
#include "suite/suite_test_util.h"

namespace ampbench {
namespace {

// The digits' shapes, without reading the file: 64 features that are an 8x8
// grey image, 10 classes, the real split's sizes.
Dataset digits_shaped() {
  Dataset d;
  d.name = "digits";
  d.features = 64;
  d.classes = 10;
  d.image = {8, 8};
  d.train = {at::zeros({1437, 64}), at::zeros({1437}, at::kLong)};
  d.validation = {at::zeros({360, 64}), at::zeros({360}, at::kLong)};
  return d;
}

// A converge suite of one model, given by its "models" entry.
std::string converge_suite(const std::string& model, const std::string& sizes) {
  return R"({"name": "t", "defaults": {"steps": 3000, "lr": {"sgd": 0.005}},
    "models": {")" + model + R"(": )" + sizes + R"(},
    "convergence": {"dataset": "digits", "seeds": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]},
    "matrix": {"workloads": ["converge"], "models": [")" + model + R"("], "precisions": ["fp32", "fp16"],
               "optimizers": ["sgd"]},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}, "o2": {}}})";
}

// The refusal of the suite's cases against the digits ("" when accepted).
std::string data_refusal(const std::string& model, const std::string& sizes) {
  const Suite s = parse_suite(converge_suite(model, sizes), "t.json", DeviceKind::kCpu);
  try {
    check_convergence_data(s.cases, digits_shaped(), "t.json");
  } catch (const SuiteError& e) {
    return e.what();
  }
  return "";
}

// The cases of a converge suite of the mlp (fp32 and fp16 from the matrix)
// with `cases` added.
Suite mlp_suite_with(const std::string& cases) {
  std::string text = converge_suite("mlp", R"({"batch": 32, "in_features": 64, "hidden": 64, "classes": 10})");
  text.insert(text.rfind('}'), R"(, "cases": )" + cases);
  return parse_suite(text, "t.json", DeviceKind::kCpu);
}

TEST(ConvergenceReference, AControlSharesTheSuitesReferenceWhateverItsTag) {
  const Suite s = mlp_suite_with(R"([{"workload": "converge", "model": "mlp", "precision": "fp16", "optimizer": "sgd",
      "variant": "scaler_growth_off", "expect": "fail", "tag": "scale1e-6", "scaler": {"init_scale": 1e-6}}])");
  const CaseSpec& c = test::find_case(s, "converge+scaler_growth_off/mlp/fp16/sgd@scale1e-6");
  EXPECT_EQ(c.baseline_id, "converge/mlp/fp32/sgd");
}

// The stall control trains pure float16 weights with no scaler: its record
// must not say scaler_enabled (the report would draw a scale it never had).
TEST(ConvergenceReference, TheFloat16StallControlHasNoScaler) {
  const Suite s = mlp_suite_with(R"([{"workload": "converge", "model": "mlp", "precision": "o2", "optimizer": "sgd",
      "variant": "fp16_weights_no_master", "expect": "fail", "lr": 0.001, "tag": "lr0.001"}])");
  EXPECT_FALSE(test::find_case(s, "converge+fp16_weights_no_master/mlp/o2/sgd@lr0.001").scaler_enabled);
}

TEST(ConvergenceReference, ACaseAtAnotherLrOrLengthHasAReferenceOfItsOwn) {
  const Suite s = mlp_suite_with(R"([
      {"workload": "converge", "model": "mlp", "precision": "fp16", "optimizer": "sgd", "lr": 0.001, "tag": "lr0.001"},
      {"workload": "converge", "model": "mlp", "precision": "fp16", "optimizer": "sgd", "steps": 4000, "tag": "long"}])");
  const CaseSpec& slow = test::find_case(s, "converge/mlp/fp16/sgd@lr0.001");
  EXPECT_EQ(slow.baseline_id, "converge/mlp/fp32/sgd@lr0.001");
  EXPECT_EQ(test::find_case(s, slow.baseline_id).lr, 0.001);
  EXPECT_EQ(test::find_case(s, "converge/mlp/fp16/sgd@long").baseline_id, "converge/mlp/fp32/sgd@long");
  EXPECT_EQ(test::find_case(s, "converge/mlp/fp32/sgd").lr, 0.005) << "the matrix's reference keeps the suite's lr";
}

// Off unless the suite asks: every control then runs every seed.
TEST(ConvergenceSettingsRead, StopCaughtControlsIsABooleanAndOffByDefault) {
  const std::string mlp = R"({"batch": 32, "in_features": 64, "hidden": 64, "classes": 10})";
  const Suite plain = parse_suite(converge_suite("mlp", mlp), "t.json", DeviceKind::kCpu);
  EXPECT_FALSE(plain.cases.at(0).convergence->stop_caught_controls);
  auto with = [&](const std::string& value) {
    std::string text = converge_suite("mlp", mlp);
    text.insert(text.find(R"("seeds")"), R"("stop_caught_controls": )" + value + ", ");
    return text;
  };
  const Suite on = parse_suite(with("true"), "t.json", DeviceKind::kCpu);
  EXPECT_TRUE(on.cases.at(0).convergence->stop_caught_controls);
  try {
    parse_suite(with(R"("yes")"), "t.json", DeviceKind::kCpu);
    FAIL() << "a string was read as a boolean";
  } catch (const SuiteError& e) {
    EXPECT_NE(std::string(e.what()).find("stop_caught_controls"), std::string::npos) << e.what();
  }
}

TEST(ConvergenceData, TheMlpTakesTheFeatures) {
  EXPECT_EQ(data_refusal("mlp", R"({"batch": 32, "in_features": 64, "hidden": 64, "classes": 10})"), "");
}

TEST(ConvergenceData, ACnnWithOneInputChannelTakesTheImage) {
  const std::string sizes = R"({"batch": 32, "channels": 16, "image": 8, "in_channels": 1, "classes": 10})";
  EXPECT_EQ(data_refusal("cnn", sizes), "");
  const Suite s = parse_suite(converge_suite("cnn", sizes), "t.json", DeviceKind::kCpu);
  const CaseSpec& c = test::find_case(s, "converge/cnn/fp16/sgd");
  EXPECT_EQ(c.model->sample_shape(c.sizes), (std::vector<int64_t>{1, 8, 8}));
}

// torchvision's ViT takes RGB: the grey digit as three equal channels.
TEST(ConvergenceData, AVitTakesTheImageAsThreeChannels) {
  const std::string sizes =
      R"({"batch": 32, "image": 8, "patch": 2, "d_model": 32, "heads": 2, "ffn": 64, "layers": 2, "classes": 10})";
  EXPECT_EQ(data_refusal("vit", sizes), "");
  const std::string why = data_refusal(
      "vit", R"({"batch": 32, "image": 16, "patch": 2, "d_model": 32, "heads": 2, "ffn": 64, "layers": 2, "classes": 10})");
  EXPECT_NE(why.find("takes samples of shape [3, 16, 16]"), std::string::npos) << why;
  EXPECT_NE(why.find("or as three equal channels, [3, 8, 8] (a vit with image 8)"), std::string::npos) << why;
}

TEST(ConvergenceData, ACnnOfEightInputChannelsIsRefusedNamingItsShapeAndTheAcceptedOnes) {
  // in_channels left out: the default 8, which no digit fills.
  const std::string why = data_refusal("cnn", R"({"batch": 32, "channels": 16, "image": 8, "classes": 10})");
  EXPECT_NE(why.find("case converge/cnn/fp32/sgd: model cnn takes samples of shape [8, 8, 8], not dataset digits's"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("[64] (an mlp with in_features 64) or its image as one channel, [1, 8, 8] (a cnn with "
                     "in_channels 1 and image 8)"),
            std::string::npos)
      << why;
}

TEST(ConvergenceData, TheSamePixelsInAnotherLayoutAreRefused) {
  // 4 x 4 x 4 = 64 values, but not the digit's rows and columns.
  const std::string why =
      data_refusal("cnn", R"({"batch": 32, "channels": 16, "image": 4, "in_channels": 4, "classes": 10})");
  EXPECT_NE(why.find("takes samples of shape [4, 4, 4]"), std::string::npos) << why;
  EXPECT_NE(data_refusal("mlp", R"({"batch": 32, "in_features": 63, "hidden": 64, "classes": 10})")
                .find("takes samples of shape [63]"),
            std::string::npos);
}

TEST(ConvergenceData, InChannelsIsBoundedLikeEveryModelSize) {
  const std::string why = test::suite_error(
      converge_suite("cnn", R"({"batch": 32, "channels": 16, "image": 8, "in_channels": 0, "classes": 10})"));
  EXPECT_NE(why.find("models.cnn.in_channels"), std::string::npos) << why;
  EXPECT_NE(test::suite_error(converge_suite("mlp", R"({"batch": 32, "in_features": 64, "hidden": 64, "classes": 10,
                                                        "in_channels": 1})"))
                .find("in_channels"),
            std::string::npos)
      << "a key of the cnn's, unknown to the mlp";
}

}  // namespace
}  // namespace ampbench
