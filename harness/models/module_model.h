// Wraps a LibTorch module holder as a Model: what each family's build does.
// A template because DataParallel's replicate needs the concrete Cloneable
// type, which only the family's own file knows.
#pragma once

#include <torch/nn/parallel/data_parallel.h>

#include <utility>
#include <vector>

#include "models/model.h"

namespace ampbench {

template <typename Holder>
Model module_model(const ModelFamily& family, Holder holder, const c10::Device& device) {
  holder->to(device);
  Model m;
  m.family = &family;
  m.module = holder.ptr();
  m.forward = [impl = holder.ptr()](const at::Tensor& x) { return impl->forward(x); };
  if (family.replicable)
    m.replicate = [impl = holder.ptr()](const std::vector<c10::Device>& devices) {
      std::vector<Model::Forward> forwards;
      for (auto& replica : torch::nn::parallel::replicate(impl, devices))
        forwards.emplace_back([replica = std::move(replica)](const at::Tensor& x) { return replica->forward(x); });
      return forwards;
    };
  return m;
}

}  // namespace ampbench
