// The progress line's estimate: a remaining case is priced by the cases of
// its workload, model and precision already run; else by its workload and
// model's fp32 baseline times what its precision cost over fp32 where both
// ran; else the same by model alone; else by its model; else by all.
#include "session/eta.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runner/tiny_case_test_util.h"
#include "spec/workload_traits.h"

namespace ampbench {
namespace {

CaseSpec of(const std::string& model, Precision p, const char* workload = "plain") {
  CaseSpec c = test::small_case(model, p);
  c.workload = &workload_traits(workload);
  return c;
}

// The rule before precisions were priced against fp32: a family's own
// mean, else its model's mean over every precision, else the mean of all.
double model_mean_eta(const std::vector<CaseSpec>& cases, const std::vector<double>& seconds, std::size_t done) {
  std::map<std::string, std::pair<double, int>> family, model;
  double all = 0;
  for (std::size_t i = 0; i < done; ++i) {
    const std::string m = cases[i].model->name;
    for (auto* s : {&family[m + "/" + cases[i].precision.name()], &model[m]}) {
      s->first += seconds[i];
      ++s->second;
    }
    all += seconds[i];
  }
  double total = 0;
  for (std::size_t i = done; i < cases.size(); ++i) {
    const std::string m = cases[i].model->name;
    if (const auto f = family.find(m + "/" + cases[i].precision.name()); f != family.end())
      total += f->second.first / f->second.second;
    else if (const auto o = model.find(m); o != model.end())
      total += o->second.first / o->second.second;
    else
      total += all / done;
  }
  return total;
}

// Smoke on a CPU without native half precision: the cnn's convolutions in
// fp16, O2 and bf16 cost ten times its fp32 baseline, and so do ResNet's.
// Half-way, ResNet's fp32 baseline has run and none of its half-precision
// cases has: its model's mean promises them at the fp32 price.
TEST(EtaModel, WithinAQuarterHalfWayWhereTheModelMeanIsNot) {
  const std::vector<CaseSpec> cases = {
      of("cnn", Precision::kFp32),    of("cnn", Precision::kFp16),    of("cnn", Precision::kO2),
      of("cnn", Precision::kBf16),    of("resnet", Precision::kFp32), of("resnet", Precision::kFp16),
      of("resnet", Precision::kO2),   of("resnet", Precision::kBf16), of("cnn", Precision::kFp16),
      of("cnn", Precision::kBf16)};
  const std::vector<double> seconds = {1, 10, 10, 10, 3, 30, 30, 30, 10, 10};
  const std::size_t half = cases.size() / 2;
  EtaModel eta(cases);
  for (std::size_t i = 0; i < half; ++i) eta.finished(i, seconds[i]);
  double actual = 0;
  for (std::size_t i = half; i < cases.size(); ++i) actual += seconds[i];
  const double old_eta = model_mean_eta(cases, seconds, half);
  EXPECT_GT(std::abs(old_eta - actual) / actual, 0.25) << "the sequence must tell the rules apart: " << old_eta;
  EXPECT_LE(std::abs(eta.remaining() - actual) / actual, 0.25) << eta.remaining() << " against " << actual;
  EXPECT_DOUBLE_EQ(eta.remaining(), 3 * 10.0 * 3 + 10 + 10) << "ResNet's fp32 times the cnn's ratio of 10";
}

TEST(EtaModel, PricesEachRemainingCaseByItsFamilyThenItsBaseline) {
  const std::vector<CaseSpec> cases = {of("mlp", Precision::kFp32), of("mlp", Precision::kFp16),
                                       of("cnn", Precision::kFp32), of("cnn", Precision::kFp16),
                                       of("cnn", Precision::kBf16), of("mlp", Precision::kFp16)};
  EtaModel eta(cases);
  EXPECT_DOUBLE_EQ(eta.remaining(), 0.0) << "nothing run: nothing to price by";
  eta.finished(0, 1.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 1.0 + 1.0 + 1.0 + 1.0 + 1.0) << "mlp fp16: its fp32, no ratio known yet";
  eta.finished(1, 2.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 1.5 + 1.5 + 1.5 + 2.0) << "no cnn case yet: the average, mlp fp16 its own";
  eta.finished(2, 10.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 10.0 * 2 + 10.0 + 2.0)
      << "cnn fp16: its fp32 times mlp's fp16 ratio; cnn bf16: no ratio known, its fp32";
  eta.finished(3, 60.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 10.0 + 2.0);
  eta.finished(4, 50.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 2.0);
  eta.finished(5, 2.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 0.0);
}

// The ratio is a mean over the models that ran both: one model's is not
// the other's.
TEST(EtaModel, AveragesThePrecisionRatioOverModels) {
  const std::vector<CaseSpec> cases = {of("mlp", Precision::kFp32), of("mlp", Precision::kFp16),
                                       of("cnn", Precision::kFp32), of("cnn", Precision::kFp16),
                                       of("resnet", Precision::kFp32), of("resnet", Precision::kFp16)};
  EtaModel eta(cases);
  const std::vector<double> seconds = {1, 2, 1, 6, 5};
  for (std::size_t i = 0; i < seconds.size(); ++i) eta.finished(i, seconds[i]);
  EXPECT_DOUBLE_EQ(eta.remaining(), 5.0 * (2.0 + 6.0) / 2);
}

// Smoke's second half holds the penalty and multi-model cases in half
// precision, whose steps cost three plain ones: priced by their model and
// precision alone (plain's fp16), the estimate fell 20-35% short half-way
// on the Zen 5 EPYC. Their own fp32 baseline ran first, and prices them.
TEST(EtaModel, PricesACaseByItsOwnWorkloadsBaselineBeforeItsModels) {
  const std::vector<CaseSpec> cases = {
      of("transformer", Precision::kFp32), of("transformer", Precision::kFp32, "penalty"),
      of("transformer", Precision::kFp16), of("cnn", Precision::kFp32),
      of("cnn", Precision::kFp16),         of("transformer", Precision::kFp16, "penalty"),
      of("transformer", Precision::kFp16, "penalty"), of("cnn", Precision::kFp16, "penalty")};
  const std::vector<double> seconds = {1, 3, 2, 1, 2, 6, 6, 2};
  EtaModel eta(cases);
  for (std::size_t i = 0; i < 5; ++i) eta.finished(i, seconds[i]);
  // Penalty on the transformer: its fp32 3 s times fp16's ratio of 2 where
  // both ran; penalty on the cnn has no fp32 of its own: the cnn's fp16.
  // By model and precision alone it would be 2 + 2 + 2 = 6 of 14.
  EXPECT_DOUBLE_EQ(eta.remaining(), 3.0 * 2 + 3.0 * 2 + 2.0);
  eta.finished(5, 6.0);
  EXPECT_DOUBLE_EQ(eta.remaining(), 6.0 + 2.0) << "its own workload's fp16 case, once one has run";
}

}  // namespace
}  // namespace ampbench
