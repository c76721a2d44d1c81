// The model families' Linear: torch::nn::Linear's parameters, names and
// forward, except while an FP8 recipe's state is attached, when its three
// GEMMs run in FP8 through fp8::fp8_linear. attach_fp8 attaches one state to
// each layer an FP8 conversion plan (fp8/conversion.h) converts; the model's
// own forward is unchanged, so the same module trains in any precision.
#pragma once

#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <memory>
#include <string>
#include <vector>

#include "fp8/conversion.h"
#include "fp8/fp8_linear.h"

namespace ampbench {

class LinearImpl : public torch::nn::LinearImpl {
 public:
  using torch::nn::LinearImpl::LinearImpl;

  at::Tensor forward(const at::Tensor& input);
  // As Python's F.linear (at::linear: one fused addmm, which LibTorch's
  // forward is not for 3-D inputs) in the layer's own precision; FP8 when
  // attached. For the modules that mirror torchvision's F.linear calls.
  at::Tensor f_linear(const at::Tensor& input);

  // A deep copy of this type (torch::nn::Linear's own would be the base
  // type, which a Sequential holding this one cannot take back). A layer
  // under a recipe that keeps nothing between steps (tensorwise, rowwise,
  // mxfp8) gives its copy a fresh state of the same recipe, as torch's
  // replicate() keeps a Float8Linear's config: DataParallel's replicas run
  // in FP8, each with its own (unrecorded) casts. Delayed scaling's state
  // is the run's own: a copy runs in its own precision.
  std::shared_ptr<torch::nn::Module> clone(const std::optional<c10::Device>& device = std::nullopt) const override;

  // A layer its module reads by weight rather than through forward (as
  // torch.nn.MultiheadAttention reads out_proj's), which an FP8 recipe's
  // swap of the layer therefore never reaches: plan_fp8 leaves it out with
  // this reason. Empty for every other layer.
  void keep_in_own_precision(std::string why) { own_precision_reason_ = std::move(why); }
  const std::string& own_precision_reason() const { return own_precision_reason_; }

  // Null while the layer runs in its own precision.
  const fp8::Fp8LinearState* fp8_state() const { return fp8_.get(); }
  void set_fp8_state(std::shared_ptr<fp8::Fp8LinearState> state) { fp8_ = std::move(state); }

 private:
  std::shared_ptr<fp8::Fp8LinearState> fp8_;
  std::string own_precision_reason_;
};
TORCH_MODULE(Linear);

// The layers an FP8 recipe converts in `model`, with each other layer's
// reason (fp8::plan_conversion's, or the layer's own_precision_reason), and
// why the recipe cannot run on it ("" when it can): no convertible Linear,
// or a planned layer that is torch's own Linear.
struct Fp8Plan {
  std::vector<fp8::LinearChoice> layers;
  std::string refusal;
};
Fp8Plan plan_fp8(const torch::nn::Module& model, const fp8::ConversionOptions& options);

// One fresh state per converted layer of `plan`, on the layer's device, each
// attached to it; returns them in the plan's order. Throws std::invalid_argument
// naming the layer when a converted one is not this Linear (a torch::nn::Linear
// inside a torch module such as TransformerEncoderLayer cannot run in FP8).
std::vector<std::shared_ptr<fp8::Fp8LinearState>> attach_fp8(torch::nn::Module& model,
                                                             const std::vector<fp8::LinearChoice>& plan,
                                                             const fp8::RecipeOptions& recipe);

// Every layer back in its own precision.
void detach_fp8(torch::nn::Module& model);

}  // namespace ampbench
