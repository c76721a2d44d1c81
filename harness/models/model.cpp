#include "models/model.h"

#include <torch/nn/modules/batchnorm.h>
#include <torch/utils.h>

#include <mutex>
#include <set>
#include <stdexcept>

#include "models/cnn.h"
#include "models/decoder.h"
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

// NHWC weights and inputs: cuDNN's tensor-core convolutions read them
// without transposes.
Model channels_last(Model m) {
  const torch::NoGradGuard no_grad;
  for (const at::Tensor& p : m.module->parameters())
    if (p.dim() == 4) p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
  m.forward = [inner = m.forward](const at::Tensor& x) { return inner(x.contiguous(at::MemoryFormat::ChannelsLast)); };
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
  if (family == "cnn") return sizes.channels_last ? channels_last(wrap(family, Cnn(sizes), device))
                                                  : wrap(family, Cnn(sizes), device);
  if (family == "transformer") return wrap(family, Transformer(sizes), device);
  if (family == "decoder") {
    Model m = wrap(family, Decoder(sizes), device);
    m.attention_backend = [impl = std::static_pointer_cast<DecoderImpl>(m.module)](const at::Tensor& x) {
      return impl->attention_backend(x);
    };
    return m;
  }
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
  auto in = [dtype](const at::Tensor& x) { return x.is_floating_point() ? x.to(dtype) : x; };
  model.forward = [inner = model.forward, in](const at::Tensor& x) { return inner(in(x)).to(at::kFloat); };
  if (model.attention_backend)
    model.attention_backend = [inner = model.attention_backend, in](const at::Tensor& x) { return inner(in(x)); };
}

std::vector<int64_t> input_shape(const std::string& family, const ModelSizes& sizes) {
  if (family == "mlp") return {sizes.in_features};
  if (family == "cnn") return {kCnnInputChannels, sizes.image, sizes.image};
  if (family == "transformer" || family == "decoder") return {sizes.seq, sizes.d_model};
  throw std::invalid_argument("unknown model '" + family + "'");
}

}  // namespace ampbench
