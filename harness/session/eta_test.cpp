// The progress line's estimate: a remaining case is priced by the cases of
// its model and precision already run, else of its model, else by all.
#include "session/eta.h"

#include <gtest/gtest.h>

#include "runner/tiny_case_test_util.h"

namespace ampbench {
namespace {

CaseSpec of(const std::string& model, Precision p) {
  CaseSpec c = test::small_case(model, p);
  return c;
}

// Cheap mlp cases first, then one costly cnn fp16 family: the plain
// average of the mlp cases would promise the cnn cases in seconds.
TEST(EtaModel, PricesEachRemainingCaseByItsFamily) {
  const std::vector<CaseSpec> cases = {of("mlp", Precision::kFp32), of("mlp", Precision::kFp16),
                                       of("cnn", Precision::kFp32), of("cnn", Precision::kFp16),
                                       of("cnn", Precision::kFp16), of("mlp", Precision::kFp16)};
  EtaModel eta(cases);
  eta.finished(0, 1.0);
  eta.finished(1, 2.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 1.5 + 1.5 + 1.5 + 2.0) << "no cnn case yet: the average, mlp fp16 its own";
  eta.finished(2, 10.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 10.0 + 10.0 + 2.0) << "cnn fp16 priced by its model's fp32 baseline";
  eta.finished(3, 60.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 60.0 + 2.0);
  eta.finished(4, 50.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 2.0);
  eta.finished(5, 2.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 0.0);
}

}  // namespace
}  // namespace ampbench
