// The fused gradient-health kernel: one launch over every tensor of a list.
//
// Work is split into chunks of kChunkElems elements; chunk c belongs to the
// segment whose [first_chunk, first_chunk + chunks) range holds it (binary
// search over the prefix sums). Blocks walk the chunks grid-stride; the
// threads of a block stride through one chunk (4-element vector loads when
// the segment is aligned), then one block reduction per chunk feeds four
// atomics into that segment's counters. Raw CUDA only: no LibTorch headers.
#include "kernels/grad_health_cuda.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ampbench::kernels::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kBlocksPerSm = 8;
constexpr double kMinSubnormal = 5.9604644775390625e-08;  // 2^-24
constexpr double kMax = 65504.0;

struct Acc {
  unsigned int nonfinite = 0;  // per thread and chunk: <= kChunkElems, fits
  unsigned int underflow = 0;
  unsigned int overflow = 0;
  double sum_squares = 0.0;
};

// Same arithmetic as the CPU reference (grad_health.cpp, classify()).
__device__ __forceinline__ void classify(float x, double scale, Acc& acc) {
  const double v = static_cast<double>(x) * scale;
  if (!isfinite(v)) {
    ++acc.nonfinite;
    return;
  }
  const double m = fabs(v);
  acc.underflow += (m != 0.0 && m < kMinSubnormal) ? 1u : 0u;
  acc.overflow += (m > kMax) ? 1u : 0u;
  acc.sum_squares = fma(v, v, acc.sum_squares);
}

__device__ __forceinline__ float half_bits_to_float(unsigned short bits) {
  return __half2float(__ushort_as_half(bits));
}
__device__ __forceinline__ float bf16_bits_to_float(unsigned short bits) {
  return __uint_as_float(static_cast<unsigned int>(bits) << 16);
}

__device__ __forceinline__ float load_scalar(const void* data, int32_t type, int64_t i) {
  if (type == kElemF32) return __ldg(static_cast<const float*>(data) + i);
  const unsigned short bits = __ldg(static_cast<const unsigned short*>(data) + i);
  return type == kElemF16 ? half_bits_to_float(bits) : bf16_bits_to_float(bits);
}

// Elements [begin, end) of one segment, begin a multiple of kChunkElems.
__device__ void accumulate_chunk(const Segment& seg, int64_t begin, int64_t end,
                                 double scale, Acc& acc) {
  const int64_t n = end - begin;
  if (seg.vector_ok) {
    const int64_t nvec = n / 4;
    if (seg.type == kElemF32) {
      const float4* p = reinterpret_cast<const float4*>(static_cast<const float*>(seg.data) + begin);
#pragma unroll 4
      for (int64_t i = threadIdx.x; i < nvec; i += kThreads) {
        const float4 q = __ldg(p + i);
        classify(q.x, scale, acc);
        classify(q.y, scale, acc);
        classify(q.z, scale, acc);
        classify(q.w, scale, acc);
      }
    } else {
      const uint2* p = reinterpret_cast<const uint2*>(
          static_cast<const unsigned short*>(seg.data) + begin);
      const bool half = seg.type == kElemF16;
#pragma unroll 4
      for (int64_t i = threadIdx.x; i < nvec; i += kThreads) {
        const uint2 q = __ldg(p + i);
        const unsigned short b[4] = {
            static_cast<unsigned short>(q.x & 0xffffu), static_cast<unsigned short>(q.x >> 16),
            static_cast<unsigned short>(q.y & 0xffffu), static_cast<unsigned short>(q.y >> 16)};
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          classify(half ? half_bits_to_float(b[k]) : bf16_bits_to_float(b[k]), scale, acc);
        }
      }
    }
    for (int64_t i = nvec * 4 + threadIdx.x; i < n; i += kThreads) {
      classify(load_scalar(seg.data, seg.type, begin + i), scale, acc);
    }
  } else {
    for (int64_t i = threadIdx.x; i < n; i += kThreads) {
      classify(load_scalar(seg.data, seg.type, begin + i), scale, acc);
    }
  }
}

