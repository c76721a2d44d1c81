#include "gate/compare.h"

#include <gtest/gtest.h>

#include "gate/test_util.h"

namespace ampbench::gate {
namespace {

using namespace test;

GateReport compare_docs(const json& baseline, const json& current, const GateOptions& o = {}) {
  return compare_results(parse_results(baseline, "base.json"), parse_results(current, "cur.json"), o);
}

const CheckResult& find(const GateReport& r, const std::string& id, const std::string& check) {
  for (const auto& c : r.checks) {
    if (c.id == id && c.check == check) return c;
  }
  throw std::runtime_error("no row " + id + " " + check);
}

bool has_row(const GateReport& r, const std::string& id, const std::string& check) {
  for (const auto& c : r.checks) {
    if (c.id == id && c.check == check) return true;
  }
  return false;
}

bool notice_contains(const GateReport& r, const std::string& text) {
  for (const auto& n : r.notices) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

const std::string kId = "plain/mlp/fp16/sgd";

TEST(CompareThroughput, IdenticalSamplesPass) {
  const json doc = make_results({make_case(kId, noisy(1000, 0.01, 10, 1))});
  const GateReport r = compare_docs(doc, doc);
  const CheckResult& t = find(r, kId, "throughput");
  EXPECT_EQ(t.verdict, GateVerdict::Pass);
  EXPECT_DOUBLE_EQ(*t.change, 0.0);
  EXPECT_DOUBLE_EQ(*t.p_value, 1.0);
  EXPECT_EQ(find(r, kId, "conformance").verdict, GateVerdict::Pass);
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(CompareThroughput, TenPercentSlowdownIsARegression) {
  const GateReport r = compare_docs(make_results({make_case(kId, noisy(1000, 0.01, 10, 1))}),
                                    make_results({make_case(kId, noisy(900, 0.01, 10, 2))}));
  const CheckResult& t = find(r, kId, "throughput");
  EXPECT_EQ(t.verdict, GateVerdict::Regression);
  EXPECT_NEAR(*t.change, -0.10, 0.02);
  EXPECT_LT(*t.p_value, 0.001);
  EXPECT_EQ(t.n_baseline, 10u);
  EXPECT_EQ(t.min_effect, 0.05);
  EXPECT_NE(t.detail.find("slower"), std::string::npos);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(CompareThroughput, TwoPercentChangeIsBelowTheMinimumEffect) {
  // Significant (the samples do not overlap) but only 2%: not a regression.
  const GateReport r = compare_docs(make_results({make_case(kId, noisy(1000, 0.005, 10, 1))}),
                                    make_results({make_case(kId, noisy(980, 0.005, 10, 2))}));
  const CheckResult& t = find(r, kId, "throughput");
  EXPECT_LT(*t.p_value, 0.05);
  EXPECT_EQ(t.verdict, GateVerdict::Pass);
  EXPECT_NE(t.detail.find("within the min effect"), std::string::npos);
  EXPECT_TRUE(r.passed());
}

TEST(CompareThroughput, LargeButNoisyChangeIsNotSignificant) {
  const GateReport r = compare_docs(make_results({make_case(kId, {1000, 600, 1400, 900, 1100, 700})}),
                                    make_results({make_case(kId, {1300, 500, 950, 650, 1150, 850})}));
  const CheckResult& t = find(r, kId, "throughput");
  EXPECT_GT(*t.p_value, 0.05);
  EXPECT_EQ(t.verdict, GateVerdict::Pass);
}

TEST(CompareThroughput, SpeedupIsAnImprovement) {
  const GateReport r = compare_docs(make_results({make_case(kId, noisy(1000, 0.01, 10, 1))}),
                                    make_results({make_case(kId, noisy(1500, 0.01, 10, 2))}));
  EXPECT_EQ(find(r, kId, "throughput").verdict, GateVerdict::Improvement);
  EXPECT_TRUE(r.passed());
}

TEST(CompareThroughput, TooFewRepetitionsIsAWarningNotARegression) {
  const GateReport r = compare_docs(make_results({make_case(kId, {1000, 1001, 1002})}),
                                    make_results({make_case(kId, {500, 501, 502})}));
  const CheckResult& t = find(r, kId, "throughput");
  EXPECT_EQ(t.verdict, GateVerdict::Warning);
  EXPECT_EQ(t.label, "insufficient reps");
  EXPECT_NEAR(*t.min_attainable_p, 0.1, 1e-12);
  EXPECT_NE(t.detail.find("insufficient repetitions"), std::string::npos);
  EXPECT_TRUE(notice_contains(r, "insufficient repetitions for 1 comparison"));
  EXPECT_TRUE(notice_contains(r, "at least 4 repetitions per side"));
  EXPECT_TRUE(r.passed());
}

TEST(CompareThroughput, FourRepetitionsAreEnough) {
  const GateReport r = compare_docs(make_results({make_case(kId, {1000, 1001, 1002, 1003})}),
                                    make_results({make_case(kId, {500, 501, 502, 503})}));
  EXPECT_EQ(find(r, kId, "throughput").verdict, GateVerdict::Regression);
}

TEST(CompareThroughput, MinEffectPrecedence) {
  const json base = make_results({make_case("a", noisy(1000, 0.005, 10, 1)), make_case("b", noisy(1000, 0.005, 10, 3)),
                                  make_case("c", noisy(1000, 0.005, 10, 5))});
  json cur = make_results({make_case("a", noisy(920, 0.005, 10, 2)), make_case("b", noisy(920, 0.005, 10, 4)),
                           make_case("c", noisy(920, 0.005, 10, 6))});
  // ~8% slower everywhere: a regression at 5%...
  GateReport r = compare_docs(base, cur);
  EXPECT_EQ(r.count(GateVerdict::Regression, "throughput"), 3u);
  // ...not with --min-effect 0.1...
  GateOptions loose;
  loose.min_effect = 0.10;
  EXPECT_EQ(compare_docs(base, cur, loose).count(GateVerdict::Regression), 0u);
  // ...the suite-level "gate" beats the option, and a case's "gate" beats both.
  cur["gate"] = {{"min_effect", 0.10}};
  cur["cases"][1]["gate"] = {{"min_effect", 0.02}};
  r = compare_docs(base, cur);
  EXPECT_EQ(find(r, "a", "throughput").verdict, GateVerdict::Pass);
  EXPECT_EQ(find(r, "a", "throughput").min_effect, 0.10);
  EXPECT_EQ(find(r, "b", "throughput").verdict, GateVerdict::Regression);
  EXPECT_EQ(find(r, "b", "throughput").min_effect, 0.02);
}

TEST(CompareThroughput, DifferentMeasurementSettingsAreNotCompared) {
  json cur = make_results({make_case(kId, noisy(500, 0.01, 10, 2))});
  cur["cases"][0]["throughput"]["input"] = "host";
  const GateReport r = compare_docs(make_results({make_case(kId, noisy(1000, 0.01, 10, 1))}), cur);
  const CheckResult& t = find(r, kId, "throughput");
  EXPECT_EQ(t.verdict, GateVerdict::Skipped);
  EXPECT_NE(t.detail.find("input \"cached\" vs \"host\""), std::string::npos);
}

TEST(CompareThroughput, NoLongerMeasuredIsAWarning) {
  // One case no longer measured while another still is (a current run
  // measured nowhere is refused: RefusesACurrentRunWithoutAnySample).
  const GateReport r =
      compare_docs(make_results({make_case(kId, noisy(1000, 0.01, 10, 1)), make_case("b", noisy(1000, 0.01, 10, 2))}),
                   make_results({make_case(kId), make_case("b", noisy(1000, 0.01, 10, 3))}));
  EXPECT_EQ(find(r, kId, "throughput").verdict, GateVerdict::Warning);
  // Neither measured: no throughput row at all.
  const GateReport none = compare_docs(make_results({make_case(kId)}), make_results({make_case(kId)}));
  EXPECT_FALSE(has_row(none, kId, "throughput"));
}

TEST(CompareThroughput, RefusesACurrentRunWithoutAnySample) {
  // A --no-throughput run against a measured baseline: every throughput row
  // would be a warning and the gate would pass, having compared nothing.
  const json base = make_results({make_case(kId, noisy(1000, 0.01, 10, 1)), make_case("b", noisy(1000, 0.01, 10, 2))});
  const json cur = make_results({make_case(kId), make_case("b")});
  try {
    compare_docs(base, cur);
    FAIL() << "a current run without a single sample was gated";
  } catch (const GateInputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds no throughput samples"), std::string::npos) << e.what();
  }
  GateOptions o;
  o.conformance_only = true;
  EXPECT_TRUE(compare_docs(base, cur, o).passed());
}

TEST(CompareConformance, ConformingToFailingIsARegression) {
  json cur = make_results({make_case(kId, {}, "fail", false)});
  cur["cases"][0]["check"] = {{"failures", {"param_rel_l2 0.31 > 0.02"}}};
  const GateReport r = compare_docs(make_results({make_case(kId)}), cur);
  const CheckResult& c = find(r, kId, "conformance");
  EXPECT_EQ(c.verdict, GateVerdict::Regression);
  EXPECT_EQ(c.baseline, "ok");
  EXPECT_EQ(c.current, "FAIL");
  EXPECT_NE(c.detail.find("param_rel_l2 0.31 > 0.02"), std::string::npos);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(CompareConformance, ErrorIsARegression) {
  const GateReport r = compare_docs(make_results({make_case(kId)}), make_results({make_case(kId, {}, "error", false)}));
  EXPECT_EQ(find(r, kId, "conformance").verdict, GateVerdict::Regression);
  EXPECT_EQ(find(r, kId, "conformance").current, "ERROR");
}

TEST(CompareConformance, NegativeControlThatFailsConforms) {
  // status "fail" + conforms true (an expected failure) is fine.
  const json doc = make_results({make_case("neg", {}, "fail", true)});
  EXPECT_EQ(find(compare_docs(doc, doc), "neg", "conformance").verdict, GateVerdict::Pass);
}

TEST(CompareConformance, NegativeControlThatStopsFailingIsARegression) {
  json neg = make_case("neg", {}, "fail", true);
  neg["expect"] = "fail";
  json now = make_case("neg", {}, "pass", false);
  now["expect"] = "fail";
  const GateReport r = compare_docs(make_results({neg}), make_results({now}));
  EXPECT_EQ(find(r, "neg", "conformance").verdict, GateVerdict::Regression);
  EXPECT_NE(find(r, "neg", "conformance").detail.find("status \"pass\" (expected \"fail\")"), std::string::npos)
      << find(r, "neg", "conformance").detail;
}

TEST(CompareConformance, KnownFailureAndFix) {
  const json failing = make_results({make_case(kId, {}, "fail", false)});
  const json passing = make_results({make_case(kId)});
  const GateReport known = compare_docs(failing, failing);
  EXPECT_EQ(find(known, kId, "conformance").verdict, GateVerdict::Warning);
  EXPECT_EQ(find(known, kId, "conformance").label, "known failure");
  EXPECT_TRUE(known.passed());
  EXPECT_EQ(find(compare_docs(failing, passing), kId, "conformance").verdict, GateVerdict::Improvement);
}

TEST(CompareConformance, MissingCaseIsARegressionByDefault) {
  const json base = make_results({make_case("a"), make_case("b")});
  const json cur = make_results({make_case("a")});
  const GateReport r = compare_docs(base, cur);
  const CheckResult& c = find(r, "b", "conformance");
  EXPECT_EQ(c.verdict, GateVerdict::Regression);
  EXPECT_EQ(c.current, "missing");
  EXPECT_EQ(r.exit_code(), 1);
  GateOptions o;
  o.allow_missing = true;
  const GateReport allowed = compare_docs(base, cur, o);
  EXPECT_EQ(find(allowed, "b", "conformance").verdict, GateVerdict::Warning);
  EXPECT_TRUE(allowed.passed());
}

TEST(CompareConformance, NewlySkippedIsARegressionByDefault) {
  const json base = make_results({make_case(kId, noisy(1000, 0.01, 5, 1)), make_case("b", noisy(1000, 0.01, 5, 2))});
  const json cur = make_results({make_case(kId, {}, "skipped"), make_case("b", noisy(1000, 0.01, 5, 3))});
  const GateReport r = compare_docs(base, cur);
  const CheckResult& c = find(r, kId, "conformance");
  EXPECT_EQ(c.verdict, GateVerdict::Regression);
  EXPECT_EQ(c.label, "NEWLY SKIPPED");
  EXPECT_NE(c.detail.find("reason for skipped"), std::string::npos);
  EXPECT_EQ(find(r, kId, "throughput").verdict, GateVerdict::Skipped);
  GateOptions o;
  o.allow_new_skips = true;
  EXPECT_TRUE(compare_docs(base, cur, o).passed());
  // Skipped in both: fine.
  EXPECT_TRUE(compare_docs(cur, cur).passed());
}

TEST(CompareConformance, NewCases) {
  const json base = make_results({make_case("a")});
  const GateReport ok = compare_docs(base, make_results({make_case("a"), make_case("new")}));
  EXPECT_EQ(find(ok, "new", "conformance").label, "new");
  EXPECT_TRUE(ok.passed());
  const GateReport bad = compare_docs(base, make_results({make_case("a"), make_case("new", {}, "fail", false)}));
  EXPECT_EQ(find(bad, "new", "conformance").verdict, GateVerdict::Regression);
  EXPECT_EQ(find(bad, "new", "conformance").label, "NEW FAILURE");
}

TEST(CompareConformance, RowOrderIsCurrentThenMissing) {
  const GateReport r =
      compare_docs(make_results({make_case("x"), make_case("a"), make_case("gone")}),
                   make_results({make_case("a"), make_case("x"), make_case("new")}));
  ASSERT_EQ(r.checks.size(), 4u);
  EXPECT_EQ(r.checks[0].id, "a");
  EXPECT_EQ(r.checks[1].id, "x");
  EXPECT_EQ(r.checks[2].id, "new");
  EXPECT_EQ(r.checks[3].id, "gone");
}

TEST(CompareEnv, MismatchSkipsThroughputWithANotice) {
  const json base = make_results({make_case(kId, noisy(1000, 0.01, 10, 1))}, make_env("cuda", "NVIDIA H200", "x", "2.11.0", "12.8"));
  const json cur = make_results({make_case(kId, noisy(500, 0.01, 10, 2))}, make_env("cuda", "NVIDIA A100", "x", "2.11.0", "12.8"));
  const GateReport r = compare_docs(base, cur);
  EXPECT_FALSE(r.throughput_compared);
  ASSERT_EQ(r.env_differences.size(), 1u);
  EXPECT_TRUE(notice_contains(r, "gpu_name: \"NVIDIA H200\" vs \"NVIDIA A100\""));
  EXPECT_TRUE(notice_contains(r, "throughput not compared"));
  EXPECT_EQ(find(r, kId, "throughput").verdict, GateVerdict::Skipped);
  EXPECT_EQ(find(r, kId, "throughput").label, "env mismatch");
  EXPECT_NEAR(*find(r, kId, "throughput").change, -0.5, 0.02);  // shown, not judged
  EXPECT_FALSE(find(r, kId, "throughput").p_value.has_value());
  EXPECT_TRUE(r.passed());  // a mismatch is not a failure
}

TEST(CompareEnv, AllowEnvMismatchCompares) {
  const json base = make_results({make_case(kId, noisy(1000, 0.01, 10, 1))}, make_env("cpu", "none", "CPU A"));
  const json cur = make_results({make_case(kId, noisy(500, 0.01, 10, 2))}, make_env("cpu", "none", "CPU B"));
  GateOptions o;
  o.allow_env_mismatch = true;
  const GateReport r = compare_docs(base, cur, o);
  EXPECT_TRUE(r.throughput_compared);
  EXPECT_TRUE(notice_contains(r, "cpu_model"));
  EXPECT_EQ(find(r, kId, "throughput").verdict, GateVerdict::Regression);
}

TEST(CompareEnv, ConformanceIsComparedDespiteMismatch) {
  const json base = make_results({make_case(kId)}, make_env("cpu", "none", "CPU A"));
  const json cur = make_results({make_case(kId, {}, "fail", false)}, make_env("cpu", "none", "CPU B"));
  EXPECT_EQ(find(compare_docs(base, cur), kId, "conformance").verdict, GateVerdict::Regression);
}

// One model name, two machines: a hypervisor's "AMD EPYC" of two
// generations, or one CPU with its kernels held to AVX2. Files from before
// these keys were recorded are still compared on the name alone.
TEST(CompareEnv, CpuGenerationAndKernelCeilingUnderOneNameAreMismatches) {
  json base_env = make_env("cpu", "none", "AMD EPYC");
  base_env["cpu_id"] = "AuthenticAMD family 25 model 17";
  base_env["cpu_capability"] = "AVX512";
  json zen5 = base_env;
  zen5["cpu_id"] = "AuthenticAMD family 26 model 2";
  json held = base_env;
  held["cpu_capability"] = "AVX2";
  const json base = make_results({make_case(kId, noisy(1000, 0.01, 10, 1))}, base_env);
  const GateReport other_generation = compare_docs(base, make_results({make_case(kId, noisy(1500, 0.01, 10, 2))}, zen5));
  EXPECT_FALSE(other_generation.throughput_compared);
  EXPECT_TRUE(notice_contains(other_generation, "cpu_id: \"AuthenticAMD family 25 model 17\" vs \"AuthenticAMD family 26 model 2\""));
  const GateReport capped = compare_docs(base, make_results({make_case(kId, noisy(500, 0.01, 10, 2))}, held));
  EXPECT_FALSE(capped.throughput_compared);
  EXPECT_TRUE(notice_contains(capped, "cpu_capability: \"AVX512\" vs \"AVX2\""));
  json older = base_env;
  older.erase("cpu_id");
  older.erase("cpu_capability");
  const GateReport from_older = compare_docs(make_results({make_case(kId, noisy(1000, 0.01, 10, 1))}, older),
                                             make_results({make_case(kId, noisy(1000, 0.01, 10, 2))}, zen5));
  EXPECT_TRUE(from_older.throughput_compared);
  EXPECT_TRUE(from_older.env_differences.empty());
}

TEST(CompareFiles, IncompleteCurrentIsRefusedUnlessAllowed) {
  json cur = make_results({make_case("a")});
  cur["complete"] = false;
  try {
    compare_docs(make_results({make_case("a")}), cur);
    FAIL() << "an unfinished current run was gated";
  } catch (const GateInputError& e) {
    EXPECT_EQ(e.file(), "cur.json");
    EXPECT_NE(e.problem().find("did not finish (complete=false)"), std::string::npos) << e.what();
  }
  GateOptions o;
  o.allow_incomplete = true;
  const GateReport r = compare_docs(make_results({make_case("a")}), cur, o);
  EXPECT_TRUE(notice_contains(r, "incomplete"));
}

TEST(CompareFiles, DifferentSuitesAreRefusedUnlessAllowed) {
  json base = make_results({make_case("a")});
  base["suite"] = "other";
  EXPECT_THROW(compare_docs(base, make_results({make_case("a")})), GateInputError);
  GateOptions o;
  o.allow_suite_mismatch = true;
  EXPECT_TRUE(notice_contains(compare_docs(base, make_results({make_case("a")}), o), "suites differ"));
}

}  // namespace
}  // namespace ampbench::gate

namespace ampbench::gate {
namespace {

using namespace test;

json compiled_case(const std::vector<std::string>& breaks) {
  json c = make_case("plain/mlp/bf16/sgd", noisy(1000, 0.01, 10, 1));
  json reasons = json::array();
  for (const std::string& why : breaks) reasons.push_back({{"reason", why}});
  c["compiled"] = {{"graph_breaks", reasons}, {"graph_break_count", breaks.size()}};
  return c;
}

// An upgrade that adds a graph break fails the gate, naming the new break;
// one that removes a break is an improvement; an eager case has no row.
TEST(CompareGraphBreaks, MoreBreaksThanTheBaselineIsARegression) {
  const json none = make_results({compiled_case({})});
  const json one = make_results({compiled_case({"Tensor.item() call"})});
  const GateReport worse = compare_results(parse_results(none, "b.json"), parse_results(one, "c.json"), {});
  ASSERT_EQ(worse.exit_code(), 1);
  const CheckResult* row = nullptr;
  for (const CheckResult& c : worse.checks)
    if (c.check == "graph_breaks") row = &c;
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->verdict, GateVerdict::Regression);
  EXPECT_NE(row->detail.find("0 -> 1 (first new: Tensor.item() call)"), std::string::npos) << row->detail;
  const GateReport better = compare_results(parse_results(one, "b.json"), parse_results(none, "c.json"), {});
  EXPECT_EQ(better.exit_code(), 0);
  const GateReport eager = compare_results(parse_results(make_results({make_case("plain/mlp/bf16/sgd", noisy(1000, 0.01, 10, 1))}), "b.json"),
                                           parse_results(make_results({make_case("plain/mlp/bf16/sgd", noisy(1000, 0.01, 10, 2))}), "c.json"), {});
  for (const CheckResult& c : eager.checks) EXPECT_NE(c.check, "graph_breaks");
}

}  // namespace
}  // namespace ampbench::gate
