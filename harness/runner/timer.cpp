#include "runner/timer.h"

#include <sys/resource.h>

#ifdef AMPBENCH_HAVE_CUDA
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace ampbench {

void synchronize(const c10::Device& device) {
#ifdef AMPBENCH_HAVE_CUDA
  if (device.is_cuda()) c10::cuda::device_synchronize();
#else
  (void)device;
#endif
}

#ifdef AMPBENCH_HAVE_CUDA
struct DeviceTimer::CudaEvents {
  c10::cuda::CUDAEvent begin{cudaEventDefault};
  c10::cuda::CUDAEvent end{cudaEventDefault};
};
#else
struct DeviceTimer::CudaEvents {};
#endif

DeviceTimer::DeviceTimer(const c10::Device& device) : device_(device) {
#ifdef AMPBENCH_HAVE_CUDA
  if (device_.is_cuda()) events_ = std::make_unique<CudaEvents>();
#endif
}

DeviceTimer::~DeviceTimer() = default;

const char* DeviceTimer::method() const { return events_ ? "cuda_events" : "steady_clock"; }

void DeviceTimer::start() {
  synchronize(device_);
  begin_ = std::chrono::steady_clock::now();
#ifdef AMPBENCH_HAVE_CUDA
  if (events_) events_->begin.record(c10::cuda::getCurrentCUDAStream(device_.index()));
#endif
}

double DeviceTimer::stop() {
#ifdef AMPBENCH_HAVE_CUDA
  if (events_) {
    events_->end.record(c10::cuda::getCurrentCUDAStream(device_.index()));
    events_->end.synchronize();
    synchronize(device_);  // work queued on other streams (DataParallel replicas)
    return events_->begin.elapsed_time(events_->end) / 1000.0;
  }
#endif
  synchronize(device_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
}

void reset_peak_memory(const c10::Device& device) {
#ifdef AMPBENCH_HAVE_CUDA
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(device.index() < 0 ? 0 : device.index());
#else
  (void)device;
#endif
}

int64_t peak_memory_bytes(const c10::Device& device) {
#ifdef AMPBENCH_HAVE_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index() < 0 ? 0 : device.index());
    return stats.allocated_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)].peak;
  }
#else
  (void)device;
#endif
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace ampbench
