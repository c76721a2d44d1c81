// Float32MathGuard and the recorded settings. at::globalContext()'s float32
// flags are plain state, so the CUDA settings are set, read and restored on
// CPU too. Tests share a process, so each one starts from the settings the
// process began with and leaves them that way (Float32MathTest).
#include "amp/float32_math.h"

#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ampbench::amp {
namespace {

void expect_all(const Float32Settings& s, const std::string& cuda, const std::string& mkldnn) {
  for (const char* op : {"matmul", "conv", "rnn"}) {
    EXPECT_EQ(s.precision.at(std::string("cuda.") + op), cuda) << op;
    EXPECT_EQ(s.precision.at(std::string("mkldnn.") + op), mkldnn) << op;
  }
}

void expect_same(const Float32Settings& a, const Float32Settings& b) {
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(a.legacy_matmul_precision, b.legacy_matmul_precision);
  EXPECT_EQ(a.legacy_cudnn_allow_tf32, b.legacy_cudnn_allow_tf32);
}

// Puts back, after each test, every raw per-backend, per-op value and both
// legacy flags as they were before it: a test that sets a parent (cuda.all)
// or a legacy flag must not change what the next one reads as the default.
class Float32MathTest : public ::testing::Test {
 protected:
  // Every pair LibTorch keeps (GENERIC has only ALL).
  static constexpr std::pair<at::Float32Backend, at::Float32Op> kSlots[] = {
      {at::Float32Backend::GENERIC, at::Float32Op::ALL}, {at::Float32Backend::CUDA, at::Float32Op::ALL},
      {at::Float32Backend::CUDA, at::Float32Op::CONV},   {at::Float32Backend::CUDA, at::Float32Op::RNN},
      {at::Float32Backend::CUDA, at::Float32Op::MATMUL}, {at::Float32Backend::MKLDNN, at::Float32Op::ALL},
      {at::Float32Backend::MKLDNN, at::Float32Op::CONV}, {at::Float32Backend::MKLDNN, at::Float32Op::RNN},
      {at::Float32Backend::MKLDNN, at::Float32Op::MATMUL}};

  void SetUp() override {
    at::Context& ctx = at::globalContext();
    matmul_ = ctx.float32MatmulPrecision();
    cudnn_tf32_ = ctx.allowTF32CuDNN();
    for (const auto& [backend, op] : kSlots) raw_.push_back(ctx.float32Precision(backend, op));
  }

  void TearDown() override {
    at::Context& ctx = at::globalContext();
    ctx.setFloat32MatmulPrecision(matmul_ == at::Float32MatmulPrecision::HIGHEST ? "highest"
                                  : matmul_ == at::Float32MatmulPrecision::HIGH  ? "high"
                                                                                 : "medium");
    ctx.setAllowTF32CuDNN(cudnn_tf32_);
    size_t i = 0;
    for (const auto& [backend, op] : kSlots) ctx.setFloat32Precision(backend, op, raw_.at(i++));
  }

