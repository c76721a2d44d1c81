// The FP8 conversion plan on hand-made modules (the model families:
// harness/models/linear_test.cpp).
#include "fp8/conversion.h"

#include <gtest/gtest.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>


namespace ampbench::fp8 {
namespace {

std::vector<std::string> converted(const std::vector<LinearChoice>& plan) {
  std::vector<std::string> out;
  for (const LinearChoice& c : plan)
    if (c.converted) out.push_back(c.name);
  return out;
}

torch::nn::Sequential four_layers() {
  return torch::nn::Sequential(torch::nn::Linear(32, 64), torch::nn::ReLU(), torch::nn::Linear(64, 48),
                               torch::nn::Linear(48, 40), torch::nn::Linear(64, 16));
}

TEST(Fp8Conversion, FirstAndLastStayUnlessAskedAndMisalignedLayersNeverConvert) {
  const auto net = four_layers();
  const auto plan = plan_conversion(*net, ConversionOptions());
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(converted(plan), (std::vector<std::string>{"2"}));
  EXPECT_EQ(plan[0].reason, "the first Linear (convert_first off)");
  EXPECT_EQ(plan[2].reason, "out_features 40 not divisible by 16");
  EXPECT_EQ(plan[3].reason, "the last Linear (convert_last off)");
  EXPECT_EQ(converted(plan_conversion(*net, ConversionOptions().convert_first(true).convert_last(true))),
            (std::vector<std::string>{"0", "2", "4"}));
  EXPECT_EQ(conversion_refusal(plan), "");
}

TEST(Fp8Conversion, AModelWithNoAdmissibleLinearIsRefusedNamingEachLayer) {
  const auto net = torch::nn::Sequential(torch::nn::Linear(12, 10), torch::nn::Linear(10, 5));
  const auto plan = plan_conversion(*net, ConversionOptions().convert_first(true).convert_last(true));
  EXPECT_EQ(conversion_refusal(plan),
            "no Linear layer of the model can run in FP8 (0: in_features 12 and out_features 10 not divisible by 16; "
            "1: in_features 10 and out_features 5 not divisible by 16)");
  EXPECT_EQ(conversion_refusal(plan_conversion(*torch::nn::Sequential(torch::nn::ReLU()), ConversionOptions())),
            "the model has no Linear layer for an FP8 recipe to convert");
}

}  // namespace
}  // namespace ampbench::fp8
