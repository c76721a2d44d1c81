// The settings a user's model comes with (optimizer keyword arguments, loss,
// where an inf goes, multi's coefficients) and models given by file, as the
// suite reader takes or refuses them.
#include "suite/suite.h"

#include <gtest/gtest.h>

#include <torch/script.h>

#include <filesystem>

#include "io/remove_tree.h"

namespace ampbench {
namespace {

std::string suite_with(const std::string& defaults, const std::string& models = "",
                       const std::string& matrix_models = "\"mlp\"") {
  return R"({"name": "t", "defaults": {)" + defaults + R"(},
    "models": {"mlp": {"batch": 8, "in_features": 8, "hidden": 8, "classes": 8},
               "linear_stack": {"batch": 8, "in_features": 8, "hidden": 8, "classes": 8, "layers": 2},
               "gpt2": {"batch": 2, "seq": 8, "vocab": 16, "d_model": 8, "heads": 2, "ffn": 16, "layers": 1})" +
         models + R"(},
    "matrix": {"workloads": ["plain", "multi"], "models": [)" + matrix_models + R"(], "precisions": ["fp32", "fp16"],
               "optimizers": ["sgd", "adam", "adamw"]},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}}})";
}

std::string error_of(const std::string& text, const std::string& path = "t.json") {
  try {
    parse_suite(text, path, DeviceKind::kCpu);
  } catch (const SuiteError& e) {
    return e.what();
  }
  return "";
}

const CaseSpec& find(const Suite& s, const std::string& id) {
  for (const CaseSpec& c : s.cases)
    if (c.id == id) return c;
  throw std::runtime_error("no case " + id);
}

TEST(SuiteOptions, OptimizerSettingsLossAndCoefficientsReachTheCases) {
  const Suite s = parse_suite(suite_with(R"("optimizer_settings": {"sgd": {"momentum": 0, "weight_decay": 0.001},
      "adam": {"betas": [0.8, 0.99], "amsgrad": true}}, "loss": "bce_with_logits",
      "multi_coefficients": [[0.3, 0.7], [0.6, -0.4]])"), "t.json", DeviceKind::kCpu);
  const CaseSpec& sgd = find(s, "plain/mlp/fp16/sgd");
  EXPECT_EQ(sgd.optimizer_settings.momentum, 0);
  EXPECT_EQ(sgd.optimizer_settings.weight_decay, 0.001);
  const CaseSpec& adam = find(s, "plain/mlp/fp16/adam");
  EXPECT_EQ(adam.optimizer_settings.beta1, 0.8);
  EXPECT_TRUE(adam.optimizer_settings.amsgrad);
  EXPECT_EQ(find(s, "plain/mlp/fp16/adamw").optimizer_settings.weight_decay, 0.01) << "AdamW keeps its default";
  EXPECT_EQ(adam.loss.kind, LossKind::kBceWithLogits);
  const CaseSpec& multi = find(s, "multi/mlp/fp16/sgd");
  EXPECT_EQ(multi.multi_coefficients[1], 0.7);
  EXPECT_EQ(multi.multi_coefficients[3], -0.4);
  EXPECT_EQ(find(s, "multi/mlp/fp32/sgd").multi_coefficients[3], -0.4) << "the baseline trains the same losses";
}

TEST(SuiteOptions, ImpossibleSettingsAreRefusedNamingTheField) {
  const std::pair<std::string, std::string> bad[] = {
      {R"("optimizer_settings": {"sgd": {"betas": [0.9, 0.99]}})", "not a setting of sgd"},
      {R"("optimizer_settings": {"sgd": {"momentum": 0, "nesterov": true}})", "nesterov needs momentum"},
      {R"("optimizer_settings": {"adam": {"betas": [0.9]}})", "expected [beta1, beta2]"},
      {R"("optimizer_settings": {"lamb": {}})", "unknown optimizer 'lamb'"},
      {R"("loss": "hinge")", "unknown loss 'hinge'"},
      {R"("loss": "mse", "label_smoothing": 0.1)", "applies to cross_entropy only"},
      {R"("label_smoothing": 1.5)", "label_smoothing: must be in [0, 1]"},
      {R"("multi_coefficients": [1, 2, 3, 4])", "expected [[a, b], [c, d]]"},
      {R"("inject_inf_step": 1, "inject_inf_param": "fc9.weight")", "has no parameter 'fc9.weight'"},
      {R"("inject_inf_param": "fc1.weight")", "needs an \"inject_inf_step\""},
  };
  for (const auto& [defaults, why] : bad) EXPECT_NE(error_of(suite_with(defaults)).find(why), std::string::npos) << defaults;
  EXPECT_NE(error_of(suite_with(R"("loss": "mse")", "", "\"gpt2\"")).find("next-token model's loss is cross-entropy"),
            std::string::npos);
  EXPECT_EQ(error_of(suite_with(R"("inject_inf_step": 1, "inject_inf_param": "1.weight")", "", "\"linear_stack\"")), "");
}