 private:
  at::Float32MatmulPrecision matmul_ = at::Float32MatmulPrecision::HIGHEST;
  bool cudnn_tf32_ = true;
  std::vector<at::Float32Precision> raw_;
};

TEST_F(Float32MathTest, Torch2_11DefaultsRunCudnnInTf32) {
  // The trap the guard exists for (torch.backends.cudnn.allow_tf32 = True).
  if (std::getenv("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE")) GTEST_SKIP() << "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE is set";
  const Float32Settings s = current_float32_settings();
  EXPECT_EQ(s.precision.at("cuda.conv"), "tf32");
  EXPECT_EQ(s.precision.at("cuda.rnn"), "tf32");
  EXPECT_EQ(s.precision.at("cuda.matmul"), "none");
  EXPECT_EQ(s.legacy_cudnn_allow_tf32, "true");
  EXPECT_FALSE(s.all_ieee());
}

TEST_F(Float32MathTest, IeeeGuardSetsEveryOpAndRestoresTheDefaults) {
  const Float32Settings before = current_float32_settings();
  {
    const Float32MathGuard guard(Float32Math::kIeee);
    const Float32Settings inside = current_float32_settings();
    expect_all(inside, "ieee", "ieee");
    EXPECT_TRUE(inside.all_ieee());
    // Both APIs agree: the legacy getters (which cuBLAS/cuDNN callers and
    // Python's torch.backends use) neither throw nor say TF32.
    EXPECT_FALSE(at::globalContext().allowTF32CuBLAS());
    EXPECT_FALSE(at::globalContext().allowTF32CuDNN());
    EXPECT_EQ(at::globalContext().float32MatmulPrecision(), at::Float32MatmulPrecision::HIGHEST);
  }
  expect_same(current_float32_settings(), before);
  EXPECT_TRUE(at::globalContext().allowTF32CuDNN());  // the default, consistent again
}

TEST_F(Float32MathTest, Tf32GuardSetsCudaTf32AndOneDnnIeeeAndNestsInsideIeee) {
  const Float32MathGuard outer(Float32Math::kIeee);
  {
    const Float32MathGuard inner(Float32Math::kTf32);
    expect_all(current_float32_settings(), "tf32", "ieee");
    EXPECT_TRUE(at::globalContext().allowTF32CuBLAS());
    EXPECT_TRUE(at::globalContext().allowTF32CuDNN());
  }
  expect_all(current_float32_settings(), "ieee", "ieee");
  EXPECT_FALSE(at::globalContext().allowTF32CuBLAS());
}

TEST_F(Float32MathTest, RestoresANonDefaultLegacyState) {
  at::Context& ctx = at::globalContext();
  ctx.setFloat32MatmulPrecision("high");  // torch.set_float32_matmul_precision("high")
  ctx.setAllowTF32CuDNN(false);
  const Float32Settings before = current_float32_settings();
  ASSERT_EQ(before.precision.at("cuda.matmul"), "tf32");
  ASSERT_EQ(before.legacy_matmul_precision, "high");
  { const Float32MathGuard guard(Float32Math::kIeee); }
  expect_same(current_float32_settings(), before);
  EXPECT_TRUE(ctx.allowTF32CuBLAS());
}

TEST_F(Float32MathTest, AParentSettingDoesNotLeakIntoTheGuardedOps) {
  at::Context& ctx = at::globalContext();
  // Only the new API, only the parent: cuda.matmul ("none") inherits TF32,
  // and the legacy matmul getter now reports a mixed state.
  ctx.setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::ALL, at::Float32Precision::TF32);
  EXPECT_EQ(current_float32_settings().legacy_matmul_precision, "mixed");
  {
    const Float32MathGuard guard(Float32Math::kIeee);
    expect_all(current_float32_settings(), "ieee", "ieee");
  }
  EXPECT_EQ(current_float32_settings().precision.at("cuda.matmul"), "tf32");
}

TEST_F(Float32MathTest, FingerprintRecordsDefaultsInCaseSettingsReductionsAndOverrides) {
  ::setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
  const nlohmann::json j = float32_math_fingerprint();
  ::unsetenv("NVIDIA_TF32_OVERRIDE");
  EXPECT_EQ(j["process_default"]["precision"]["cuda.conv"], "tf32");
  EXPECT_EQ(j["in_cases"]["precision"]["cuda.conv"], "ieee");
  EXPECT_EQ(j["in_cases"]["precision"]["cuda.matmul"], "ieee");
  EXPECT_EQ(j["in_cases"]["legacy"]["cudnn_allow_tf32"], "false");
  EXPECT_TRUE(j["in_cases_ieee"].get<bool>());
  // torch 2.11's default: fp16/bf16 GEMMs may reduce in reduced precision.
  EXPECT_EQ(j["process_default"]["cublas_reduction"]["fp16"], "reduced_precision_allowed");
  EXPECT_EQ(j["process_default"]["cublas_reduction"]["bf16"], "reduced_precision_allowed");
  EXPECT_EQ(j["process_default"]["env_overrides"]["NVIDIA_TF32_OVERRIDE"], "0");
  EXPECT_FALSE(j["process_default"]["env_overrides"].contains("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"));
  // NVIDIA_TF32_OVERRIDE=0 is "never TF32": still IEEE, no warning.
  EXPECT_TRUE(j["fp32_is_ieee"].get<bool>());
  EXPECT_TRUE(j["fp32_not_ieee_reasons"].empty());
  // Recording changed nothing.
  EXPECT_EQ(current_float32_settings().precision.at("cuda.conv"), "tf32");
}

