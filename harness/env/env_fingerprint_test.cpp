#include "env/env_fingerprint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ampbench {
namespace {

TEST(EnvFingerprint, JsonHasEveryField) {
  const nlohmann::json j = to_json(probe_environment());
  for (const char* key : {"host", "os", "cpu_model", "cpu_id", "cpu_cores", "cpu_features", "cpu_kind", "cpu_capability", "onednn_max_cpu_isa", "device", "gpu_name", "gpu_count",
                          "compute_capability", "driver", "cuda_runtime", "cudnn", "nccl",
                          "libtorch_version", "torch_build", "compiler", "git_commit", "git_dirty",
                          "float32_math"}) {
    EXPECT_TRUE(j.contains(key)) << "missing " << key;
  }
  for (const char* key : {"cuda", "distributed", "gloo", "nccl"}) {
    EXPECT_TRUE(j["torch_build"][key].is_boolean()) << "torch_build." << key;
  }
}

// An AVX2-only CPU has no native half-precision arithmetic: its figures for
// fp16/bf16 differ in kind, so the fingerprint names it.
TEST(EnvFingerprint, NamesTheCpuKindFromItsFlags) {
  const std::string epyc = "flags\t\t: fpu sse2 avx avx2 fma bmi2 sha_ni";
  const std::string spr = "flags : avx avx2 avx512f avx512bw avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8";
  EXPECT_EQ(cpu_features_of(epyc), (std::vector<std::string>{"avx2"}));
  EXPECT_EQ(cpu_kind_of(cpu_features_of(epyc)), "avx2");
  EXPECT_EQ(cpu_features_of(spr), (std::vector<std::string>{"avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16"}));
  EXPECT_EQ(cpu_kind_of(cpu_features_of(spr)), "amx");
  EXPECT_EQ(cpu_kind_of(cpu_features_of("flags : avx2 avx512f avx512_bf16")), "avx512_bf16");
  EXPECT_EQ(cpu_kind_of(cpu_features_of("flags : avx2 avx512f")), "avx512");
  EXPECT_EQ(cpu_kind_of(cpu_features_of("flags : sse2 avx512bw_fake")), "other");
  EXPECT_NE(probe_environment().cpu_kind, "none");
}

// Two generations a hypervisor names alike: only family and model tell
// them apart (text as /proc/cpuinfo gives it, tabs included).
TEST(EnvFingerprint, TellsProcessorGenerationsOfOneNameApart) {
  const std::string zen4 =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
      "model name\t: AMD EPYC\nstepping\t: 1\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n";
  const std::string zen5 = "vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\n";
  EXPECT_EQ(cpu_id_of(zen4), "AuthenticAMD family 25 model 17");
  EXPECT_EQ(cpu_id_of(zen5), "AuthenticAMD family 26 model 2");
  const std::string neoverse = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd40\n";
  EXPECT_EQ(cpu_id_of(neoverse), "arm implementer 0x41 part 0xd40");
  EXPECT_EQ(cpu_id_of("processor\t: 0\nmodel name\t: AMD EPYC\n"), "none");
  EXPECT_EQ(cpu_id_of(""), "none");
}

// ATen's dispatch level is what the kernels use, which an environment
// variable can lower below what the CPU has.
TEST(EnvFingerprint, RecordsTheKernelsIsaCeiling) {
  const EnvFingerprint env = probe_environment();
  EXPECT_FALSE(env.cpu_capability.empty());
  const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA");
  EXPECT_EQ(env.onednn_max_cpu_isa, isa ? isa : "");
}

TEST(EnvFingerprint, RecordsTheFloat32MathCasesRunUnder) {
  const EnvFingerprint env = probe_environment();
  const nlohmann::json& f = env.float32_math;
  ASSERT_TRUE(f.contains("in_cases")) << f.dump();
  EXPECT_EQ(f["in_cases"]["precision"]["cuda.conv"], "ieee");
  EXPECT_EQ(f["in_cases"]["precision"]["cuda.matmul"], "ieee");
  EXPECT_TRUE(f["in_cases_ieee"].get<bool>());
  EXPECT_TRUE(f["process_default"]["cublas_reduction"].contains("bf16"));
  EXPECT_NE(to_text(env).find("float32_math:"), std::string::npos);
}

TEST(EnvFingerprint, ReportsTheLinkedLibTorch) {
  const EnvFingerprint env = probe_environment();
  EXPECT_EQ(env.libtorch_version.rfind(AMPBENCH_EXPECTED_TORCH, 0), 0u) << env.libtorch_version;
  EXPECT_GT(env.cpu_cores, 0);
  EXPECT_NE(env.cpu_model, "");
}

TEST(EnvFingerprint, GpuFieldsAreNoneWithoutADevice) {
  const EnvFingerprint env = probe_environment();
  if (env.device == "cuda") GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(env.gpu_name, "none");
  EXPECT_EQ(env.compute_capability, "none");
  EXPECT_EQ(env.gpu_count, 0);
}

// NCCL releases 2.18-2.28 and their NCCL_VERSION_CODEs as nccl.h defines
// them (major*10000 + minor*100 + patch since 2.9), written out literally.
const std::vector<std::pair<long, std::string>> kNcclCodes = {
    {21801, "2.18.1"}, {21803, "2.18.3"}, {21805, "2.18.5"}, {21806, "2.18.6"}, {21903, "2.19.3"},
    {22003, "2.20.3"}, {22005, "2.20.5"}, {22105, "2.21.5"}, {22203, "2.22.3"}, {22304, "2.23.4"},
    {22403, "2.24.3"}, {22501, "2.25.1"}, {22602, "2.26.2"}, {22605, "2.26.5"}, {22703, "2.27.3"},
    {22705, "2.27.5"}, {22707, "2.27.7"}, {22803, "2.28.3"}, {22805, "2.28.5"}, {22809, "2.28.9"},
};

TEST(NcclVersion, DecodesTheCodesOfNccl2_18To2_28) {
  for (const auto& [code, version] : kNcclCodes) EXPECT_EQ(nccl_version_from_code(code), version) << code;
}

TEST(NcclVersion, DecodesCodesBefore2_9WithTheNarrowMinorField) {
  EXPECT_EQ(nccl_version_from_code(2708), "2.7.8");
  EXPECT_EQ(nccl_version_from_code(2804), "2.8.4");
  EXPECT_EQ(nccl_version_from_code(2406), "2.4.6");
  EXPECT_THROW(nccl_version_from_code(99), std::invalid_argument);
}

TEST(NcclVersion, UnpacksTorchsBitFields) {
  // torch::cuda::nccl::version() of the H200's torch 2.11.0+cu130: the
  // decimal decoding printed "859176.96.9" for it (evidence env.json).
  EXPECT_EQ(nccl_version_from_torch(8591769609ULL), "2.28.9");
  EXPECT_EQ(nccl_version_from_torch((std::uint64_t{2} << 32) | (18u << 16) | 1u), "2.18.1");
  EXPECT_EQ(nccl_version_from_torch((std::uint64_t{2} << 32) | (21u << 16) | 5u), "2.21.5");
  // A LibTorch built with USE_NCCL but no version macros reports major 1.
  EXPECT_EQ(nccl_version_from_torch(std::uint64_t{1} << 32), "1.0.0");
  EXPECT_EQ(nccl_version_from_torch(0), "none");
}

}  // namespace
}  // namespace ampbench
