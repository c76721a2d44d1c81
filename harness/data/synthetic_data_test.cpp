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

}  // namespace
}  // namespace ampbench
