// The function-space probe: which models get one, that it reads the weights
// the optimizer trains, and that it sees through BatchNorm's scale symmetry.
#include "runner/probe.h"

#include <ATen/ops/equal.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <cmath>

#include "core/distance.h"
#include "data/synthetic_data.h"
#include "runner/tiny_case_test_util.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

const c10::Device kCpu(c10::kCPU);

// The cnn family's synthetic batch of `spec`'s sizes.
at::Tensor images() {
  const CaseSpec spec = test::small_case("cnn", Precision::kFp32);
  DataOptions d;
  d.model = spec.model;
  d.sizes = spec.sizes;
  return SyntheticData(d, kCpu).host(0).inputs;
}

// A TrainingState keeps a reference to its spec: the specs outlive them.
TEST(Probe, OnlyModelsWithBatchNormAreProbed) {
  const CaseSpec cnn = test::small_case("cnn", Precision::kFp32), mlp = test::small_case("mlp", Precision::kFp32);
  EXPECT_TRUE(probes_function_space(*make_training_state(cnn, kCpu)));
  EXPECT_FALSE(probes_function_space(*make_training_state(mlp, kCpu)));
}

TEST(Probe, ReadsTheFloat32MastersNotTheFloat16Module) {
  const at::Tensor x = images();
  const CaseSpec fp32_spec = test::small_case("cnn", Precision::kFp32), o2_spec = test::small_case("cnn", Precision::kO2);
  const auto fp32 = make_training_state(fp32_spec, kCpu);
  const auto o2 = make_training_state(o2_spec, kCpu);
  const std::vector<float> a = probe_outputs(*fp32, x);
  EXPECT_EQ(a.size(), 8u * 8u);  // batch x classes
  EXPECT_EQ(probe_outputs(*o2, x), a);
}

TEST(Probe, ScalingTheWeightsInFrontOfABatchNormLeavesTheOutputs) {
  const at::Tensor x = images();
  const CaseSpec spec = test::small_case("cnn", Precision::kFp32);
  const auto s = make_training_state(spec, kCpu);
  const std::vector<float> before = probe_outputs(*s, x);
  const auto named = s->model().module->named_parameters();
  {
    const torch::NoGradGuard no_grad;
    named["conv1.weight"].mul_(4);  // conv1 -> bn1: bn1 divides the 4 out
    named["conv1.bias"].mul_(4);
  }
  const std::vector<float> scaled = probe_outputs(*s, x);
  EXPECT_LT(relative_l2(scaled, before, {}), 1e-3);  // BatchNorm's eps is not scaled
  {
    const torch::NoGradGuard no_grad;
    named["head.weight"].mul_(4);  // no BatchNorm after the head
  }
  EXPECT_GT(relative_l2(probe_outputs(*s, x), before, {}), 0.5);
}

TEST(Probe, DoesNotTouchTheRunsModules) {
  const CaseSpec spec = test::small_case("cnn", Precision::kFp32);
  const auto s = make_training_state(spec, kCpu);
  const at::Tensor mean = s->model().module->named_buffers()["bn1.running_mean"].clone();
  probe_outputs(*s, images());
  EXPECT_TRUE(at::equal(s->model().module->named_buffers()["bn1.running_mean"], mean));
}

}  // namespace
}  // namespace ampbench
