#include "results/convergence_json.h"

#include <gtest/gtest.h>

namespace ampbench {
namespace {

CaseRecord converge_record() {
  CaseRecord rec;
  rec.spec.convergence = ConvergenceSettings{};
  rec.spec.convergence->seeds = {1, 2};
  return rec;
}

TEST(ConvergenceJson, ACaseThatTrainedNoSeedHasAnEmptyRunsArray) {
  CaseRecord rec = converge_record();
  rec.status = RunStatus::kError;
  const nlohmann::json out = convergence_to_json(rec, std::nullopt);
  ASSERT_TRUE(out["runs"].is_array()) << out.dump();
  EXPECT_TRUE(out["runs"].empty());
  EXPECT_TRUE(out["summary"].is_null());
  EXPECT_EQ(out["rule"]["seeds"], nlohmann::json::array({1, 2}));
}

TEST(ConvergenceJson, EverySeedsCurveWithItsSkippedSteps) {
  CaseRecord rec = converge_record();
  ConvergenceRecord r;
  SeedCurve a;
  a.seed = 1;
  a.step = {100, 200};
  a.accuracy = {0.5, 0.96};
  a.loss = {1.0, 0.2};
  a.train_loss = {1.1, 0.3};
  a.scale = {65536, 32768};
  a.skipped_steps = 1;
  a.steps_to_target = 200;
  a.final_accuracy = 0.96;
  r.seeds = {a};
  rec.convergence = r;
  const nlohmann::json runs = convergence_to_json(rec, std::nullopt)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["skipped_steps"], 1);
  EXPECT_EQ(runs[0]["steps_to_target"], 200);
  EXPECT_EQ(runs[0]["scale"], nlohmann::json::array({65536.0, 32768.0}));
}

}  // namespace
}  // namespace ampbench
