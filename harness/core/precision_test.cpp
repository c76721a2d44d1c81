// PrecisionPolicy: what each name means, tf32 included.
#include "core/precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace ampbench {
namespace {

TEST(Precision, EveryNameParsesToItselfInTableOrder) {
  EXPECT_EQ(PrecisionPolicy::names(), (std::vector<std::string>{"fp32", "fp16", "bf16", "tf32", "o2", "o3",
                                                                 "fp8_tensorwise", "fp8_rowwise", "fp8_delayed", "mxfp8",
                                                                 "nvfp4", "fp8_blockwise"}));
  for (const std::string& name : PrecisionPolicy::names()) EXPECT_EQ(PrecisionPolicy::parse(name).name(), name);
  EXPECT_EQ(PrecisionPolicy::parse("tf32").precision(), Precision::kTf32);
}

TEST(Precision, AnUnknownNameIsRefusedListingTheKnownOnes) {
  try {
    PrecisionPolicy::parse("fp8");
    FAIL() << "fp8 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unsupported precision 'fp8' (expected fp32, fp16, bf16, tf32, o2, o3, fp8_tensorwise, "
                           "fp8_rowwise, fp8_delayed, mxfp8, nvfp4 or fp8_blockwise)");
  }
  EXPECT_THROW(PrecisionPolicy::parse("TF32"), std::invalid_argument);
}

TEST(Precision, UnitRoundoffIsHalfAnUlpOfTheMantissa) {
  EXPECT_EQ(PrecisionPolicy(Precision::kFp32).unit_roundoff(), std::ldexp(1.0, -24));
  EXPECT_EQ(PrecisionPolicy(Precision::kFp16).unit_roundoff(), std::ldexp(1.0, -11));
  EXPECT_EQ(PrecisionPolicy(Precision::kBf16).unit_roundoff(), std::ldexp(1.0, -8));
  EXPECT_EQ(PrecisionPolicy(Precision::kTf32).unit_roundoff(), std::ldexp(1.0, -11));  // 10-bit mantissa
}

TEST(Precision, Tf32IsFloat32StorageUnderTf32MathWithoutAScaler) {
  const PrecisionPolicy tf32(Precision::kTf32);
  EXPECT_FALSE(tf32.autocast_dtype().has_value());
  EXPECT_EQ(tf32.float32_math(), amp::Float32Math::kTf32);
  EXPECT_TRUE(tf32.cuda_only());
  EXPECT_FALSE(tf32.needs_scaler());
  EXPECT_FALSE(tf32.allows_scaler());
  EXPECT_NE(tf32.scaler_refusal().find("tf32 with a GradScaler is a configuration mistake"), std::string::npos)
      << tf32.scaler_refusal();
  EXPECT_FALSE(tf32.float16_range_matters());
}

TEST(Precision, O2IsAFloat16ModelWithFloat32MastersAndAScaler) {
  const PrecisionPolicy o2(Precision::kO2);
  EXPECT_FALSE(o2.autocast_dtype().has_value());  // the model itself is float16: no autocast region
  EXPECT_EQ(o2.model_dtype(), c10::ScalarType::Half);
  EXPECT_TRUE(o2.master_weights());
  EXPECT_EQ(o2.trained_dtype(), c10::ScalarType::Float);  // the masters
  EXPECT_TRUE(o2.keeps_batchnorm_fp32());
  EXPECT_TRUE(o2.needs_scaler());
  EXPECT_TRUE(o2.verdict_required());
  EXPECT_TRUE(o2.float16_range_matters());
  EXPECT_EQ(o2.unit_roundoff(), std::ldexp(1.0, -11));
  EXPECT_EQ(o2.ceiling_name(), "fp16");
}

