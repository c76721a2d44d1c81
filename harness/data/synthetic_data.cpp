#include "data/synthetic_data.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tanh.h>

#include "models/model.h"

namespace ampbench {
namespace {

// The teacher: a fixed random 2-layer tanh network on the flattened input.
struct Teacher {
  at::Tensor w1, w2;

  Teacher(int64_t in_features, int64_t classes, at::Generator& gen) {
    const int64_t hidden = 64;
    w1 = at::randn({in_features, hidden}, gen) / std::sqrt(static_cast<double>(in_features));
    w2 = at::randn({hidden, classes}, gen) / std::sqrt(static_cast<double>(hidden));
  }

  at::Tensor label(const at::Tensor& x) const {
    return at::argmax(at::tanh(x.flatten(1).matmul(w1)).matmul(w2), 1);
  }
};

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace

SyntheticData::SyntheticData(const DataOptions& options, const c10::Device& device) : device_(device) {
  const std::vector<int64_t> sample = options.model->sample_shape(options.sizes);
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(options.seed);
  const Teacher teacher(numel(sample), options.sizes.classes, gen);

  // Every rank draws the same global batch and keeps its own slice, so W
  // ranks with batch B see exactly what one process with batch W*B sees.
  const int64_t local = options.sizes.batch;
  const int64_t global = local * options.world_size;
  std::vector<int64_t> shape = {global};
  shape.insert(shape.end(), sample.begin(), sample.end());
  const bool pin = device.is_cuda();
  for (int i = 0; i < options.distinct_batches; ++i) {
    const at::Tensor x = at::randn(shape, gen);
    const at::Tensor y = teacher.label(x);
    Batch b{x.narrow(0, options.rank * local, local).contiguous(),
            y.narrow(0, options.rank * local, local).contiguous()};
    if (pin) b = {b.inputs.pin_memory(), b.labels.pin_memory()};
    host_.push_back(b);
  }
  cached_ = {host_[0].inputs.to(device), host_[0].labels.to(device)};
}

Batch SyntheticData::host_to_device(int index) const {
  const Batch& b = host(index);
  return {b.inputs.to(device_, /*non_blocking=*/true), b.labels.to(device_, /*non_blocking=*/true)};
}

}  // namespace ampbench
