// Internal: the raw-CUDA side of grad_health (grad_health.cu), kept free of
// LibTorch headers so nvcc never parses them. grad_health.cpp does the
// at::Tensor plumbing and calls launch_grad_health. Not a public header.
#pragma once

#include <cstdint>

namespace ampbench::kernels::detail {

enum ElemType : int32_t { kElemF32 = 0, kElemF16 = 1, kElemBF16 = 2 };

// Elements handled by one block-iteration of the kernel (a "chunk"). A
// tensor of n elements owns ceil(n / kChunkElems) consecutive chunks.
inline constexpr int64_t kChunkElems = 32768;

// One input tensor as the kernel sees it (device memory, contiguous).
struct Segment {
  const void* data;     // first element
  int64_t numel;
  int64_t first_chunk;  // prefix sum of the chunk counts of earlier segments
  int32_t type;         // ElemType
  int32_t vector_ok;    // 1: data aligned for 4-element vector loads
};
static_assert(sizeof(Segment) == 32, "Segment is copied byte-wise from host to device");

// Per-tensor accumulators in device memory, zero-initialised by the caller.
struct SegmentStats {
  unsigned long long nonfinite;
  unsigned long long underflow_fp16;
  unsigned long long overflow_fp16;
  double sum_squares;  // of the finite v = x * scale
};
static_assert(sizeof(SegmentStats) == 32, "SegmentStats is read back as 4 x 8 bytes");

// Launches the kernel on `stream` (a cudaStream_t) of the current device.
// segments/stats are device pointers to `count` entries; total_chunks is the
// sum of all chunk counts. Returns the cudaError_t of the launch as int
// (0: success). Asynchronous: the caller reads stats back on the stream.
int launch_grad_health(const Segment* segments, int32_t count, int64_t total_chunks,
                       SegmentStats* stats, double scale, void* stream);

// cudaGetErrorString for an error returned by launch_grad_health.
const char* cuda_error_string(int error);

}  // namespace ampbench::kernels::detail
