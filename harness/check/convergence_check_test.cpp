// The convergence rule on hand-made records: each criterion fails on its own
// (misses, a slower steps-to-target by the one-sided test, a final accuracy
// below the band), the best and the worst run are trimmed, and the fp32
// reference is refused when it misses its own target.
#include "check/convergence_check.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

namespace ampbench {
namespace {

// One run per entry: steps to target (nullopt: never reached) and final accuracy.
ConvergenceRecord record(const std::vector<std::optional<int>>& steps, const std::vector<double>& accuracy) {
  ConvergenceRecord r;
  for (size_t i = 0; i < steps.size(); ++i) {
    SeedCurve s;
    s.seed = i + 1;
    s.steps_to_target = steps[i];
    s.final_accuracy = accuracy[i];
    r.seeds.push_back(s);
  }
  return r;
}

const std::vector<double> kAcc(10, 0.96);
const std::vector<std::optional<int>> kFp32 = {1100, 1200, 1500, 900, 1100, 900, 1100, 1100, 1400, 1500};

ConvergenceSettings settings() {
  ConvergenceSettings s;
  s.alpha = 0.05;
  s.accuracy_band = 0.01;
  s.target_accuracy = 0.95;
  return s;
}

bool failed(const ConvergenceSummary& s, const std::string& name) {
  for (const auto& k : s.criteria)
    if (k.name == name) return k.failed;
  ADD_FAILURE() << "no criterion " << name;
  return false;
}

TEST(ConvergenceCheck, TheSameRunsConform) {
  const ConvergenceSummary s = check_convergence(record(kFp32, kAcc), record(kFp32, kAcc), settings());
  EXPECT_TRUE(s.failures.empty());
  EXPECT_DOUBLE_EQ(s.reference.steps_mean, 1175.0);  // 900 and 1500 trimmed
  ASSERT_TRUE(s.steps_test);
  EXPECT_DOUBLE_EQ(s.steps_test->p, 0.5);
}

TEST(ConvergenceCheck, OneMissedRunIsAllowedTwoAreNot) {
  auto one = kFp32;
  one[0] = std::nullopt;
  EXPECT_FALSE(failed(check_convergence(record(one, kAcc), record(kFp32, kAcc), settings()), "seeds_missed"));
  auto two = one;
  two[1] = std::nullopt;
  const ConvergenceSummary s = check_convergence(record(two, kAcc), record(kFp32, kAcc), settings());
  EXPECT_TRUE(failed(s, "seeds_missed"));
  EXPECT_TRUE(failed(s, "steps_to_target"));  // not testable with two infinite runs, one trimmed
  EXPECT_FALSE(s.steps_test);
}

TEST(ConvergenceCheck, SlowerToTheTargetFailsTheOneSidedTestFasterDoesNot) {
  std::vector<std::optional<int>> slow, fast;
  for (const auto& v : kFp32) {
    slow.push_back(*v + 400);
    fast.push_back(*v - 400);
  }
  const ConvergenceSummary s = check_convergence(record(slow, kAcc), record(kFp32, kAcc), settings());
  EXPECT_TRUE(failed(s, "steps_to_target"));
  EXPECT_LT(s.steps_test->p, 0.05);
  EXPECT_FALSE(failed(check_convergence(record(fast, kAcc), record(kFp32, kAcc), settings()), "steps_to_target"));
  // 100 steps slower (one evaluation) is within the seeds' spread.
  std::vector<std::optional<int>> late;
  for (const auto& v : kFp32) late.push_back(*v + 100);
  EXPECT_FALSE(failed(check_convergence(record(late, kAcc), record(kFp32, kAcc), settings()), "steps_to_target"));
}

TEST(ConvergenceCheck, FinalAccuracyOutsideTheBandFailsAndTheWorstRunIsTrimmed) {
  std::vector<double> low(10, 0.945);
  EXPECT_TRUE(failed(check_convergence(record(kFp32, low), record(kFp32, kAcc), settings()), "final_accuracy"));
  std::vector<double> within(10, 0.952);
  EXPECT_FALSE(failed(check_convergence(record(kFp32, within), record(kFp32, kAcc), settings()), "final_accuracy"));
  std::vector<double> one_bad = kAcc;
  one_bad[3] = 0.1;  // the worst run is dropped before the mean
  EXPECT_FALSE(failed(check_convergence(record(kFp32, one_bad), record(kFp32, kAcc), settings()), "final_accuracy"));
}

TEST(ConvergenceCheck, RefusesAReferenceThatMissesItsOwnTargetAndMismatchedSeeds) {
  EXPECT_EQ(reference_refusal(record(kFp32, kAcc), settings()), "");
  std::vector<std::optional<int>> missed(10, std::nullopt);
  EXPECT_NE(reference_refusal(record(missed, kAcc), settings()).find("is one fp32 itself does not reach"),
            std::string::npos);
  ConvergenceRecord other = record(kFp32, kAcc);
  other.seeds[2].seed = 99;
  EXPECT_THROW(check_convergence(other, record(kFp32, kAcc), settings()), std::invalid_argument);
  other.seeds.pop_back();
  EXPECT_THROW(check_convergence(other, record(kFp32, kAcc), settings()), std::invalid_argument);
}

}  // namespace
}  // namespace ampbench
