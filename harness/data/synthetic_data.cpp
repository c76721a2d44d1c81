#include "data/synthetic_data.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/embedding.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/where.h>

#include <functional>

#include "spec/model_family.h"

namespace ampbench {
namespace {

// A fixed random 2-layer tanh network: the labeller of every kind of input.
struct Teacher {
  at::Tensor w1, w2;

  Teacher(int64_t in_features, int64_t classes, at::Generator& gen) {
    const int64_t hidden = 64;
    w1 = at::randn({in_features, hidden}, gen) / std::sqrt(static_cast<double>(in_features));
    w2 = at::randn({hidden, classes}, gen) / std::sqrt(static_cast<double>(hidden));
  }

  at::Tensor logits(const at::Tensor& features) const { return at::tanh(features.matmul(w1)).matmul(w2); }
};

// The targets the loss compares the output with: the teacher's class
// (cross-entropy), its positive logits as multi-hot floats (BCE-with-logits),
// or standard normal floats drawn after the inputs (MSE), as PyTorch's own
// grad-scaling tests draw their regression targets.
using Labeller = std::function<at::Tensor(const at::Tensor& features, at::Generator& gen)>;

Labeller labeller(std::shared_ptr<Teacher> teacher, LossKind loss, int64_t classes) {
  switch (loss) {
    case LossKind::kMse:
      return [classes](const at::Tensor& f, at::Generator& g) { return at::randn({f.size(0), classes}, g); };
    case LossKind::kBceWithLogits:
      return [teacher](const at::Tensor& f, at::Generator&) { return (teacher->logits(f) > 0).to(at::kFloat); };
    case LossKind::kCrossEntropy: break;
  }
  return [teacher](const at::Tensor& f, at::Generator&) { return at::argmax(teacher->logits(f), 1); };
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Draws one global batch (inputs, labels) from the generator.
using Draw = std::function<Batch(int64_t global, at::Generator& gen)>;

// Gaussian features or images, labelled from the flattened sample.
Draw float_inputs(const ModelFamily& family, const ModelSizes& sizes, LossKind loss, at::Generator& gen) {
  const std::vector<int64_t> sample = family.sample_shape(sizes);
  const Labeller label = labeller(std::make_shared<Teacher>(numel(sample), sizes.classes, gen), loss, sizes.classes);
  return [sample, label](int64_t global, at::Generator& g) {
    std::vector<int64_t> shape = {global};
    shape.insert(shape.end(), sample.begin(), sample.end());
    const at::Tensor x = at::randn(shape, g);
    return Batch{x, label(x.flatten(1), g)};
  };
}

// Token ids in [1, vocab) followed, when the family pads, by id 0 up to seq
// from a length drawn in [seq/2, seq]; labelled from the mean of a random
// embedding over the tokens that are not padding.
Draw classified_tokens(const ModelFamily& family, const ModelSizes& sizes, LossKind loss, at::Generator& gen) {
  const int64_t dim = 16;
  auto table = std::make_shared<at::Tensor>(at::randn({sizes.vocab, dim}, gen));
  const Labeller label = labeller(std::make_shared<Teacher>(dim, sizes.classes, gen), loss, sizes.classes);
  const bool padded = family.padded_tokens;
  const int64_t seq = sizes.seq, vocab = sizes.vocab;
  return [=](int64_t global, at::Generator& g) {
    at::Tensor ids = at::randint(1, vocab, {global, seq}, g);
    if (padded) {
      const at::Tensor length = at::randint((seq + 1) / 2, seq + 1, {global, 1}, g);
      ids = at::where(at::arange(seq).unsqueeze(0) < length, ids, at::zeros_like(ids));
    }
    const at::Tensor real = (ids != 0).to(at::kFloat).unsqueeze(-1);
    const at::Tensor mean = (at::embedding(*table, ids) * real).sum(1) / real.sum(1);
    return Batch{ids, label(mean, g)};
  };
}

// seq + 1 tokens of a random Markov chain (each token's successor fixed by a
// random permutation, replaced by a uniform token one time in four, so the
// next token is learnable but not certain); the inputs are the first seq,
// the labels the last seq.
Draw next_tokens(const ModelSizes& sizes, at::Generator& gen) {
  auto successor = std::make_shared<at::Tensor>(at::randperm(sizes.vocab, gen));
  const int64_t seq = sizes.seq, vocab = sizes.vocab;
  return [=](int64_t global, at::Generator& g) {
    std::vector<at::Tensor> tokens = {at::randint(0, vocab, {global}, g)};
    for (int64_t t = 0; t < seq; ++t) {
      const at::Tensor noise = at::randint(0, vocab, {global}, g);
      const at::Tensor keep = at::rand({global}, g) < 0.75;
      tokens.push_back(at::where(keep, successor->index_select(0, tokens.back()), noise));
    }
    const at::Tensor ids = at::stack(tokens, 1);
    return Batch{ids.narrow(1, 0, seq), ids.narrow(1, 1, seq)};
  };
}

Draw drawer(const ModelFamily& family, const ModelSizes& sizes, LossKind loss, at::Generator& gen) {
  if (family.input == InputKind::kFloat) return float_inputs(family, sizes, loss, gen);
  if (family.target == TargetKind::kNextToken) return next_tokens(sizes, gen);
  return classified_tokens(family, sizes, loss, gen);
}

}  // namespace

SyntheticData::SyntheticData(const DataOptions& options, const c10::Device& device) : device_(device) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(options.seed);
  const Draw draw = drawer(*options.model, options.sizes, options.loss, gen);

  // Every rank draws the same global batch and keeps its own slice, so W
  // ranks with batch B see exactly what one process with batch W*B sees.
  const int64_t local = options.sizes.batch;
  const int64_t global = local * options.world_size;
  const bool pin = device.is_cuda();
  for (int i = 0; i < options.distinct_batches; ++i) {
    const Batch all = draw(global, gen);
    Batch b{all.inputs.narrow(0, options.rank * local, local).contiguous(),
            all.labels.narrow(0, options.rank * local, local).contiguous()};
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
