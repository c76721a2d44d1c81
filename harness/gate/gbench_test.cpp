#include <gtest/gtest.h>

#include "gate/compare.h"
#include "gate/test_util.h"

namespace ampbench::gate {
namespace {

using namespace test;

const CheckResult& row(const GateReport& r, const std::string& id) {
  for (const auto& c : r.checks) {
    if (c.id == id) return c;
  }
  throw std::runtime_error("no row " + id);
}

TEST(GoogleBenchmark, DetectedByContextAndBenchmarks) {
  EXPECT_EQ(detect_kind(make_gbench({})), InputKind::GoogleBenchmark);
  EXPECT_EQ(detect_kind(make_results({make_case("a")})), InputKind::AmpbenchResults);
}

TEST(GoogleBenchmark, ParsesIterationsAndIgnoresAggregates) {
  json doc = make_gbench({gbench_entries("BM_a", {1.0, 2.0, 3.0})});
  doc["benchmarks"][1]["time_unit"] = "us";
  doc["benchmarks"][2]["error_occurred"] = true;
  const BenchFile f = parse_gbench(doc, "g.json");
  ASSERT_EQ(f.series.size(), 1u);
  EXPECT_EQ(f.series[0].name, "BM_a");
  ASSERT_EQ(f.series[0].entries.size(), 2u);
  EXPECT_EQ(f.series[0].entries[1].real_time_ns, 2000.0);
  EXPECT_EQ(f.series[0].errors, 1u);
}

TEST(GoogleBenchmark, BadEntriesAreInputErrors) {
  json doc = make_gbench({gbench_entries("BM_a", {1.0, 2.0})});
  doc["benchmarks"][0].erase("real_time");
  EXPECT_THROW(parse_gbench(doc, "g.json"), GateInputError);
  doc = make_gbench({gbench_entries("BM_a", {1.0, 2.0})});
  doc["benchmarks"][0]["time_unit"] = "fortnights";
  EXPECT_THROW(parse_gbench(doc, "g.json"), GateInputError);
  doc["benchmarks"] = "nope";
  EXPECT_THROW(parse_gbench(doc, "g.json"), GateInputError);
}

TEST(GoogleBenchmark, RealTimeSlowdownIsARegression) {
  const BenchFile base = parse_gbench(
      make_gbench({gbench_entries("BM_fast", noisy(100, 0.01, 10, 1)), gbench_entries("BM_same", noisy(50, 0.01, 10, 3))}),
      "b.json");
  const BenchFile cur = parse_gbench(
      make_gbench({gbench_entries("BM_fast", noisy(112, 0.01, 10, 2)), gbench_entries("BM_same", noisy(50, 0.01, 10, 4))}),
      "c.json");
  const GateReport r = compare_gbench(base, cur, GateOptions{});
  EXPECT_EQ(r.kind, InputKind::GoogleBenchmark);
  const CheckResult& fast = row(r, "BM_fast");
  EXPECT_EQ(fast.check, "real_time");
  EXPECT_FALSE(fast.higher_is_better);
  EXPECT_EQ(fast.n_baseline, 10u);  // aggregates ignored
  EXPECT_EQ(fast.verdict, GateVerdict::Regression);
  EXPECT_NEAR(*fast.change, 0.12, 0.02);
  EXPECT_EQ(row(r, "BM_same").verdict, GateVerdict::Pass);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(GoogleBenchmark, LowerTimeIsAnImprovement) {
  const BenchFile base = parse_gbench(make_gbench({gbench_entries("BM", noisy(100, 0.01, 9, 1))}), "b.json");
  const BenchFile cur = parse_gbench(make_gbench({gbench_entries("BM", noisy(80, 0.01, 9, 2))}), "c.json");
  EXPECT_EQ(row(compare_gbench(base, cur, GateOptions{}), "BM").verdict, GateVerdict::Improvement);
}

TEST(GoogleBenchmark, ItemsPerSecondHigherIsBetter) {
  const BenchFile base = parse_gbench(make_gbench({gbench_entries("BM", noisy(100, 0.01, 10, 1), true)}), "b.json");
  const BenchFile cur = parse_gbench(make_gbench({gbench_entries("BM", noisy(120, 0.01, 10, 2), true)}), "c.json");
  const GateReport r = compare_gbench(base, cur, GateOptions{});
  const CheckResult& c = row(r, "BM");
  EXPECT_EQ(c.check, "items_per_second");
  EXPECT_TRUE(c.higher_is_better);
  EXPECT_LT(*c.change, -0.1);  // fewer items per second
  EXPECT_EQ(c.verdict, GateVerdict::Regression);
  GateOptions cpu;
  cpu.metric = BenchMetric::CpuTime;
  EXPECT_EQ(row(compare_gbench(base, cur, cpu), "BM").check, "cpu_time");
}

TEST(GoogleBenchmark, MissingBenchmarkAndNoCommonNames) {
  const BenchFile base = parse_gbench(
      make_gbench({gbench_entries("BM_a", {1, 2, 3, 4}), gbench_entries("BM_b", {1, 2, 3, 4})}), "b.json");
  const BenchFile cur = parse_gbench(make_gbench({gbench_entries("BM_a", {1, 2, 3, 4})}), "c.json");
  const GateReport r = compare_gbench(base, cur, GateOptions{});
  EXPECT_EQ(row(r, "BM_b").verdict, GateVerdict::Regression);
  EXPECT_EQ(row(r, "BM_b").check, "presence");
  const BenchFile other = parse_gbench(make_gbench({gbench_entries("BM_z", {1, 2, 3, 4})}), "o.json");
  EXPECT_THROW(compare_gbench(base, other, GateOptions{}), GateInputError);
}

TEST(GoogleBenchmark, ContextMismatchSkipsUnlessAllowed) {
  const BenchFile base = parse_gbench(make_gbench({gbench_entries("BM", noisy(100, 0.01, 10, 1))}), "b.json");
  const BenchFile cur = parse_gbench(
      make_gbench({gbench_entries("BM", noisy(150, 0.01, 10, 2))}, {{"library_build_type", "debug"}}), "c.json");
  const GateReport r = compare_gbench(base, cur, GateOptions{});
  EXPECT_EQ(row(r, "BM").verdict, GateVerdict::Skipped);
  ASSERT_EQ(r.env_differences.size(), 1u);
  EXPECT_NE(r.env_differences[0].find("library_build_type"), std::string::npos);
  GateOptions o;
  o.allow_env_mismatch = true;
  EXPECT_EQ(row(compare_gbench(base, cur, o), "BM").verdict, GateVerdict::Regression);
}

}  // namespace
}  // namespace ampbench::gate
