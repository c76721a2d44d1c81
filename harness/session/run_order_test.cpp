// The run order: baselines, then one case of each model and precision, then
// the rest; and what it buys, an ETA that has priced every kind of case by
// the half-way line.
#include "session/run_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "runner/tiny_case_test_util.h"
#include "session/eta.h"

namespace ampbench {
namespace {

// "model/precision/workload", judged against "model/fp32/plain".
CaseSpec judged(const std::string& model, Precision p, const std::string& workload = "plain") {
  CaseSpec c = test::small_case(model, p);
  c.id = model + "/" + c.precision.name() + "/" + workload;
  if (p != Precision::kFp32 || workload != "plain") c.baseline_id = model + "/fp32/plain";
  return c;
}

std::vector<std::string> ids_of(const std::vector<CaseSpec>& cases) {
  std::vector<std::string> out;
  for (const CaseSpec& c : cases) out.push_back(c.id);
  return out;
}

TEST(RunOrder, BaselinesThenOneOfEachModelAndPrecisionThenTheRestEachInSuiteOrder) {
  const std::vector<CaseSpec> suite = {
      judged("mlp", Precision::kFp32),          judged("mlp", Precision::kFp16),
      judged("mlp", Precision::kFp16, "clip"),  judged("mlp", Precision::kFp32, "clip"),
      judged("mlp", Precision::kBf16),          judged("cnn", Precision::kFp32),
      judged("cnn", Precision::kFp16, "clip"),  judged("cnn", Precision::kFp16),
      judged("cnn", Precision::kBf16)};
  const std::vector<CaseSpec> ordered = run_order(suite);
  EXPECT_EQ(ids_of(ordered), (std::vector<std::string>{"mlp/fp32/plain", "cnn/fp32/plain", "mlp/fp16/plain",
                                                    "mlp/fp32/clip", "mlp/bf16/plain", "cnn/fp16/clip",
                                                    "cnn/bf16/plain", "mlp/fp16/clip", "cnn/fp16/plain"}));
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    if (ordered[i].is_baseline()) continue;
    const auto base = std::find_if(ordered.begin(), ordered.end(),
                                   [&](const CaseSpec& c) { return c.id == ordered[i].baseline_id; });
    EXPECT_LT(base - ordered.begin(), static_cast<std::ptrdiff_t>(i)) << ordered[i].id << " before its baseline";
  }
}

// |ETA half-way - what remained| / what remained, for cases run in `order`.
double half_way_error(const std::vector<CaseSpec>& order, const std::map<std::string, double>& seconds) {
  EtaModel eta(order);
  const std::size_t half = order.size() / 2;
  for (std::size_t i = 0; i < half; ++i) eta.finished(i, seconds.at(order[i].id));
  double actual = 0;
  for (std::size_t i = half; i < order.size(); ++i) actual += seconds.at(order[i].id);
  return std::abs(eta.remaining() - actual) / actual;
}

// Smoke's shape on a CPU without native half precision: many cheap mlp
// cases first, ResNet last, its fp16 and O2 ten times its fp32 baseline.
// In the suite's order the ETA has seen no ResNet case half-way.
TEST(RunOrder, PutsEveryKindOfCaseBeforeTheHalfWayLine) {
  std::vector<CaseSpec> suite;
  std::map<std::string, double> seconds;
  for (const char* workload : {"plain", "clip", "penalty", "accumulation", "multi", "clip_value"}) {
    for (const Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16}) {
      suite.push_back(judged("mlp", p, workload));
      seconds[suite.back().id] = 0.1;
    }
  }
  const std::map<Precision, double> resnet = {{Precision::kFp32, 8.0}, {Precision::kFp16, 5.5},
                                              {Precision::kO2, 5.5}, {Precision::kBf16, 0.8}};
  for (const auto& [p, s] : resnet) {
    suite.push_back(judged("resnet", p));
    seconds[suite.back().id] = s;
  }
  EXPECT_GT(half_way_error(suite, seconds), 0.25) << "the suite's own order must show the problem";
  EXPECT_LE(half_way_error(run_order(suite), seconds), 0.25);
}

}  // namespace
}  // namespace ampbench
