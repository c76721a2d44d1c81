#include "models/linear.h"

#include <ATen/ops/linear.h>

#include <stdexcept>
#include <string>

namespace ampbench {

at::Tensor LinearImpl::forward(const at::Tensor& input) {
  if (!fp8_) return torch::nn::LinearImpl::forward(input);
  return fp8::fp8_linear(input, weight, bias, *fp8_);
}

at::Tensor LinearImpl::f_linear(const at::Tensor& input) {
  if (!fp8_) return at::linear(input, weight, bias);
  return fp8::fp8_linear(input, weight, bias, *fp8_);
}

std::shared_ptr<torch::nn::Module> LinearImpl::clone(const std::optional<c10::Device>& device) const {
  auto copy = std::make_shared<LinearImpl>(options);
  copy->own_precision_reason_ = own_precision_reason_;
  static_cast<torch::nn::LinearImpl&>(*copy) =
      *std::dynamic_pointer_cast<torch::nn::LinearImpl>(torch::nn::LinearImpl::clone(device));
  if (fp8_ && fp8_->recipe.scaling() != fp8::Scaling::kDelayed)
    copy->fp8_ = std::make_shared<fp8::Fp8LinearState>(fp8_->recipe, copy->weight.device());
  return copy;
}

namespace {

std::string torch_linear_refusal(const std::string& name) {
  return "layer '" + name + "' is a torch::nn::Linear, not the model families' Linear: it cannot run in FP8";
}

}  // namespace

Fp8Plan plan_fp8(const torch::nn::Module& model, const fp8::ConversionOptions& options) {
  Fp8Plan plan{fp8::plan_conversion(model, options), ""};
  const auto modules = model.named_modules("", /*include_self=*/false);
  for (fp8::LinearChoice& choice : plan.layers) {
    const auto* layer = modules[choice.name]->as<LinearImpl>();
    if (!choice.converted || !layer || layer->own_precision_reason().empty()) continue;
    choice.converted = false;
    choice.reason = layer->own_precision_reason();
  }
  plan.refusal = fp8::conversion_refusal(plan.layers);
  if (!plan.refusal.empty()) return plan;
  for (const fp8::LinearChoice& choice : plan.layers)
    if (choice.converted && !modules[choice.name]->as<LinearImpl>()) {
      plan.refusal = torch_linear_refusal(choice.name);
      break;
    }
  return plan;
}

std::vector<std::shared_ptr<fp8::Fp8LinearState>> attach_fp8(torch::nn::Module& model,
                                                             const std::vector<fp8::LinearChoice>& plan,
                                                             const fp8::RecipeOptions& recipe) {
  const auto modules = model.named_modules("", /*include_self=*/false);
  std::vector<std::shared_ptr<fp8::Fp8LinearState>> states;
  for (const fp8::LinearChoice& choice : plan) {
    if (!choice.converted) continue;
    const auto* found = modules.find(choice.name);
    if (!found) throw std::invalid_argument("attach_fp8: the model has no layer '" + choice.name + "'");
    auto* layer = (*found)->as<LinearImpl>();
    if (!layer) throw std::invalid_argument("attach_fp8: " + torch_linear_refusal(choice.name));
    // NVFP4: each layer's Hadamard signs and rounding stream seeded apart.
    fp8::RecipeOptions own = recipe;
    if (recipe.scaling() == fp8::Scaling::kNvfp4) own.nvfp4_seed(recipe.nvfp4_seed() + static_cast<int64_t>(states.size()));
    states.push_back(std::make_shared<fp8::Fp8LinearState>(own, layer->weight.device()));
    layer->set_fp8_state(states.back());
  }
  return states;
}

void detach_fp8(torch::nn::Module& model) {
  for (const auto& module : model.modules(/*include_self=*/false))
    if (auto* layer = module->as<LinearImpl>()) layer->set_fp8_state(nullptr);
}

}  // namespace ampbench
