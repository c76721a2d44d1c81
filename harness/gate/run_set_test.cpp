#include "gate/run_set.h"

#include <gtest/gtest.h>

#include "gate/compare.h"
#include "gate/test_util.h"

namespace ampbench::gate {
namespace {

using namespace test;

ResultsFile run(const std::string& path, const std::vector<json>& cases, const json& env = make_env()) {
  return parse_results(make_results(cases, env), path);
}

const ResultsCase& find(const ResultsFile& r, const std::string& id) {
  for (const auto& c : r.cases) {
    if (c.id == id) return c;
  }
  throw std::runtime_error("no case " + id);
}

TEST(RunSet, RunMediansNeedTwoRunsPerSide) {
  EXPECT_TRUE(use_run_medians(2, 5));
  EXPECT_FALSE(use_run_medians(1, 5));
  EXPECT_FALSE(use_run_medians(5, 1));
}

TEST(RunSet, OneMedianPerRunOrPooledRepetitions) {
  const std::vector<ResultsFile> runs = {run("r1", {make_case("a", {10, 11, 12})}),
                                         run("r2", {make_case("a", {20, 21, 22, 23})}),
                                         run("r3", {make_case("a", {30})})};
  const ResultsFile medians = merge_runs(runs, true);
  EXPECT_EQ(medians.runs, 3u);
  EXPECT_TRUE(medians.run_medians);
  EXPECT_EQ(find(medians, "a").samples, (std::vector<double>{11, 21.5, 30}));
  EXPECT_EQ(find(medians, "a").runs, 3u);
  EXPECT_EQ(medians.path, "r1 (+2 more)");
  const ResultsFile pooled = merge_runs(runs, false);
  EXPECT_FALSE(pooled.run_medians);
  EXPECT_EQ(find(pooled, "a").samples.size(), 8u);
}

TEST(RunSet, TheWorstRunSpeaksForConformance) {
  const ResultsFile merged = merge_runs({run("r1", {make_case("a", {1, 2}), make_case("b")}),
                                         run("r2", {make_case("a", {1, 2}, "fail", false), make_case("b")}),
                                         run("r3", {make_case("a", {1, 2}), make_case("b", {}, "error", false)})},
                                        true);
  const ResultsCase& a = find(merged, "a");
  EXPECT_EQ(a.status, CaseStatus::kFail);
  EXPECT_EQ(a.reason, "in 1 of 3 runs: reason for fail");
  EXPECT_EQ(a.samples.size(), 3u);  // the failing run's throughput still counts
  EXPECT_EQ(find(merged, "b").status, CaseStatus::kError);
  EXPECT_TRUE(merged.notices.empty());
}

TEST(RunSet, CasesMissingFromSomeRunsAreReported) {
  json partial = make_results({make_case("a", {1})});
  partial["complete"] = false;
  const ResultsFile merged =
      merge_runs({run("r1", {make_case("a", {1}), make_case("b", {1})}), parse_results(partial, "r2")}, true);
  EXPECT_FALSE(merged.complete);
  EXPECT_EQ(find(merged, "b").runs, 1u);
  ASSERT_EQ(merged.notices.size(), 1u);
  EXPECT_NE(merged.notices[0].find("b (1 of 2)"), std::string::npos) << merged.notices[0];
}

TEST(RunSet, RunsMustMeasureAlike) {
  json other = make_case("a", {1, 2});
  other["batch_size"] = 32;
  try {
    merge_runs({run("r1", {make_case("a", {1, 2})}), run("r2", {other})}, true);
    FAIL() << "expected GateInputError";
  } catch (const GateInputError& e) {
    EXPECT_EQ(e.file(), "r2");
    EXPECT_NE(e.problem().find("batch_size 32"), std::string::npos) << e.problem();
  }
  EXPECT_THROW(merge_runs({run("r1", {make_case("a")}), run("r2", {make_case("a")}, make_env("cuda", "H200"))}, true),
               GateInputError);
}

TEST(RunSet, SeveralGoogleBenchmarkFilesPerSideAreRefused) {
  TempDir dir;
  const std::string g = write_json(dir.file("g.json"), make_gbench({gbench_entries("BM", {1, 2, 3, 4})}));
  const std::string r = write_json(dir.file("r.json"), make_results({make_case("a", {1, 2, 3, 4})}));
  EXPECT_THROW(compare_files({g}, {g, g}, GateOptions{}), GateInputError);
  GateOptions paired;
  paired.paired = true;
  EXPECT_THROW(compare_files({g}, {g}, paired), GateInputError);
  try {
    compare_files({r, r}, {r, g}, GateOptions{});
    FAIL() << "expected GateInputError";
  } catch (const GateInputError& e) {
    EXPECT_EQ(e.file(), g);
    EXPECT_NE(e.problem().find("compare files of one kind"), std::string::npos) << e.problem();
  }
}

}  // namespace
}  // namespace ampbench::gate
