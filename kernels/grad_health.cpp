#include "kernels/grad_health.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/core/ScalarType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Exception.h>
#include <c10/util/Half.h>
#include "core/json.h"  // nlohmann/json, version-checked

#ifdef AMPBENCH_KERNELS_CUDA
#include "kernels/grad_health_cuda.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

namespace ampbench::kernels {
namespace {

struct Acc {
  int64_t nonfinite = 0;
  int64_t underflow = 0;
  int64_t overflow = 0;
  double sum_squares = 0.0;
};

// Same arithmetic as the kernel (grad_health.cu, classify()).
inline void classify(float x, double scale, Acc& acc) {
  const double v = static_cast<double>(x) * scale;
  if (!std::isfinite(v)) {
    ++acc.nonfinite;
    return;
  }
  const double m = std::fabs(v);
  acc.underflow += (m != 0.0 && m < kFp16MinSubnormal) ? 1 : 0;
  acc.overflow += (m > kFp16Max) ? 1 : 0;
  acc.sum_squares += v * v;
}

template <typename T>
Acc accumulate(const T* data, int64_t n, double scale) {
  Acc acc;
  for (int64_t i = 0; i < n; ++i) classify(static_cast<float>(data[i]), scale, acc);
  return acc;
}

void check_inputs(const std::vector<at::Tensor>& grads, double scale) {
  TORCH_CHECK(std::isfinite(scale), "grad_health: scale must be finite, got ", scale);
  for (size_t i = 0; i < grads.size(); ++i) {
    const at::Tensor& g = grads[i];
    if (!g.defined()) continue;
    TORCH_CHECK(g.layout() == c10::kStrided, "grad_health: tensor ", i,
                " has layout ", g.layout(), "; only strided (dense) tensors are supported");
    const auto st = g.scalar_type();
    TORCH_CHECK(st == c10::kFloat || st == c10::kHalf || st == c10::kBFloat16,
                "grad_health: tensor ", i, " has dtype ", st,
                "; expected float32, float16 or bfloat16");
    TORCH_CHECK(g.device().is_cpu() || g.device().is_cuda(), "grad_health: tensor ", i,
                " is on ", g.device(), "; only CPU and CUDA tensors are supported");
  }
}

TensorHealth to_health(int64_t numel, int64_t nonfinite, int64_t underflow, int64_t overflow,
                       double sum_squares) {
  TensorHealth h;
  h.numel = numel;
  h.nonfinite = nonfinite;
  h.underflow_fp16 = underflow;
  h.overflow_fp16 = overflow;
  h.l2_norm = std::sqrt(sum_squares);
  return h;
}

TensorHealth reference_one(const at::Tensor& grad, double scale) {
  if (!grad.defined() || grad.numel() == 0) return {};
  const at::Tensor t = grad.device().is_cpu() ? grad.contiguous() : grad.cpu().contiguous();
  const int64_t n = t.numel();
  Acc acc;
  switch (t.scalar_type()) {
    case c10::kFloat: acc = accumulate(t.const_data_ptr<float>(), n, scale); break;
    case c10::kHalf: acc = accumulate(t.const_data_ptr<c10::Half>(), n, scale); break;
    case c10::kBFloat16: acc = accumulate(t.const_data_ptr<c10::BFloat16>(), n, scale); break;
    default: TORCH_CHECK(false, "grad_health: unsupported dtype ", t.scalar_type());
  }
  return to_health(n, acc.nonfinite, acc.underflow, acc.overflow, acc.sum_squares);
}

void fill_total(GradHealth& out) {
  double sum_squares = 0.0;
  TensorHealth total;
  for (const TensorHealth& h : out.per_tensor) {
    total.numel += h.numel;
    total.nonfinite += h.nonfinite;
    total.underflow_fp16 += h.underflow_fp16;
    total.overflow_fp16 += h.overflow_fp16;
    sum_squares += h.l2_norm * h.l2_norm;
  }
  total.l2_norm = std::sqrt(sum_squares);
  out.total = total;
}

#ifdef AMPBENCH_KERNELS_CUDA
// All the listed tensors are on `device` (CUDA); one launch for all of them.
void cuda_group(const std::vector<at::Tensor>& grads, const std::vector<size_t>& indices,
                c10::Device device, double scale, GradHealth& out) {
  const c10::cuda::CUDAGuard guard(device);
  std::vector<at::Tensor> keep_alive;  // contiguous copies live until the kernel is done
  keep_alive.reserve(indices.size());
  std::vector<detail::Segment> segments;
  segments.reserve(indices.size());
  int64_t total_chunks = 0;
  for (const size_t i : indices) {
    at::Tensor t = grads[i].contiguous();
    detail::Segment s{};
    s.data = t.const_data_ptr();
    s.numel = t.numel();
    s.first_chunk = total_chunks;
    switch (t.scalar_type()) {
      case c10::kFloat: s.type = detail::kElemF32; break;
      case c10::kHalf: s.type = detail::kElemF16; break;
      default: s.type = detail::kElemBF16; break;
    }
    const auto address = reinterpret_cast<std::uintptr_t>(s.data);
    s.vector_ok = (address % (4 * t.element_size()) == 0) ? 1 : 0;
    total_chunks += (s.numel + detail::kChunkElems - 1) / detail::kChunkElems;
    segments.push_back(s);
    keep_alive.push_back(std::move(t));
  }
  const auto count = static_cast<int32_t>(segments.size());
  TORCH_CHECK(segments.size() < static_cast<size_t>(INT32_MAX), "grad_health: too many tensors");
  if (total_chunks == 0) {  // only empty tensors
    for (const size_t i : indices) out.per_tensor[i] = {};
    return;
  }

  // Segment table: host bytes -> device (stream-ordered on the current stream).
  const auto table_bytes = static_cast<int64_t>(segments.size() * sizeof(detail::Segment));
  at::Tensor host_table = at::empty({table_bytes}, at::TensorOptions().dtype(c10::kByte));
  std::memcpy(host_table.mutable_data_ptr(), segments.data(), static_cast<size_t>(table_bytes));
  const at::Tensor device_table = host_table.to(device);
  // 4 x 8 bytes per tensor; all-zero bits are 0 counts and 0.0 sums.
  at::Tensor stats = at::zeros({static_cast<int64_t>(segments.size()) * 4},
                               at::TensorOptions().dtype(c10::kLong).device(device));

  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(device.index());
  const int error = detail::launch_grad_health(
      static_cast<const detail::Segment*>(device_table.const_data_ptr()), count, total_chunks,
      static_cast<detail::SegmentStats*>(stats.mutable_data_ptr()), scale, stream.stream());
  TORCH_CHECK(error == 0, "grad_health: CUDA kernel launch failed: ",
              detail::cuda_error_string(error));

  const at::Tensor host_stats = stats.cpu();  // waits for the kernel
  const auto* raw = static_cast<const detail::SegmentStats*>(host_stats.const_data_ptr());
  for (size_t k = 0; k < indices.size(); ++k) {
    const detail::SegmentStats& s = raw[k];
    out.per_tensor[indices[k]] =
        to_health(segments[k].numel, static_cast<int64_t>(s.nonfinite),
                  static_cast<int64_t>(s.underflow_fp16), static_cast<int64_t>(s.overflow_fp16),
                  s.sum_squares);
  }
}
#endif

}  // namespace

bool grad_health_has_cuda_kernel() {
#ifdef AMPBENCH_KERNELS_CUDA
  return true;
#else
  return false;
#endif
}

GradHealth grad_health_reference(const std::vector<at::Tensor>& grads, double scale) {
  check_inputs(grads, scale);
  GradHealth out;
  out.per_tensor.reserve(grads.size());
  for (const at::Tensor& g : grads) out.per_tensor.push_back(reference_one(g, scale));
  fill_total(out);
  return out;
}

GradHealth grad_health(const std::vector<at::Tensor>& grads, double scale) {
#ifdef AMPBENCH_KERNELS_CUDA
  check_inputs(grads, scale);
  GradHealth out;
  out.per_tensor.resize(grads.size());
  std::map<c10::DeviceIndex, std::vector<size_t>> cuda_groups;
  for (size_t i = 0; i < grads.size(); ++i) {
    const at::Tensor& g = grads[i];
    if (g.defined() && g.device().is_cuda()) {
      cuda_groups[g.device().index()].push_back(i);
    } else {
      out.per_tensor[i] = reference_one(g, scale);
    }
  }
  for (const auto& [index, indices] : cuda_groups) {
    cuda_group(grads, indices, c10::Device(c10::kCUDA, index), scale, out);
  }
  fill_total(out);
  return out;
#else
  return grad_health_reference(grads, scale);
#endif
}

void to_json(nlohmann::json& j, const TensorHealth& h) {
  j = nlohmann::json{{"numel", h.numel},
                     {"nonfinite", h.nonfinite},
                     {"underflow_fp16", h.underflow_fp16},
                     {"overflow_fp16", h.overflow_fp16},
                     {"l2_norm", h.l2_norm}};
}

void to_json(nlohmann::json& j, const GradHealth& h) {
  j = nlohmann::json{{"total", h.total}, {"per_tensor", h.per_tensor}};
}

}  // namespace ampbench::kernels
