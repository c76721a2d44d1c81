// Autocast regions in C++: the RAII equivalent of Python's
// `with torch.autocast(device_type, dtype, enabled):`, and the means to carry
// an autocast region into worker threads (autocast state is thread-local).
#pragma once

#include <ATen/ThreadLocalState.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <optional>
#include <utility>

namespace ampbench::amp {

// Enables (or, with enabled=false, disables) autocast for one device type for
// the guard's lifetime and restores the previous flag and dtype on exit.
// Regions nest; the cast cache is cleared when the outermost region exits, as
// Python does, so cast weights do not outlive the forward pass. Unlike
// Python, it is also cleared when a nested region switches the dtype (on
// entry and exit): LibTorch's cache does not key casts by dtype.
class AutocastGuard {
 public:
  // dtype: float16 or bfloat16; nullopt keeps the device type's current
  // autocast dtype (by default float16 on CUDA, bfloat16 on CPU).
  explicit AutocastGuard(at::DeviceType device_type,
                         std::optional<at::ScalarType> dtype = std::nullopt, bool enabled = true);
  ~AutocastGuard();

  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;
  AutocastGuard(AutocastGuard&&) = delete;
  AutocastGuard& operator=(AutocastGuard&&) = delete;

 private:
  at::DeviceType device_type_;
  bool prev_enabled_;
  at::ScalarType prev_dtype_;
  bool dtype_changed_ = false;
};

// The calling thread's autocast state, to be applied in worker threads (e.g.
// DataParallel's per-device forward threads). LibTorch's at::ThreadLocalState
// already carries autocast: the enabled flags live in the thread-local
// dispatch-key set and the dtypes in its autocast_dtypes_. It also carries
// grad mode and inference mode, which such workers need as well. It lacks
// the cast-cache flag, which is captured beside it.
class AutocastState {
 public:
  static AutocastState capture();

 private:
  friend class AutocastStateGuard;
  AutocastState(at::ThreadLocalState tls, bool cache_enabled)
      : tls_(std::move(tls)), cache_enabled_(cache_enabled) {}

  at::ThreadLocalState tls_;
  bool cache_enabled_;
};

// Applies a captured AutocastState in the current (worker) thread and
// restores the worker's own state on exit. Counts as an autocast region of
// the worker (nesting is per thread), so the cast cache is cleared when the
// worker's outermost region exits, as Python's DataParallel workers do with
// their own `with autocast(...)`. (Recent LibTorch keeps the cache itself in
// one process-wide map, so a worker's exit also drops the parent's casts:
// a re-cast, not a wrong result.)
class AutocastStateGuard {
 public:
  explicit AutocastStateGuard(const AutocastState& state);
  ~AutocastStateGuard();

  AutocastStateGuard(const AutocastStateGuard&) = delete;
  AutocastStateGuard& operator=(const AutocastStateGuard&) = delete;
  AutocastStateGuard(AutocastStateGuard&&) = delete;
  AutocastStateGuard& operator=(AutocastStateGuard&&) = delete;

 private:
  at::ThreadLocalStateGuard tls_guard_;
  bool prev_cache_enabled_;
};

}  // namespace ampbench::amp
