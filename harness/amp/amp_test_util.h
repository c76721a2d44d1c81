// Helpers shared by the amp tests: device parameterization and error checks.
#pragma once

#include <ATen/ATen.h>
#include <c10/core/Device.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <string>
#include <vector>

namespace ampbench::amp::testing_util {

// Every device-parameterized amp test runs on these; CUDA cases skip
// themselves on machines without a device.
inline std::vector<std::string> test_devices() { return {"cpu", "cuda"}; }

inline bool device_available(const at::Device& device) {
  return !device.is_cuda() || torch::cuda::is_available();
}

inline std::string device_param_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

// A macro because GTEST_SKIP returns from the calling function.
#define AMPBENCH_SKIP_WITHOUT_DEVICE(device)                                               \
  do {                                                                                     \
    if (!::ampbench::amp::testing_util::device_available(device))                         \
      GTEST_SKIP() << "CUDA device not available (torch::cuda::is_available() is false); " \
                   << "this case runs on a machine with a GPU";                            \
  } while (0)

// Expects `statement` to throw ErrorType (a c10::Error) whose message
// contains `substring`.
#define AMPBENCH_EXPECT_ERROR(statement, ErrorType, substring)                        \
  EXPECT_THROW(                                                                       \
      {                                                                               \
        try {                                                                         \
          statement;                                                                  \
        } catch (const ErrorType& error_) {                                           \
          const std::string message_ = error_.what_without_backtrace();               \
          EXPECT_NE(message_.find(substring), std::string::npos)                      \
              << "message: " << message_ << "\nexpected to contain: " << (substring); \
          throw;                                                                      \
        }                                                                             \
      },                                                                              \
      ErrorType)

}  // namespace ampbench::amp::testing_util
