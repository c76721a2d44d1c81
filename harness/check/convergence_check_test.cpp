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

// A control stopped when caught (ConvergenceSettings::stop_caught_controls)
// holds fp32's first seeds only: judged on them, too few to trim, and said.
TEST(ConvergenceCheck, AControlStoppedWhenCaughtIsJudgedOnTheSeedsItRan) {
  ConvergenceRecord stopped = record({900, std::nullopt, std::nullopt}, {0.951, 0.93, 0.92});
  EXPECT_THROW(check_convergence(stopped, record(kFp32, kAcc), settings()), std::invalid_argument)
      << "fewer runs than fp32's without the stop";
  stopped.stopped_when_caught = true;
  const ConvergenceSummary s = check_convergence(stopped, record(kFp32, kAcc), settings());
  EXPECT_TRUE(failed(s, "seeds_missed"));
  EXPECT_EQ(s.candidate.missed, 2);
  EXPECT_NEAR(s.candidate.accuracy_mean, 0.93, 1e-12) << "the middle one of three, trimmed";
  ASSERT_FALSE(s.failures.empty());
  EXPECT_NE(s.failures[0].find("2 of 3 runs never reached the target accuracy 0.950"), std::string::npos)
      << s.failures[0];
  EXPECT_NE(s.failures[0].find("caught, so its other 7 seeds were not trained"), std::string::npos) << s.failures[0];
  const ConvergenceSummary two = check_convergence(
      [] { ConvergenceRecord r = record({std::nullopt, std::nullopt}, {0.90, 0.92}); r.stopped_when_caught = true; return r; }(),
      record(kFp32, kAcc), settings());
  EXPECT_NEAR(two.candidate.accuracy_mean, 0.91, 1e-12) << "two runs: the mean of both, not NaN";
  EXPECT_TRUE(failed(two, "final_accuracy"));
  stopped.seeds[1].seed = 99;
  EXPECT_THROW(check_convergence(stopped, record(kFp32, kAcc), settings()), std::invalid_argument)
      << "still fp32's seeds, in its order";
}

}  // namespace
}  // namespace ampbench
