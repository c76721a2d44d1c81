#include "models/model.h"

#include <ATen/ops/binary_cross_entropy_with_logits.h>
#include <ATen/ops/cross_entropy_loss.h>
#include <ATen/ops/mse_loss.h>
#include <ATen/core/Reduction.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/utils.h>

#include <mutex>
#include <set>

namespace ampbench {
namespace {

bool is_batchnorm(const torch::nn::Module& m) {
  return dynamic_cast<const torch::nn::BatchNorm1dImpl*>(&m) || dynamic_cast<const torch::nn::BatchNorm2dImpl*>(&m) ||
         dynamic_cast<const torch::nn::BatchNorm3dImpl*>(&m) || dynamic_cast<const BatchNormView*>(&m);
}

}  // namespace

bool has_batchnorm(const torch::nn::Module& module) {
  if (is_batchnorm(module)) return true;
  for (const auto& m : module.modules(/*include_self=*/false))
    if (is_batchnorm(*m)) return true;
  return false;
}

Model make_model(const ModelFamily& family, const ModelSizes& sizes, std::uint64_t seed, const c10::Device& device) {
  // Weights are drawn on the CPU from the seed so every device and precision
  // starts from identical parameters. Seeding the global generator and
  // drawing from it is one step: ranks run as threads (distributed tests)
  // build their models concurrently.
  static std::mutex seed_mutex;
  const std::lock_guard<std::mutex> lock(seed_mutex);
  torch::manual_seed(seed);
  return family.build(family, sizes, device);
}

Model to_channels_last(Model m) {
  const torch::NoGradGuard no_grad;
  for (const at::Tensor& p : m.module->parameters())
    if (p.dim() == 4) p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
  m.forward = [inner = m.forward](const at::Tensor& x) { return inner(x.contiguous(at::MemoryFormat::ChannelsLast)); };
  return m;
}

at::Tensor training_loss(const at::Tensor& out, const at::Tensor& labels, const LossSettings& loss) {
  switch (loss.kind) {
    case LossKind::kMse: return at::mse_loss(out, labels);
    case LossKind::kBceWithLogits: return at::binary_cross_entropy_with_logits(out, labels);
    case LossKind::kCrossEntropy: break;
  }
  const int64_t mean = at::Reduction::Mean, ignore_index = -100;
  if (out.dim() == 3)
    return at::cross_entropy_loss(out.flatten(0, 1), labels.flatten(), {}, mean, ignore_index, loss.label_smoothing);
  return at::cross_entropy_loss(out, labels, {}, mean, ignore_index, loss.label_smoothing);
}

void cast_model(Model& model, c10::ScalarType dtype, bool keep_batchnorm_fp32) {
  // LibTorch's Module::to(dtype) would also cast BatchNorm's integer step
  // counter; only floating tensors change, as Python's module.half().
  std::set<const c10::TensorImpl*> kept;
  if (keep_batchnorm_fp32)
    for (const auto& m : model.module->modules())
      if (is_batchnorm(*m)) {
        for (const at::Tensor& t : m->parameters()) kept.insert(t.unsafeGetTensorImpl());
        for (const at::Tensor& t : m->buffers()) kept.insert(t.unsafeGetTensorImpl());
      }
  const torch::NoGradGuard no_grad;
  auto cast = [&](at::Tensor t) {
    if (t.is_floating_point() && !kept.count(t.unsafeGetTensorImpl())) t.set_data(t.to(dtype));
  };
  for (const at::Tensor& p : model.module->parameters()) cast(p);
  for (const at::Tensor& b : model.module->buffers()) cast(b);
  auto in = [dtype](const at::Tensor& x) { return x.is_floating_point() ? x.to(dtype) : x; };
  model.forward = [inner = model.forward, in](const at::Tensor& x) { return inner(in(x)).to(at::kFloat); };
  if (model.attention_backend)
    model.attention_backend = [inner = model.attention_backend, in](const at::Tensor& x) { return inner(in(x)); };
}

}  // namespace ampbench
