#include "fp8/conversion.h"

#include <torch/nn/modules/linear.h>

namespace ampbench::fp8 {
namespace {

std::string misalignment(const LinearChoice& c, int64_t alignment) {
  std::string why;
  if (c.in_features % alignment != 0) why = "in_features " + std::to_string(c.in_features);
  if (c.out_features % alignment != 0)
    why += (why.empty() ? "" : " and ") + std::string("out_features ") + std::to_string(c.out_features);
  return why.empty() ? "" : why + " not divisible by " + std::to_string(alignment);
}

}  // namespace

std::vector<LinearChoice> plan_conversion(const torch::nn::Module& module, const ConversionOptions& options) {
  std::vector<LinearChoice> plan;
  for (const auto& item : module.named_modules("", /*include_self=*/false)) {
    const auto* linear = item.value()->as<torch::nn::LinearImpl>();
    if (linear == nullptr) continue;
    plan.push_back({item.key(), linear->options.in_features(), linear->options.out_features(), false, ""});
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    LinearChoice& c = plan[i];
    c.reason = misalignment(c, options.alignment());
    if (c.reason.empty() && i == 0 && !options.convert_first()) c.reason = "the first Linear (convert_first off)";
    if (c.reason.empty() && i + 1 == plan.size() && !options.convert_last())
      c.reason = "the last Linear (convert_last off)";
    c.converted = c.reason.empty();
  }
  return plan;
}

std::string conversion_refusal(const std::vector<LinearChoice>& plan) {
  if (plan.empty()) return "the model has no Linear layer for an FP8 recipe to convert";
  std::string why;
  for (const LinearChoice& c : plan) {
    if (c.converted) return "";
    why += (why.empty() ? "" : "; ") + c.name + ": " + c.reason;
  }
  return "no Linear layer of the model can run in FP8 (" + why + ")";
}

}  // namespace ampbench::fp8