__device__ __forceinline__ void warp_reduce(Acc& acc) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    acc.nonfinite += __shfl_down_sync(0xffffffffu, acc.nonfinite, offset);
    acc.underflow += __shfl_down_sync(0xffffffffu, acc.underflow, offset);
    acc.overflow += __shfl_down_sync(0xffffffffu, acc.overflow, offset);
    acc.sum_squares += __shfl_down_sync(0xffffffffu, acc.sum_squares, offset);
  }
}

// Block-wide sum of acc; thread 0 adds it to *out. Every thread must call.
__device__ void block_reduce_and_flush(Acc acc, SegmentStats* out) {
  __shared__ unsigned int s_nonfinite[kWarps];
  __shared__ unsigned int s_underflow[kWarps];
  __shared__ unsigned int s_overflow[kWarps];
  __shared__ double s_sum[kWarps];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  warp_reduce(acc);
  if (lane == 0) {
    s_nonfinite[warp] = acc.nonfinite;
    s_underflow[warp] = acc.underflow;
    s_overflow[warp] = acc.overflow;
    s_sum[warp] = acc.sum_squares;
  }
  __syncthreads();
  if (warp == 0) {
    Acc w;
    if (lane < kWarps) {
      w.nonfinite = s_nonfinite[lane];
      w.underflow = s_underflow[lane];
      w.overflow = s_overflow[lane];
      w.sum_squares = s_sum[lane];
    }
    warp_reduce(w);
    if (lane == 0) {
      if (w.nonfinite) atomicAdd(&out->nonfinite, static_cast<unsigned long long>(w.nonfinite));
      if (w.underflow) atomicAdd(&out->underflow_fp16, static_cast<unsigned long long>(w.underflow));
      if (w.overflow) atomicAdd(&out->overflow_fp16, static_cast<unsigned long long>(w.overflow));
      if (w.sum_squares != 0.0) atomicAdd(&out->sum_squares, w.sum_squares);
    }
  }
  __syncthreads();  // the shared arrays are reused by the next chunk
}

// Index of the segment owning chunk c: the last one with first_chunk <= c
// (empty segments share their successor's first_chunk and lose the tie).
__device__ __forceinline__ int32_t find_segment(const Segment* segments, int32_t count, int64_t c) {
  int32_t lo = 0, hi = count;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (segments[mid].first_chunk <= c) lo = mid; else hi = mid;
  }
  return lo;
}

__global__ void __launch_bounds__(kThreads)
grad_health_kernel(const Segment* __restrict__ segments, int32_t count, int64_t total_chunks,
                   SegmentStats* __restrict__ stats, double scale) {
  for (int64_t c = blockIdx.x; c < total_chunks; c += gridDim.x) {
    const int32_t s = find_segment(segments, count, c);
    const Segment seg = segments[s];
    const int64_t begin = (c - seg.first_chunk) * kChunkElems;
    const int64_t end = begin + kChunkElems < seg.numel ? begin + kChunkElems : seg.numel;
    Acc acc;
    accumulate_chunk(seg, begin, end, scale, acc);
    block_reduce_and_flush(acc, stats + s);
  }
}

}  // namespace

int launch_grad_health(const Segment* segments, int32_t count, int64_t total_chunks,
                       SegmentStats* stats, double scale, void* stream) {
  if (count <= 0 || total_chunks <= 0) return 0;
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  int sms = 0;
  if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
      e != cudaSuccess) {
    return e;
  }
  const int64_t max_blocks = static_cast<int64_t>(sms > 0 ? sms : 1) * kBlocksPerSm;
  const unsigned int blocks =
      static_cast<unsigned int>(total_chunks < max_blocks ? total_chunks : max_blocks);
  grad_health_kernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      segments, count, total_chunks, stats, scale);
  return cudaGetLastError();
}

const char* cuda_error_string(int error) {
  return cudaGetErrorString(static_cast<cudaError_t>(error));
}

}  // namespace ampbench::kernels::detail
