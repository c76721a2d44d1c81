// The token inputs of the language-model families: next-token labels are the
// inputs shifted by one position, padding is a suffix of id 0 that never
// swallows a sample, and the labels depend on the tokens (a teacher, not
// noise), so training has something to learn.
#include "data/synthetic_data.h"

#include <ATen/ops/equal.h>
#include <gtest/gtest.h>

#include "spec/model_family.h"

namespace ampbench {
namespace {

DataOptions token_options(const char* family, int seed = 1) {
  DataOptions o;
  o.model = find_model_family(family);
  o.sizes.batch = 64;
  o.sizes.seq = 10;
  o.sizes.vocab = 30;
  o.sizes.classes = 4;
  o.seed = static_cast<std::uint64_t>(seed);
  o.distinct_batches = 2;
  return o;
}

TEST(TokenData, NextTokenLabelsAreTheInputsShiftedByOnePosition) {
  const Batch b = SyntheticData(token_options("gpt2"), c10::Device(c10::kCPU)).host(1);
  ASSERT_EQ(b.inputs.scalar_type(), at::kLong);
  ASSERT_EQ(b.labels.sizes(), b.inputs.sizes());
  EXPECT_TRUE(at::equal(b.labels.narrow(1, 0, 9), b.inputs.narrow(1, 1, 9)));
  EXPECT_TRUE((b.inputs >= 0).all().item<bool>() && (b.inputs < 30).all().item<bool>());
}

TEST(TokenData, PaddingIsASuffixOfIdZeroAndKeepsAtLeastHalfTheSequence) {
  const Batch b = SyntheticData(token_options("bert"), c10::Device(c10::kCPU)).host(0);
  const at::Tensor real = b.inputs != 0;
  const at::Tensor lengths = real.sum(1);
  EXPECT_TRUE((lengths >= 5).all().item<bool>());
  EXPECT_TRUE((lengths < 10).any().item<bool>()) << "some sample must be padded";
  for (int64_t i = 0; i < b.inputs.size(0); ++i) {
    const int64_t n = lengths[i].item<int64_t>();
    EXPECT_TRUE(real[i].narrow(0, 0, n).all().item<bool>()) << "sample " << i << ": a 0 inside the tokens";
  }
  EXPECT_EQ(b.labels.sizes(), (std::vector<int64_t>{64}));
  EXPECT_GT(std::get<0>(at::_unique(b.labels)).numel(), 1) << "the teacher gives every sample the same class";
}

TEST(TokenData, TheSeedDecidesTheTokens) {
  const c10::Device cpu(c10::kCPU);
  EXPECT_TRUE(at::equal(SyntheticData(token_options("gpt2", 3), cpu).host(0).inputs,
                        SyntheticData(token_options("gpt2", 3), cpu).host(0).inputs));
  EXPECT_FALSE(at::equal(SyntheticData(token_options("gpt2", 3), cpu).host(0).inputs,
                         SyntheticData(token_options("gpt2", 4), cpu).host(0).inputs));
}

// The targets of each loss (docs/your-model.md): the teacher's class for
// cross-entropy, its positive logits as multi-hot floats for BCE-with-logits,
// standard normal floats drawn after the inputs for MSE. The teacher is an
// odd function (tanh, no bias) of symmetric inputs, so each logit is
// positive for half the samples: a threshold other than 0 moves that half.
DataOptions float_options(LossKind loss, int seed = 1) {
  DataOptions o;
  o.model = find_model_family("mlp");
  o.sizes.batch = 4096;
  o.sizes.in_features = 12;
  o.sizes.classes = 6;
  o.seed = static_cast<std::uint64_t>(seed);
  o.distinct_batches = 1;
  o.loss = loss;
  return o;
}

Batch first_batch(DataOptions o) { return SyntheticData(o, c10::Device(c10::kCPU)).host(0); }

// Multi-hot against the teacher's class of the same samples: the largest
// logit is positive whenever any is, so the class's target is 1 exactly
// when the row has any 1.
void expect_multi_hot_of_the_teachers_logits(const at::Tensor& targets, const at::Tensor& classes, int64_t n) {
  ASSERT_EQ(targets.scalar_type(), at::kFloat);
  ASSERT_EQ(targets.sizes(), (std::vector<int64_t>{classes.size(0), n}));
  EXPECT_TRUE(((targets == 0) | (targets == 1)).all().item<bool>()) << "targets are not 0/1";
  const at::Tensor of_class = targets.gather(1, classes.unsqueeze(1)).squeeze(1);
  EXPECT_TRUE(at::equal(of_class, (targets.sum(1) > 0).to(at::kFloat)))
      << "a row's 1s do not include the teacher's class";
}

TEST(LossTargets, CrossEntropyLabelsAreTheTeachersClasses) {
  const Batch b = first_batch(float_options(LossKind::kCrossEntropy));
  ASSERT_EQ(b.labels.scalar_type(), at::kLong);
  ASSERT_EQ(b.labels.sizes(), (std::vector<int64_t>{4096}));
  EXPECT_TRUE((b.labels >= 0).all().item<bool>() && (b.labels < 6).all().item<bool>());
  EXPECT_GT(std::get<0>(at::_unique(b.labels)).numel(), 3) << "the teacher uses few of the 6 classes";
}

TEST(LossTargets, EveryLossSeesTheSameInputs) {
  const at::Tensor x = first_batch(float_options(LossKind::kCrossEntropy)).inputs;
  EXPECT_TRUE(at::equal(first_batch(float_options(LossKind::kMse)).inputs, x));
  EXPECT_TRUE(at::equal(first_batch(float_options(LossKind::kBceWithLogits)).inputs, x));
}

TEST(LossTargets, BceTargetsAreThePositiveLogitsOfTheTeacher) {
  const at::Tensor classes = first_batch(float_options(LossKind::kCrossEntropy)).labels;
  const at::Tensor t = first_batch(float_options(LossKind::kBceWithLogits)).labels;
  expect_multi_hot_of_the_teachers_logits(t, classes, 6);
  // Per class, half the samples: 4096 draws, one standard error 0.008.
  const at::Tensor positive = t.mean(0);
  for (int64_t c = 0; c < 6; ++c)
    EXPECT_NEAR(positive[c].item<double>(), 0.5, 0.05) << "class " << c << ": not thresholded at logit 0";
}

TEST(LossTargets, BceTargetsOfTokenInputsAreMultiHotOfTheSameTeacher) {
  DataOptions o = token_options("bert");
  o.sizes.batch = 512;
  o.sizes.classes = 5;
  const Batch ce = first_batch(o);
  o.loss = LossKind::kBceWithLogits;
  const Batch b = first_batch(o);
  EXPECT_TRUE(at::equal(b.inputs, ce.inputs));
  const at::Tensor& classes = ce.labels;
  expect_multi_hot_of_the_teachers_logits(b.labels, classes, 5);
  const double positive = b.labels.mean().item<double>();
  EXPECT_GT(positive, 0.2);
  EXPECT_LT(positive, 0.8);
}

TEST(LossTargets, MseTargetsAreStandardNormalAndNotTheTeachers) {
  const Batch b = first_batch(float_options(LossKind::kMse));
  ASSERT_EQ(b.labels.scalar_type(), at::kFloat);
  ASSERT_EQ(b.labels.sizes(), (std::vector<int64_t>{4096, 6}));
  // 24576 draws: standard errors 0.0064 (mean) and 0.0045 (std).
  EXPECT_NEAR(b.labels.mean().item<double>(), 0.0, 0.04);
  EXPECT_NEAR(b.labels.std().item<double>(), 1.0, 0.03);
  // Drawn, not computed from the inputs: the teacher's sign agrees with them
  // only by chance.
  const at::Tensor bce = first_batch(float_options(LossKind::kBceWithLogits)).labels;
  EXPECT_NEAR(((b.labels > 0).to(at::kFloat) == bce).to(at::kFloat).mean().item<double>(), 0.5, 0.05);
  EXPECT_FALSE(at::equal(b.labels, first_batch(float_options(LossKind::kMse, 2)).labels));
}

}  // namespace
}  // namespace ampbench
