#include "kernels/ceilings.h"

#include <ATen/Context.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include "core/json.h"  // nlohmann/json, version-checked
#include <torch/cuda.h>

#include <cmath>
#include <string>

namespace ampbench::kernels {
namespace {

CeilingOptions tiny(c10::Device device) {
  CeilingOptions o = CeilingOptions::for_device(device);
  o.gemm_size = 128;
  o.copy_bytes = 4 << 20;
  o.warmup = 1;
  o.repetitions = 3;
  return o;
}

// Physical sanity: slower than a 1 MFLOP/s or faster than 1 PFLOP/s is a
// measurement (or unit) bug, on any device this suite will meet.
// `most`: no device of today comes near it (an H200's dense FP8 peak is
// about 2000 TFLOP/s, its bf16 one about 1000).
void expect_plausible_tflops(const std::optional<double>& t, const std::string& what, double most = 1e3) {
  ASSERT_TRUE(t.has_value()) << what;
  EXPECT_TRUE(std::isfinite(*t)) << what;
  EXPECT_GT(*t, 1e-6) << what;
  EXPECT_LT(*t, most) << what;
}

TEST(Ceilings, DefaultsPerDevice) {
  const CeilingOptions cpu = CeilingOptions::for_device(c10::Device(c10::kCPU));
  EXPECT_EQ(cpu.gemm_size, 1024);
  EXPECT_EQ(cpu.copy_bytes, 128 << 20);
  const CeilingOptions cuda = CeilingOptions::for_device(c10::Device(c10::kCUDA, 0));
  EXPECT_EQ(cuda.gemm_size, 8192);
  EXPECT_EQ(cuda.copy_bytes, int64_t{1} << 30);
  EXPECT_TRUE(cuda.device.is_cuda());
  EXPECT_GT(cuda.repetitions, 0);
}

TEST(Ceilings, TinyCpuProbeIsPositiveAndPlausible) {
  const Ceilings c = measure_ceilings(tiny(c10::Device(c10::kCPU)));
  EXPECT_EQ(c.device, "cpu");
  EXPECT_EQ(c.repetitions, 3);
  EXPECT_EQ(c.gemm_size, 128);
  EXPECT_EQ(c.copy_bytes, 4 << 20);
  EXPECT_TRUE(std::isfinite(c.memory_bandwidth_gbs));
  EXPECT_GT(c.memory_bandwidth_gbs, 0.01);
  EXPECT_LT(c.memory_bandwidth_gbs, 1e5);  // 100 TB/s: no CPU comes close
  expect_plausible_tflops(c.matmul_tflops.at("fp32"), "fp32");
  // TF32 is CUDA-only: reported as null, with the reason.
  ASSERT_EQ(c.matmul_tflops.count("tf32"), 1u);
  EXPECT_FALSE(c.matmul_tflops.at("tf32").has_value());
  EXPECT_EQ(c.notes.count("tf32"), 1u);
  // FP8 on a CPU is an emulation, never a ceiling: null, with the reason.
  ASSERT_EQ(c.matmul_tflops.count("fp8"), 1u);
  EXPECT_FALSE(c.matmul_tflops.at("fp8").has_value());
  EXPECT_NE(c.notes.at("fp8").find("emulated"), std::string::npos) << c.notes.at("fp8");
  // Half types: a value when this CPU build multiplies them, else a reason.
  for (const char* name : {"fp16", "bf16"}) {
    const auto& t = c.matmul_tflops.at(name);
    if (t) {
      expect_plausible_tflops(t, name);
    } else {
      EXPECT_EQ(c.notes.count(name), 1u) << name;
    }
  }
  const nlohmann::json j = c;
  EXPECT_EQ(j.at("device"), "cpu");
  EXPECT_TRUE(j.at("matmul_tflops").at("tf32").is_null());
  EXPECT_DOUBLE_EQ(j.at("matmul_tflops").at("fp32").get<double>(), *c.matmul_tflops.at("fp32"));
  EXPECT_DOUBLE_EQ(j.at("memory_bandwidth_gbs").get<double>(), c.memory_bandwidth_gbs);
  EXPECT_EQ(j.at("gemm_size"), 128);
  EXPECT_EQ(j.at("repetitions"), 3);
}

TEST(Ceilings, RejectsInvalidOptions) {
  CeilingOptions o = tiny(c10::Device(c10::kCPU));
  o.repetitions = 0;
  EXPECT_THROW(measure_ceilings(o), c10::Error);
  o = tiny(c10::Device(c10::kCPU));
  o.gemm_size = 0;
  EXPECT_THROW(measure_ceilings(o), c10::Error);
  o = tiny(c10::Device(c10::kCPU));
  o.copy_bytes = 0;
  EXPECT_THROW(measure_ceilings(o), c10::Error);
  if (!torch::cuda::is_available()) {
    EXPECT_THROW(measure_ceilings(tiny(c10::Device(c10::kCUDA, 0))), c10::Error);
  }
}

// The TF32 switch is global context state, testable without a device.
TEST(Ceilings, ScopedCublasTf32SetsAndRestores) {
  at::Context& ctx = at::globalContext();
  const auto cuda_matmul = [&] {
    return ctx.float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL);
  };
  const auto initial = cuda_matmul();
  {
    ScopedCublasTf32 on(true);
    EXPECT_TRUE(ctx.allowTF32CuBLAS());
    EXPECT_EQ(cuda_matmul(), at::Float32Precision::TF32);
    {
      ScopedCublasTf32 off(false);
      EXPECT_FALSE(ctx.allowTF32CuBLAS());
      EXPECT_EQ(cuda_matmul(), at::Float32Precision::IEEE);
    }
    EXPECT_TRUE(ctx.allowTF32CuBLAS());  // inner scope restored TF32 (and legacy agrees)
    EXPECT_EQ(cuda_matmul(), at::Float32Precision::TF32);
  }
  EXPECT_EQ(cuda_matmul(), initial);
  EXPECT_EQ(ctx.allowTF32CuBLAS(), initial == at::Float32Precision::TF32);
}

TEST(Ceilings, TinyCudaProbeRestoresTf32) {
  if (!torch::cuda::is_available()) {
    GTEST_SKIP() << "no CUDA device (torch::cuda::is_available() is false)";
  }
  at::Context& ctx = at::globalContext();
  const auto before = ctx.float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL);
  CeilingOptions o = tiny(c10::Device(c10::kCUDA, 0));
  o.gemm_size = 1024;
  o.copy_bytes = 64 << 20;
  const Ceilings c = measure_ceilings(o);
  EXPECT_EQ(c.device, "cuda:0");
  EXPECT_GT(c.memory_bandwidth_gbs, 1.0);
  for (const char* name : {"fp32", "tf32", "fp16", "bf16"}) {
    expect_plausible_tflops(c.matmul_tflops.at(name), name);
  }
  // FP8: a rate where the GPU has FP8 matrix units (8.9+), else the scaled
  // matmul's own refusal.
  const auto& fp8 = c.matmul_tflops.at("fp8");
  if (fp8) {
    expect_plausible_tflops(fp8, "fp8", 4e3);
  } else {
    EXPECT_NE(c.notes.at("fp8").find("scaled matmul"), std::string::npos) << c.notes.at("fp8");
  }
  EXPECT_EQ(ctx.float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL), before);
}

}  // namespace
}  // namespace ampbench::kernels
