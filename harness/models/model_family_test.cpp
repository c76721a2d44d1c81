// The registry and each registration against the module it builds: a
// registration's numbers (input shape, parameter count) are read by the
// suite reader and the memory estimate without building anything, so they
// must be the module's.
#include "spec/model_family.h"

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
  return s;
}

TEST(ModelFamily, EveryRegistrationIsCompleteAndFoundByItsName) {
  std::set<std::string> names;
  for (const ModelFamily* f : model_families()) {
    EXPECT_TRUE(names.insert(f->name).second) << "two families named " << f->name;
    EXPECT_EQ(find_model_family(f->name), f);
    EXPECT_TRUE(f->sample_shape && f->forward_flops && f->parameters && f->activations && f->build) << f->name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"mlp", "cnn", "transformer", "decoder", "gpt2", "bert"}));
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
  }
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
  EXPECT_EQ(seen.size(), 9u) << "a Control no workload offers";
  EXPECT_FALSE(parse_control("oops"));
  EXPECT_FALSE(workload_traits("plain").offers(Control::kRankDisagreement));
}

}  // namespace
}  // namespace ampbench
