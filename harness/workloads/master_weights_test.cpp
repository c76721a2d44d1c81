// Apex O2 and O3 as precisions: what is float16, what the optimizer updates,
// and how gradients and weights move between the model and the masters.
#include "workloads/master_weights.h"

#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <gtest/gtest.h>

#include "runner/tiny_case_test_util.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

const c10::Device kCpu(c10::kCPU);

TEST(O2, TheModelIsFloat16BatchNormStaysFloat32AndTheOptimizerUpdatesFloat32Masters) {
  const CaseSpec spec = test::small_case("cnn", Precision::kO2);
  auto s = make_training_state(spec, kCpu);
  const Model fp32 = make_model(*find_model_family("cnn"), spec.sizes, spec.seed, kCpu);
  ASSERT_EQ(s->masters.size(), 1u);
  const std::vector<at::Tensor> masters = s->masters[0].params();
  const std::vector<at::Tensor> init = fp32.parameters();
  ASSERT_EQ(masters.size(), init.size());
  for (size_t k = 0; k < masters.size(); ++k) {
    EXPECT_EQ(masters[k].scalar_type(), at::kFloat);
    EXPECT_TRUE(at::equal(masters[k], init[k])) << "masters start from the float32 initialisation, parameter " << k;
  }
  const std::vector<at::Tensor>& optimized = s->optimizer().param_groups().front().params();
  ASSERT_EQ(optimized.size(), masters.size());
  for (size_t k = 0; k < masters.size(); ++k) EXPECT_TRUE(optimized[k].is_same(masters[k]));
  for (const auto& item : s->model().module->named_parameters()) {
    const bool batchnorm = item.key().rfind("bn", 0) == 0;
    EXPECT_EQ(item.value().scalar_type(), batchnorm ? at::kFloat : at::kHalf) << item.key();
  }
  for (const auto& item : s->model().module->named_buffers()) {
    const bool counter = item.key().find("num_batches_tracked") != std::string::npos;
    EXPECT_EQ(item.value().scalar_type(), counter ? at::kLong : at::kFloat) << item.key();
  }
}

TEST(O2, AfterEachStepTheModelIsTheMastersRoundedToFloat16) {
  const CaseSpec spec = test::small_case("mlp", Precision::kO2);
  auto s = make_training_state(spec, kCpu);
  s->record_engagement = true;
  DataOptions d;
  d.model = spec.model;
  d.sizes = spec.sizes;
  const SyntheticData data(d, kCpu);
  const Workload& w = find_workload("plain");
  for (int step = 0; step < 3; ++step) {
    s->step_index = step;
    const StepOutcome out = w.step(*s, {data.host(step)});
    EXPECT_EQ(out.loss.scalar_type(), at::kFloat);  // the patched forward returns float32
  }
  const std::vector<at::Tensor> model = s->model().parameters();
  const std::vector<at::Tensor> masters = s->masters[0].params();
  bool finer = false;  // the masters keep what float16 cannot hold
  for (size_t k = 0; k < model.size(); ++k) {
    EXPECT_TRUE(at::equal(model[k], masters[k].to(at::kHalf))) << "parameter " << k;
    finer = finer || !at::equal(masters[k], masters[k].to(at::kHalf).to(at::kFloat));
    EXPECT_FALSE(model[k].grad().defined()) << "the model's gradients moved to the masters";
  }
  EXPECT_TRUE(finer);
}

TEST(O2, MicroBatchGradientsAddUpInFloat32) {
  at::Tensor p = at::ones({4}, at::kHalf).requires_grad_(true);
  MasterWeights m({p});
  // 2049 is not a float16: each micro-batch's 1 and 2048 add exactly only in float32.
  p.mutable_grad() = at::full({4}, 2048, at::kHalf);
  m.accumulate_grads();
  EXPECT_FALSE(p.grad().defined());
  p.mutable_grad() = at::ones({4}, at::kHalf);
  m.accumulate_grads();
  EXPECT_EQ(m.params()[0].grad().scalar_type(), at::kFloat);
  EXPECT_EQ(m.params()[0].grad()[0].item<float>(), 2049.0f);
  m.params()[0].detach().fill_(1.0f + 1.0f / 4096);  // below float16's resolution at 1
  m.publish();
  EXPECT_EQ(p[0].item<float>(), 1.0f);
}

TEST(O3, TrainsFloat16WeightsWithoutMastersOrScaler) {
  const CaseSpec spec = test::small_case("mlp", Precision::kO3);
  EXPECT_FALSE(spec.scaler_enabled);
  auto s = make_training_state(spec, kCpu);
  EXPECT_TRUE(s->masters.empty());
  const at::Tensor first = s->optimizer().param_groups().front().params().front();
  EXPECT_TRUE(first.is_same(s->model().parameters().front()));
  EXPECT_EQ(first.scalar_type(), at::kHalf);
  const at::Tensor before = first.detach().clone();
  DataOptions d;
  d.model = spec.model;
  d.sizes = spec.sizes;
  find_workload("plain").step(*s, {SyntheticData(d, kCpu).host(0)});
  EXPECT_FALSE(at::equal(first, before));
}

}  // namespace
}  // namespace ampbench
