// The registry and each registration against the module it builds: a
// registration's numbers (input shape, parameter count) are read by the
// suite reader and the memory estimate without building anything, so they
// must be the module's.
#include "spec/model_family.h"

#include <ATen/ops/allclose.h>
#include <ATen/ops/randn.h>
#include <gtest/gtest.h>

#include <set>

#include "models/model.h"
#include "spec/control.h"
#include "spec/device_kind.h"
#include "data/synthetic_data.h"
#include "suite/suite_sections.h"
#include "spec/workload_traits.h"

namespace ampbench {
namespace {

ModelSizes small_sizes() {
  ModelSizes s;
  s.batch = 4;
  s.in_features = 12;
  s.hidden = 10;
  s.classes = 5;
  s.channels = 4;
  s.image = 8;
  s.seq = 6;
  s.d_model = 8;
  s.heads = 2;
  s.ffn = 16;
  s.layers = 2;
  s.vocab = 20;
  s.depth = 10;
  s.patch = 4;
  return s;
}

TEST(ModelFamily, EveryRegistrationIsCompleteAndFoundByItsName) {
  std::set<std::string> names;
  for (const ModelFamily* f : model_families()) {
    EXPECT_TRUE(names.insert(f->name).second) << "two families named " << f->name;
    EXPECT_EQ(find_model_family(f->name), f);
    EXPECT_TRUE(f->sample_shape && f->forward_flops && f->parameters && f->activations && f->build) << f->name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"mlp", "cnn", "transformer", "decoder", "gpt2", "bert", "resnet", "vit",
                                          "linear_stack"}));
  EXPECT_EQ(find_model_family("gpt3"), nullptr);
  EXPECT_EQ(find_model_family(""), nullptr);
}

TEST(ModelFamily, TheBuiltModuleTakesTheRegisteredInputAndHasTheRegisteredParameters) {
  const ModelSizes s = small_sizes();
  for (const ModelFamily* f : model_families()) {
    const Model m = make_model(*f, s, 3, c10::Device(c10::kCPU));
    EXPECT_EQ(m.family, f);
    DataOptions data;
    data.model = f;
    data.sizes = s;
    const Batch batch = SyntheticData(data, c10::Device(c10::kCPU)).host(0);
    std::vector<int64_t> shape = f->sample_shape(s);
    shape.insert(shape.begin(), s.batch);
    EXPECT_EQ(batch.inputs.sizes(), shape) << f->name;
    const at::Tensor out = m(batch.inputs);
    // A next-token model predicts every position: [batch, seq, vocab].
    const std::vector<int64_t> expected = f->target == TargetKind::kNextToken
                                              ? std::vector<int64_t>{s.batch, s.seq, s.vocab}
                                              : std::vector<int64_t>{s.batch, s.classes};
    EXPECT_EQ(out.sizes(), expected) << f->name;
    EXPECT_TRUE(training_loss(out, batch.labels).isfinite().item<bool>()) << f->name;
    int64_t count = 0;
    for (const at::Tensor& p : m.parameters()) count += p.numel();
    EXPECT_EQ(static_cast<double>(count), f->parameters(s)) << f->name << ": the memory estimate's parameter count";
    EXPECT_GT(f->forward_flops(s), 0) << f->name;
    EXPECT_TRUE(m.replicate || !f->replicable) << f->name;
    // DataParallel's replicas compute the module's function (a replica that
    // lost a submodule's name could not take the parameters).
    if (m.replicate) {
      const std::vector<Model::Forward> replicas = m.replicate({c10::Device(c10::kCPU), c10::Device(c10::kCPU)});
      ASSERT_EQ(replicas.size(), 2u) << f->name;
      EXPECT_TRUE(at::allclose(replicas[1](batch.inputs), out, 1e-5, 1e-6)) << f->name;
    }
  }
}

// in_channels 1 is the convergence suite's CNN over a grey digit; the
// registration's counts (the memory estimate's, the FLOPs) must follow it.
TEST(ModelFamily, CnnInChannelsSetsItsInputAndItsParameterCount) {
  const ModelFamily& cnn = *find_model_family("cnn");
  ModelSizes s = small_sizes();
  EXPECT_EQ(s.in_channels, 8) << "the default every suite without the key keeps";
  const double flops8 = cnn.forward_flops(s);
  s.in_channels = 1;
  EXPECT_EQ(cnn.sample_shape(s), (std::vector<int64_t>{1, 8, 8}));
  const Model m = make_model(cnn, s, 3, c10::Device(c10::kCPU));
  int64_t count = 0;
  for (const at::Tensor& p : m.parameters()) count += p.numel();
  EXPECT_EQ(static_cast<double>(count), cnn.parameters(s));
  EXPECT_EQ(m.parameters().front().size(1), 1) << "conv1 takes one channel";
  EXPECT_EQ(m(at::randn({s.batch, 1, 8, 8})).sizes(), (std::vector<int64_t>{s.batch, s.classes}));
  // conv1's share of the FLOPs scales with its input channels.
  EXPECT_NEAR(flops8 - cnn.forward_flops(s), 2.0 * 7 * s.channels * 9 * 8 * 8, 1e-6);
}

