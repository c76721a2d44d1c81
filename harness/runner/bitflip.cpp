#include "runner/bitflip.h"

#include <ATen/ops/abs.h>
#include <ATen/ops/argmax.h>

#include <memory>

namespace ampbench {

at::Tensor flip_low_mantissa_bit(const at::Tensor& t) {
  if (!t.defined() || !t.is_floating_point() || t.numel() == 0) return t;
  const int64_t size = t.element_size();
  if (size != 2 && size != 4) return t;
  at::Tensor out = t.detach().clone(at::MemoryFormat::Contiguous);
  const int64_t at_index = out.reshape(-1).abs().argmax().item<int64_t>();
  // The same bytes seen as integers, whose bit 0 is the mantissa's lowest.
  at::Tensor bits = out.view({-1}).view(size == 4 ? at::kInt : at::kShort);
  bits.narrow(0, at_index, 1).bitwise_xor_(size == 4 ? 1 << 13 : 1);
  return out;
}

GradientBitflip::GradientBitflip(at::Tensor param) : param_(std::move(param)) {
  auto fired = std::make_shared<bool>(false);
  hook_ = param_.register_hook([fired](const at::Tensor& grad) -> at::Tensor {
    if (*fired) return at::Tensor();  // undefined: the gradient as computed
    *fired = true;
    return flip_low_mantissa_bit(grad);
  });
}

GradientBitflip::~GradientBitflip() { param_.remove_hook(hook_); }

}  // namespace ampbench
