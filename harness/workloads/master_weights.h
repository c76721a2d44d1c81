// O2's float32 master weights: the optimizer updates float32 copies of a
// float16 model's parameters. After backward the model's float16 gradients
// are added into the masters' float32 gradients (so micro-batches accumulate
// in float32), the scaler and clipping act on those, and after the step the
// masters are rounded back into the model for the next forward.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace ampbench {

class MasterWeights {
 public:
  // From the model's parameters while they are still float32: the masters
  // start from the very initialisation the fp32 baseline starts from (Apex
  // copies the already-cast float16 model instead, an offset of up to half
  // an fp16 ulp per weight before the first step). The handles stay bound to
  // the model's parameters when the model is cast in place afterwards.
  explicit MasterWeights(std::vector<at::Tensor> model_params);

  // The tensors the optimizer updates, in the model's parameter order.
  const std::vector<at::Tensor>& params() const { return masters_; }

  // master.grad += float32(model.grad); the model's gradients are cleared,
  // so the next backward starts from zero as the masters' zero_grad says.
  void accumulate_grads();

  // model <- masters, rounded to the model's dtype.
  void publish() const;

 private:
  std::vector<at::Tensor> model_;
  std::vector<at::Tensor> masters_;
};

}  // namespace ampbench