TEST(SuiteOptions, AModelGivenByFileIsLoadedRelativeToTheSuiteAndRefusedWithTheReason) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ampbench-suite-options-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  torch::jit::Module m("Linear");
  m.register_parameter("weight", at::randn({8, 8}).requires_grad_(true), false);
  m.define("def forward(self, x):\n  return torch.matmul(x, self.weight.t())\n");
  m.save((dir / "mine.pt").string());
  const std::string suite_path = (dir / "s.json").string();
  auto mine = [](const std::string& file) {
    return R"(, "mine": {"torchscript": ")" + file + R"(", "inputs": [{"shape": [8]}], "batch": 4, "classes": 8})";
  };
  const Suite s = parse_suite(suite_with("", mine("mine.pt"), "\"mine\""), suite_path, DeviceKind::kCpu);
  ASSERT_EQ(s.scripted_models.size(), 1u);
  EXPECT_EQ(find(s, "plain/mine/fp16/sgd").model->scripted->path, (dir / "mine.pt").string());
  EXPECT_NE(error_of(suite_with("", mine("nope.pt"), "\"mine\""), suite_path).find("mine.torchscript: " + (dir / "nope.pt").string() + ": no such file"),
            std::string::npos);
  const std::string dp = suite_with("", mine("mine.pt"), "\"mine\"");
  const std::string with_dp = dp.substr(0, dp.find("\"multi\"")) + "\"dataparallel\"" + dp.substr(dp.find("\"multi\"") + 7);
  EXPECT_NE(error_of(with_dp, suite_path).find("a TorchScript module is not one"), std::string::npos);
  // The Python module the file came from (the compiled implementation trains it), checked as read.
  auto from_python = [&](const std::string& python) {
    return R"(, "mine": {"torchscript": "mine.pt", "inputs": [{"shape": [8]}], "batch": 4, "classes": 8, "python": )" +
           python + "}";
  };
  const Suite p = parse_suite(suite_with("", from_python(R"({"factory": "pkg.mod:make", "kwargs": {"n": 3}})"), "\"mine\""),
                              suite_path, DeviceKind::kCpu);
  EXPECT_EQ(find(p, "plain/mine/fp16/sgd").model->scripted->python_factory, "pkg.mod:make");
  EXPECT_EQ(find(p, "plain/mine/fp16/sgd").model->scripted->python_kwargs_json, R"({"n":3})");
  EXPECT_EQ(find(s, "plain/mine/fp16/sgd").model->scripted->python_factory, "");
  EXPECT_NE(error_of(suite_with("", from_python(R"({"factory": "pkg.mod"})"), "\"mine\""), suite_path).find("mine.python.factory: expected"),
            std::string::npos);
  EXPECT_NE(error_of(suite_with("", from_python(R"({"factory": "m:f", "kwargs": [1]})"), "\"mine\""), suite_path).find("mine.python.kwargs: expected a JSON object"),
            std::string::npos);
  EXPECT_NE(error_of(suite_with("", from_python(R"({"factory": "m:f", "kw": {}})"), "\"mine\""), suite_path).find("mine.python.kw: unknown field"),
            std::string::npos);
  const std::string named_resnet = R"(, "resnet": {"torchscript": "mine.pt", "inputs": [{"shape": [8]}], "batch": 4, "classes": 8})";
  EXPECT_NE(error_of(suite_with("", named_resnet), suite_path).find("not a registered family's"), std::string::npos);
  io::remove_tree(dir.string());
}

}  // namespace
}  // namespace ampbench
