#include "models/model.h"

#include <torch/utils.h>

#include <mutex>
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

std::vector<int64_t> input_shape(const std::string& family, const ModelSizes& sizes) {
  if (family == "mlp") return {sizes.in_features};
  if (family == "cnn") return {kCnnInputChannels, sizes.image, sizes.image};
  if (family == "transformer") return {sizes.seq, sizes.d_model};
  throw std::invalid_argument("unknown model '" + family + "'");
}

}  // namespace ampbench
