#include "models/model.h"

#include <torch/nn/modules/batchnorm.h>
#include <torch/utils.h>

#include <mutex>
#include <set>
#include <stdexcept>

#include "models/cnn.h"
#include "models/mlp.h"
#include "models/transformer.h"

namespace ampbench {
namespace {

template <typename Holder>
Model wrap(const std::string& family, Holder holder, const c10::Device& device) {
  holder->to(device);
  Model m;
  m.family = family;
  m.module = holder.ptr();
  m.forward = [impl = holder.ptr()](const at::Tensor& x) { return impl->forward(x); };
  return m;
}

bool is_batchnorm(const torch::nn::Module& m) {
  return dynamic_cast<const torch::nn::BatchNorm1dImpl*>(&m) || dynamic_cast<const torch::nn::BatchNorm2dImpl*>(&m) ||
         dynamic_cast<const torch::nn::BatchNorm3dImpl*>(&m);
}

}  // namespace

Model make_model(const std::string& family, const ModelSizes& sizes, std::uint64_t seed,
                 const c10::Device& device) {
  // Weights are drawn on the CPU from the seed so every device and precision
  // starts from identical parameters. Seeding the global generator and
  // drawing from it is one step: ranks run as threads (distributed tests)
  // build their models concurrently.
  static std::mutex seed_mutex;
  const std::lock_guard<std::mutex> lock(seed_mutex);
  torch::manual_seed(seed);
  if (family == "mlp") return wrap(family, Mlp(sizes), device);
  if (family == "cnn") return wrap(family, Cnn(sizes), device);
  if (family == "transformer") return wrap(family, Transformer(sizes), device);
  throw std::invalid_argument("unknown model '" + family + "'");
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
  model.forward = [inner = model.forward, dtype](const at::Tensor& x) {
    return inner(x.is_floating_point() ? x.to(dtype) : x).to(at::kFloat);
  };
}

std::vector<int64_t> input_shape(const std::string& family, const ModelSizes& sizes) {
  if (family == "mlp") return {sizes.in_features};
  if (family == "cnn") return {kCnnInputChannels, sizes.image, sizes.image};
  if (family == "transformer") return {sizes.seq, sizes.d_model};
  throw std::invalid_argument("unknown model '" + family + "'");
}

}  // namespace ampbench
