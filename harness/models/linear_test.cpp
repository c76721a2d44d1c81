// FP8 on the model families: which of their Linear layers a recipe converts,
// and, attached, the converted layers' GEMMs through fp8_linear and nothing
// else changed.
#include "models/linear.h"

#include <ATen/ops/equal.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/relu.h>
#include <gtest/gtest.h>
#include <torch/nn/functional/linear.h>
#include <torch/nn/modules/container/sequential.h>

#include "data/synthetic_data.h"
#include "models/model.h"

namespace ampbench {
namespace {

ModelSizes sizes() {
  ModelSizes s;
  s.batch = 4;
  s.in_features = 32;
  s.hidden = 64;
  s.classes = 10;
  s.image = 8;
  s.patch = 4;
  s.d_model = 32;
  s.heads = 2;
  s.ffn = 64;
  s.layers = 2;
  return s;
}

Model model(const std::string& family) {
  return make_model(*find_model_family(family), sizes(), 1, c10::Device(c10::kCPU));
}

std::vector<fp8::LinearChoice> plan(const Model& m) { return plan_fp8(*m.module, fp8::ConversionOptions()).layers; }

std::vector<std::string> converted(const std::vector<fp8::LinearChoice>& plan) {
  std::vector<std::string> out;
  for (const fp8::LinearChoice& c : plan)
    if (c.converted) out.push_back(c.name);
  return out;
}

TEST(Fp8Model, TheMlpConvertsItsHiddenLayer) {
  const Model m = model("mlp");
  EXPECT_EQ(converted(fp8::plan_conversion(*m.module, fp8::ConversionOptions())), (std::vector<std::string>{"fc2"}));
  EXPECT_EQ(converted(fp8::plan_conversion(*m.module, fp8::ConversionOptions().convert_first(true))),
            (std::vector<std::string>{"fc1", "fc2"}));
}

// As torchao on torchvision's ViT: every MLP Linear, not the head (10
// classes), and no attention out_proj: the first by rule, the others because
// torch.nn.MultiheadAttention reads out_proj's weight, not its forward.
TEST(Fp8Model, ViTConvertsItsMlpLinearsButNotTheAttentionOutputOrTheHead) {
  const Model m = model("vit");
  const auto layers = plan(m);
  ASSERT_EQ(layers.size(), 7u);  // per layer out_proj and the MLP's two, then the head
  EXPECT_EQ(layers.front().reason, "the first Linear (convert_first off)");
  EXPECT_EQ(layers.back().reason, "out_features 10 not divisible by 16");
  EXPECT_EQ(converted(layers), (std::vector<std::string>{"encoder.layers.encoder_layer_0.mlp.0",
                                                         "encoder.layers.encoder_layer_0.mlp.3",
                                                         "encoder.layers.encoder_layer_1.mlp.0",
                                                         "encoder.layers.encoder_layer_1.mlp.3"}));
  EXPECT_NE(layers[3].reason.find("torch.nn.MultiheadAttention's out_proj"), std::string::npos) << layers[3].name;
  // The plain conversion plan (the oracle's rule alone) would convert it.
  EXPECT_TRUE(fp8::plan_conversion(*m.module, fp8::ConversionOptions())[3].converted);
}

TEST(Fp8Model, TheMlpsConvertedLayerRunsInFp8AndTheOthersAsBefore) {
  const Model m = model("mlp");
  const at::Tensor x = at::randn({4, 32});
  const at::Tensor before = m(x);
  const auto states = attach_fp8(*m.module, plan(m), fp8::RecipeOptions(fp8::Scaling::kTensorwise));
  ASSERT_EQ(states.size(), 1u);  // fc2; fc1 and the head are first and last
  const at::Tensor in_fp8 = m(x);

  // The same forward written out: fc2 through fp8_linear on a state of its own.
  auto named = m.module->named_modules("", false);
  auto& fc1 = *named["fc1"]->as<LinearImpl>();
  auto& fc2 = *named["fc2"]->as<LinearImpl>();
  auto& head = *named["head"]->as<LinearImpl>();
  fp8::Fp8LinearState own(fp8::RecipeOptions(fp8::Scaling::kTensorwise), x.device());
  namespace F = torch::nn::functional;
  const at::Tensor by_hand =
      F::linear(at::relu(fp8::fp8_linear(at::relu(F::linear(x, fc1.weight, fc1.bias)), fc2.weight, fc2.bias, own)),
                head.weight, head.bias);
  EXPECT_TRUE(at::equal(in_fp8, by_hand));
  EXPECT_FALSE(at::equal(in_fp8, before));
  EXPECT_NE(fc2.fp8_state(), nullptr);
  EXPECT_EQ(fc1.fp8_state(), nullptr);

  // Gradients reach the converted layer's float32 master weight.
  in_fp8.sum().backward();
  ASSERT_TRUE(fc2.weight.grad().defined());
  EXPECT_EQ(fc2.weight.grad().scalar_type(), at::kFloat);
  EXPECT_TRUE(fc2.weight.grad().isfinite().all().item<bool>());

  detach_fp8(*m.module);
  EXPECT_TRUE(at::equal(m(x), before));
}

// ViT reaches its MLP Linears through F.linear, not forward: every planned
// layer's delayed-scaling state must still be used once forward and once
// backward, or a layer silently stayed in its own precision.
TEST(Fp8Model, ViTAndTheDecoderRunEveryPlannedLayerInFp8) {
  for (const std::string family : {"vit", "decoder"}) {
    const Model m = model(family);
    const auto p = plan(m);
    const auto states = attach_fp8(*m.module, p, fp8::RecipeOptions(fp8::Scaling::kDelayed));
    EXPECT_GE(states.size(), 2u) << family;
    DataOptions data;
    data.model = m.family;
    data.sizes = sizes();
    const SyntheticData batches(data, c10::Device(c10::kCPU));
    m(batches.cached().inputs).sum().backward();
    for (size_t i = 0; i < states.size(); ++i) {
      EXPECT_EQ(states[i]->input.updates.item<int64_t>(), 1) << family << " state " << i;
      EXPECT_EQ(states[i]->grad_output.updates.item<int64_t>(), 1) << family << " state " << i;
    }
  }
}

// DataParallel's replicas are clones: each Linear keeps this type (a
// Sequential holding one takes only this type back); a dynamic recipe's
// layers keep their recipe in a state of their own, delayed scaling's drop it.
TEST(Fp8Model, AClonedModelKeepsTheTypeAndADynamicRecipeInStatesOfItsOwn) {
  const Model m = model("vit");
  const auto states = attach_fp8(*m.module, plan(m), fp8::RecipeOptions(fp8::Scaling::kRowwise));
  size_t in_fp8 = 0;
  for (const auto& module : m.module->clone()->modules(false)) {
    const auto* layer = module->as<LinearImpl>();
    if (layer == nullptr || layer->fp8_state() == nullptr) continue;
    ++in_fp8;
    EXPECT_EQ(layer->fp8_state()->recipe.scaling(), fp8::Scaling::kRowwise);
    for (const auto& s : states) EXPECT_NE(layer->fp8_state(), s.get());
  }
  EXPECT_EQ(in_fp8, states.size());
  const at::Tensor x = at::randn({2, 16});
  torch::nn::Sequential net(Linear(16, 32), Linear(32, 32), Linear(32, 16));
  attach_fp8(*net, fp8::plan_conversion(*net, fp8::ConversionOptions()), fp8::RecipeOptions(fp8::Scaling::kTensorwise));
  const auto net_copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(net->clone());
  EXPECT_TRUE(at::equal(net_copy->forward(x), net->forward(x)));  // the same FP8 forward
}

TEST(Fp8Model, AClonedModelRunsDelayedScalingInItsOwnPrecision) {
  const Model m = model("vit");
  attach_fp8(*m.module, plan(m), fp8::RecipeOptions(fp8::Scaling::kDelayed));
  const auto copy = m.module->clone();
  size_t linears = 0;
  for (const auto& module : copy->modules(false)) {
    if (!module->as<torch::nn::LinearImpl>()) continue;
    ++linears;
    const auto* layer = module->as<LinearImpl>();
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->fp8_state(), nullptr);
  }
  EXPECT_EQ(linears, plan(m).size());
  torch::nn::Sequential net(Linear(16, 16));
  const auto net_copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(net->clone());
  const at::Tensor x = at::randn({2, 16});
  EXPECT_TRUE(at::equal(net_copy->forward(x), net->forward(x)));
}

TEST(Fp8Model, ALayerThatIsNotTheFamiliesLinearIsRefusedByName) {
  torch::nn::Sequential net(torch::nn::Linear(32, 64), Linear(64, 64), torch::nn::Linear(64, 32), torch::nn::Linear(32, 16));
  const auto p = fp8::plan_conversion(*net, fp8::ConversionOptions());
  ASSERT_TRUE(p[1].converted && p[2].converted);
  try {
    attach_fp8(*net, p, fp8::RecipeOptions(fp8::Scaling::kTensorwise));
    FAIL() << "attached FP8 to a torch::nn::Linear";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "attach_fp8: layer '2' is a torch::nn::Linear, not the model families' Linear: it cannot run in FP8");
  }
}

}  // namespace
}  // namespace ampbench
