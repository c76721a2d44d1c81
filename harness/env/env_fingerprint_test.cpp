#include "env/env_fingerprint.h"

#include <gtest/gtest.h>

namespace ampbench {
namespace {

TEST(EnvFingerprint, JsonHasEveryField) {
  const nlohmann::json j = to_json(probe_environment());
  for (const char* key : {"host", "os", "cpu_model", "cpu_cores", "device", "gpu_name", "gpu_count",
                          "compute_capability", "driver", "cuda_runtime", "cudnn", "nccl",
                          "libtorch_version", "torch_build", "compiler", "git_commit", "git_dirty"}) {
    EXPECT_TRUE(j.contains(key)) << "missing " << key;
  }
  for (const char* key : {"cuda", "distributed", "gloo", "nccl"}) {
    EXPECT_TRUE(j["torch_build"][key].is_boolean()) << "torch_build." << key;
  }
}

TEST(EnvFingerprint, ReportsTheLinkedLibTorch) {
  const EnvFingerprint env = probe_environment();
  EXPECT_EQ(env.libtorch_version.substr(0, 4), "2.11");
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

}  // namespace
}  // namespace ampbench
