// DeviceTimer: the one place that knows how to time on each device. GPU work
// is asynchronous, so the clock is only read after the device has finished
// (otherwise a one-second step can read as zero).
#pragma once

#include <c10/core/Device.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

namespace ampbench {

// On CUDA: CUDA events recorded on the current stream around the region,
// read after the end event completes, with a device synchronize before the
// start so earlier work is not counted. On CPU: a steady clock.
class DeviceTimer {
 public:
  explicit DeviceTimer(const c10::Device& device);
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;

  void start();
  // Seconds since start(), after the device finished the region's work.
  double stop();

  // What the results file records as the timing method.
  const char* method() const;

 private:
  struct CudaEvents;  // defined where the CUDA headers are included
  c10::Device device_;
  std::chrono::steady_clock::time_point begin_;
  std::unique_ptr<CudaEvents> events_;
};

// Blocks until all queued work on `device` has finished (no-op on CPU).
void synchronize(const c10::Device& device);

// Resets the device's peak-memory counter (CUDA only).
void reset_peak_memory(const c10::Device& device);

// Peak memory since the last reset: the CUDA caching allocator's peak on
// CUDA, the process's max RSS on CPU.
int64_t peak_memory_bytes(const c10::Device& device);

}  // namespace ampbench