TEST(Precision, O3IsAllFloat16WithoutMastersOrScalerAndItsVerdictIsReported) {
  const PrecisionPolicy o3(Precision::kO3);
  EXPECT_EQ(o3.model_dtype(), c10::ScalarType::Half);
  EXPECT_FALSE(o3.master_weights());
  EXPECT_EQ(o3.trained_dtype(), c10::ScalarType::Half);
  EXPECT_FALSE(o3.keeps_batchnorm_fp32());
  EXPECT_FALSE(o3.needs_scaler());
  EXPECT_FALSE(o3.allows_scaler());
  EXPECT_NE(o3.scaler_refusal().find("use o2"), std::string::npos) << o3.scaler_refusal();
  EXPECT_FALSE(o3.verdict_required());
  EXPECT_EQ(o3.ceiling_name(), "fp16");
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16, Precision::kTf32}) {
    EXPECT_EQ(PrecisionPolicy(p).model_dtype(), c10::ScalarType::Float);
    EXPECT_TRUE(PrecisionPolicy(p).verdict_required());
    EXPECT_EQ(PrecisionPolicy(p).ceiling_name(), PrecisionPolicy(p).name());
  }
}

TEST(Precision, OnlyTf32LeavesIeeeMath) {
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16}) {
    const PrecisionPolicy policy(p);
    EXPECT_EQ(policy.float32_math(), amp::Float32Math::kIeee) << policy.name();
    EXPECT_FALSE(policy.cuda_only()) << policy.name();
  }
  EXPECT_TRUE(PrecisionPolicy(Precision::kFp16).autocast_dtype() == c10::ScalarType::Half);
  EXPECT_TRUE(PrecisionPolicy(Precision::kBf16).autocast_dtype() == c10::ScalarType::BFloat16);
  EXPECT_FALSE(PrecisionPolicy(Precision::kFp32).autocast_dtype().has_value());
}

// Each FP8 recipe: float32 weights trained directly, the other ops under
// bf16 autocast, no GradScaler (the recipe scales every GEMM operand), e4m3's
// roundoff, the fp8 ceiling row, and its verdict required.
TEST(Precision, Fp8RunsFloat32WeightsUnderBf16AutocastWithoutAScaler) {
  for (Precision p : {Precision::kFp8Tensorwise, Precision::kFp8Rowwise, Precision::kFp8Delayed}) {
    const PrecisionPolicy fp8(p);
    EXPECT_TRUE(fp8.is_fp8()) << fp8.name();
    EXPECT_TRUE(fp8.autocast_dtype() == c10::ScalarType::BFloat16) << fp8.name();
    EXPECT_EQ(fp8.model_dtype(), c10::ScalarType::Float);
    EXPECT_EQ(fp8.trained_dtype(), c10::ScalarType::Float);
    EXPECT_FALSE(fp8.master_weights());
    EXPECT_FALSE(fp8.needs_scaler());
    EXPECT_FALSE(fp8.allows_scaler());
    EXPECT_NE(fp8.scaler_refusal().find(fp8.name() + " with a GradScaler"), std::string::npos) << fp8.scaler_refusal();
    EXPECT_FALSE(fp8.float16_range_matters());
    EXPECT_FALSE(fp8.cuda_only());
    EXPECT_TRUE(fp8.verdict_required());
    EXPECT_TRUE(fp8.tolerance_row_optional());
    EXPECT_EQ(fp8.unit_roundoff(), std::ldexp(1.0, -4));
    EXPECT_EQ(fp8.ceiling_name(), "fp8");
  }
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16, Precision::kTf32, Precision::kO2})
    EXPECT_FALSE(PrecisionPolicy(p).is_fp8());
}

TEST(Precision, ScalerRulesPerPolicy) {
  EXPECT_TRUE(PrecisionPolicy(Precision::kFp16).needs_scaler());
  EXPECT_TRUE(PrecisionPolicy(Precision::kFp32).allows_scaler());  // the exact check
  EXPECT_TRUE(PrecisionPolicy(Precision::kFp32).scaler_refusal().empty());
  EXPECT_FALSE(PrecisionPolicy(Precision::kBf16).allows_scaler());
  EXPECT_NE(PrecisionPolicy(Precision::kBf16).scaler_refusal().find("bf16 with a GradScaler"), std::string::npos);
}

}  // namespace
}  // namespace ampbench