TEST(ModelFamily, DataParallelIsRefusedAtLoadForAFamilyThatCannotBeReplicated) {
  ModelFamily frozen;
  frozen.name = "frozen";
  frozen.replicable = false;
  EXPECT_EQ(suite_detail::model_refusal("dataparallel", frozen),
            "dataparallel replicates the model, and model family 'frozen' cannot be replicated");
  EXPECT_EQ(suite_detail::model_refusal("ddp", frozen), "");
  EXPECT_EQ(suite_detail::model_refusal("plain", frozen), "");
  for (const ModelFamily* f : model_families()) EXPECT_EQ(suite_detail::model_refusal("dataparallel", *f), "") << f->name;
}

TEST(ModelFamily, APenaltyOnAFloat16CastTransformersModelIsRefusedAtLoad) {
  const ModelFamily& gpt2 = *find_model_family("gpt2");
  const std::string why = suite_detail::family_precision_refusal("penalty", gpt2, PrecisionPolicy::parse("o2"));
  EXPECT_NE(why.find("double backward overflows"), std::string::npos) << why;
  EXPECT_NE(suite_detail::family_precision_refusal("penalty", *find_model_family("bert"), PrecisionPolicy::parse("o3")),
            "");
  for (const char* allowed : {"fp16", "bf16", "fp32"})
    EXPECT_EQ(suite_detail::family_precision_refusal("penalty", gpt2, PrecisionPolicy::parse(allowed)), "") << allowed;
  EXPECT_EQ(suite_detail::family_precision_refusal("plain", gpt2, PrecisionPolicy::parse("o2")), "");
  // The synthetic models' inputs have unit variance: their LayerNorms are safe.
  EXPECT_EQ(suite_detail::family_precision_refusal("penalty", *find_model_family("transformer"),
                                                   PrecisionPolicy::parse("o2")),
            "");
}

// torchvision's published GFLOPS (multiply-adds, so half our 2-per-MAC
// count) for its ResNet and ViT weights; GPT-2 small and BERT-base follow
// the 2 x parameters x tokens rule plus attention and, for GPT-2, the tied
// head over the vocabulary (Kaplan et al.'s forward count).
TEST(ModelFamily, PublishedConfigurationsCostWhatTheirReferencesPublish) {
  ModelSizes r50;
  r50.depth = 50, r50.image = 224, r50.classes = 1000;
  EXPECT_NEAR(find_model_family("resnet")->forward_flops(r50) / 2e9, 4.09, 0.01);
  r50.depth = 18;
  EXPECT_NEAR(find_model_family("resnet")->forward_flops(r50) / 2e9, 1.81, 0.01);
  ModelSizes vit;
  vit.image = 224, vit.patch = 16, vit.d_model = 768, vit.heads = 12, vit.ffn = 3072, vit.layers = 12,
  vit.classes = 1000;
  EXPECT_NEAR(find_model_family("vit")->forward_flops(vit) / 2e9, 17.56, 0.01);
  ModelSizes gpt2;
  gpt2.seq = 1024, gpt2.d_model = 768, gpt2.heads = 12, gpt2.ffn = 3072, gpt2.layers = 12, gpt2.vocab = 50257;
  const double non_embedding = 12.0 * (12.0 * 768 * 768);  // 12 layers x 12 d^2 (weights only)
  const double expected = 1024 * (2 * non_embedding + 2.0 * 768 * 50257) + 12 * 4.0 * 1024 * 1024 * 768;
  EXPECT_NEAR(find_model_family("gpt2")->forward_flops(gpt2) / 1024, expected / 1024, expected / 1024 * 1e-9);
  EXPECT_NEAR(find_model_family("gpt2")->parameters(gpt2) / 1e6, 124.4, 0.1);  // GPT-2 small, 124M
  ModelSizes bert = gpt2;
  bert.seq = 128, bert.vocab = 30522, bert.classes = 2;
  EXPECT_NEAR(find_model_family("bert")->parameters(bert) / 1e6, 109.5 - 0.4, 0.1);  // BERT-base, 512 positions there
}

TEST(ModelFamily, SizesARegistrationRefusesAreNamedByTheirKey) {
  ModelSizes s = small_sizes();
  s.heads = 3;  // does not divide d_model 8
  for (const char* name : {"transformer", "decoder"}) {
    const auto [key, why] = find_model_family(name)->sizes_refusal(s);
    EXPECT_EQ(key, "heads") << name;
    EXPECT_EQ(why, "must divide d_model") << name;
  }
  EXPECT_EQ(find_model_family("mlp")->sizes_refusal, nullptr);
}

TEST(Identities, DeviceAndControlNamesRoundTrip) {
  for (const DeviceKind d : {DeviceKind::kCpu, DeviceKind::kCuda}) EXPECT_EQ(parse_device_kind(to_string(d)), d);
  EXPECT_FALSE(parse_device_kind("tpu"));
  EXPECT_FALSE(parse_device_kind("CUDA"));
  std::set<std::string> seen;
  for (const WorkloadTraits& w : all_workload_traits())
    for (const std::string& name : w.variants()) {
      const std::optional<Control> c = parse_control(name);
      ASSERT_TRUE(c) << w.name() << " offers '" << name << "', which is no Control";
      EXPECT_EQ(to_string(*c), name);
      EXPECT_TRUE(w.offers(*c));
      seen.insert(name);
    }
  for (const Control c : all_controls()) EXPECT_TRUE(seen.count(to_string(c))) << to_string(c) << ": no workload offers it";
  EXPECT_FALSE(parse_control("oops"));
  EXPECT_FALSE(workload_traits("plain").offers(Control::kRankDisagreement));
}

}  // namespace
}  // namespace ampbench
