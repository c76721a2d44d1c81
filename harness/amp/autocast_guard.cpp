#include "amp/autocast_guard.h"

#include <ATen/autocast_mode.h>
#include <c10/util/Exception.h>

#include <utility>

namespace ampbench::amp {
namespace {

void check_autocast_dtype(at::DeviceType device_type, at::ScalarType dtype) {
  // Python warns and silently disables autocast here; a benchmark must not
  // silently run in float32, so this refuses instead.
  TORCH_CHECK_VALUE(dtype == at::kHalf || dtype == at::kBFloat16, "AutocastGuard: autocast on ",
                    c10::DeviceTypeName(device_type),
                    " supports float16 and bfloat16 only, got ", dtype);
}

}  // namespace

AutocastGuard::AutocastGuard(at::DeviceType device_type, std::optional<at::ScalarType> dtype,
                             bool enabled)
    : device_type_(device_type) {
  TORCH_CHECK_VALUE(at::autocast::is_autocast_available(device_type),
                    "AutocastGuard: autocast is not available for device type ",
                    c10::DeviceTypeName(device_type));
  const at::ScalarType fast_dtype = dtype.value_or(at::autocast::get_autocast_dtype(device_type));
  if (enabled) check_autocast_dtype(device_type, fast_dtype);
  // Nothing below throws: the state is changed only once it is all valid.
  prev_enabled_ = at::autocast::is_autocast_enabled(device_type);
  prev_dtype_ = at::autocast::get_autocast_dtype(device_type);
  at::autocast::set_autocast_enabled(device_type, enabled);
  at::autocast::set_autocast_dtype(device_type, fast_dtype);
  at::autocast::increment_nesting();
  // LibTorch's cast cache is keyed by the source tensor alone, not by the
  // target dtype: a region that switches dtype would otherwise be handed the
  // enclosing region's casts (an addmm of bfloat16 and float16 operands).
  // Python has this hazard; clearing costs only a re-cast of the weights.
  dtype_changed_ = fast_dtype != prev_dtype_;
  if (dtype_changed_) at::autocast::clear_cache();
}

AutocastGuard::~AutocastGuard() {
  const bool outermost = at::autocast::decrement_nesting() == 0;
  if (outermost || dtype_changed_) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_type_, prev_enabled_);
  at::autocast::set_autocast_dtype(device_type_, prev_dtype_);
}

AutocastState AutocastState::capture() {
  return AutocastState(at::ThreadLocalState(), at::autocast::is_autocast_cache_enabled());
}

AutocastStateGuard::AutocastStateGuard(const AutocastState& state)
    : tls_guard_(state.tls_), prev_cache_enabled_(at::autocast::is_autocast_cache_enabled()) {
  at::autocast::set_autocast_cache_enabled(state.cache_enabled_);
  at::autocast::increment_nesting();
}

AutocastStateGuard::~AutocastStateGuard() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_cache_enabled(prev_cache_enabled_);
  // tls_guard_ then restores the worker's dispatch keys and autocast dtypes.
}

}  // namespace ampbench::amp