Float32Settings ieee_settings(std::map<std::string, std::string> env = {}) {
  Float32Settings s;
  for (const char* key : {"cuda.matmul", "cuda.conv", "cuda.rnn", "mkldnn.matmul", "mkldnn.conv", "mkldnn.rnn"})
    s.precision[key] = "ieee";
  s.env_overrides = std::move(env);
  return s;
}

TEST_F(Float32MathTest, Fp32IsIeeeUnlessAnOverrideOrAnInCaseSettingSaysOtherwise) {
  EXPECT_TRUE(fp32_not_ieee_reasons(ieee_settings()).empty());
  EXPECT_TRUE(fp32_not_ieee_reasons(ieee_settings({{"NVIDIA_TF32_OVERRIDE", "0"}})).empty());
  EXPECT_TRUE(fp32_not_ieee_reasons(ieee_settings({{"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "0"}})).empty());

  const auto nvidia = fp32_not_ieee_reasons(ieee_settings({{"NVIDIA_TF32_OVERRIDE", "1"}}));
  ASSERT_EQ(nvidia.size(), 1u);
  EXPECT_EQ(nvidia[0].rfind("NVIDIA_TF32_OVERRIDE=1 is set: cuBLAS/cuDNN", 0), 0u) << nvidia[0];
  const auto torch = fp32_not_ieee_reasons(ieee_settings({{"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1"}}));
  ASSERT_EQ(torch.size(), 1u);
  EXPECT_NE(torch[0].find("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1"), std::string::npos) << torch[0];

  Float32Settings tf32_conv = ieee_settings({{"NVIDIA_TF32_OVERRIDE", "1"}});
  tf32_conv.precision["cuda.conv"] = "tf32";
  const auto both = fp32_not_ieee_reasons(tf32_conv);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[1], "the in-case float32 settings are not all IEEE: cuda.conv=tf32");
}

TEST_F(Float32MathTest, FingerprintFlagsAnOverrideThatMayForceTf32) {
  ::setenv("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1", 1);
  const nlohmann::json j = float32_math_fingerprint();
  ::unsetenv("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE");
  // The guard still sets IEEE (torch 2.11 reads the variable once, as its
  // default), but the baseline must not rest on that.
  EXPECT_TRUE(j["in_cases_ieee"].get<bool>());
  EXPECT_FALSE(j["fp32_is_ieee"].get<bool>());
  ASSERT_EQ(j["fp32_not_ieee_reasons"].size(), 1u);
  EXPECT_NE(j["fp32_not_ieee_reasons"][0].get<std::string>().find("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1"),
            std::string::npos);
}

TEST_F(Float32MathTest, OnlyNvidiaTf32OverrideZeroDisablesTf32) {
  ::unsetenv("NVIDIA_TF32_OVERRIDE");
  EXPECT_EQ(tf32_disabled_reason(), "");
  ::setenv("NVIDIA_TF32_OVERRIDE", "1", 1);
  EXPECT_EQ(tf32_disabled_reason(), "");
  ::setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
  EXPECT_NE(tf32_disabled_reason().find("NVIDIA_TF32_OVERRIDE=0 turns TF32 off"), std::string::npos);
  ::unsetenv("NVIDIA_TF32_OVERRIDE");
}

}  // namespace
}  // namespace ampbench::amp
