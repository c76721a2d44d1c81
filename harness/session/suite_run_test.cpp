#include "session/suite_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "gate/test_util.h"
#include "session/summary_table.h"

namespace ampbench {
namespace {

Suite small_suite() {
  return parse_suite(R"({
    "name": "t",
    "models": {"mlp": {"batch": 8, "in_features": 8, "hidden": 8, "classes": 8},
               "cnn": {"batch": 4, "channels": 8, "image": 8, "classes": 8}},
    "matrix": {"workloads": ["plain", "clip_norm", "clip_value"], "models": ["mlp", "cnn"],
               "precisions": ["fp32", "fp16", "bf16"], "optimizers": ["sgd"]},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}}})",
                     "t.json", DeviceKind::kCpu);
}

std::vector<std::string> ids(const std::vector<CaseSpec>& cases) {
  std::vector<std::string> out;
  for (const CaseSpec& c : cases) out.push_back(c.id);
  return out;
}

TEST(SelectCases, FieldFilterMatchesEveryFieldAndAddsBaselines) {
  const auto selected = ids(select_cases(small_suite(), "workload=clip,precision=fp16,model=mlp"));
  EXPECT_EQ(selected, (std::vector<std::string>{"clip_norm/mlp/fp32/sgd", "clip_norm/mlp/fp16/sgd",
                                                "clip_value/mlp/fp32/sgd", "clip_value/mlp/fp16/sgd"}));
}

TEST(SelectCases, RepeatedKeyOrBarMeansEither) {
  const auto a = ids(select_cases(small_suite(), "workload=plain,precision=fp16|bf16,model=cnn"));
  const auto b = ids(select_cases(small_suite(), "workload=plain,precision=fp16,precision=bf16,model=cnn"));
  EXPECT_EQ(a, (std::vector<std::string>{"plain/cnn/fp32/sgd", "plain/cnn/fp16/sgd", "plain/cnn/bf16/sgd"}));
  EXPECT_EQ(a, b);
}

TEST(SelectCases, RegexStillWorksAndBadInputIsRejected) {
  EXPECT_EQ(ids(select_cases(small_suite(), "^plain/mlp/bf16")),
            (std::vector<std::string>{"plain/mlp/fp32/sgd", "plain/mlp/bf16/sgd"}));
  try {
    select_cases(small_suite(), "workload=plain,colour=red");
    FAIL() << "an unknown field was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown field 'colour'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(select_cases(small_suite(), "(["), std::invalid_argument);
  EXPECT_TRUE(select_cases(small_suite(), "workload=penalty").empty());
}

// A filtered run trains a baseline's envelope replicas only for the
// precisions it still judges: the others' would be consumed by no case.
TEST(SelectCases, ABaselineKeepsTheEnvelopesOfTheSelectedPrecisionsOnly) {
  const auto baseline = [](const std::vector<CaseSpec>& cases) {
    return *std::find_if(cases.begin(), cases.end(), [](const CaseSpec& c) { return c.id == "plain/cnn/fp32/sgd"; });
  };
  const std::vector<Precision> all = baseline(select_cases(small_suite(), "")).envelope_precisions;
  ASSERT_GE(all.size(), 2u) << "the suite must compare several precisions with the baseline";
  EXPECT_EQ(baseline(select_cases(small_suite(), "workload=plain,precision=bf16,model=cnn")).envelope_precisions,
            (std::vector<Precision>{Precision::kBf16}));
  EXPECT_EQ(baseline(select_cases(small_suite(), "workload=plain,model=cnn")).envelope_precisions, all);
  EXPECT_TRUE(baseline(select_cases(small_suite(), "^plain/cnn/fp32/sgd$")).envelope_precisions.empty());
}

TEST(RunCases, AReducedPrecisionCaseGetsItsSpeedupOverItsOwnFp32Baseline) {
  const Suite suite = parse_suite(R"({
    "name": "t",
    "defaults": {"steps": 3},
    "models": {"mlp": {"batch": 8, "in_features": 8, "hidden": 8, "classes": 8}},
    "throughput": {"warmup_steps": 1, "measured_steps": 2, "repetitions": 2},
    "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": ["fp32", "bf16"], "optimizers": ["sgd"]},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}}})",
                                  "t.json", DeviceKind::kCpu);
  const gate::test::TempDir tmp;
  const std::string path = tmp.file("speedup-results.json");
  ResultsWriter writer(path, suite.name, suite.path, nlohmann::json::object());
  RunOptions options;
  options.measure_throughput = true;
  std::ostringstream progress;
  run_cases(suite.cases, Runner(options), writer, progress, {});
  std::map<std::string, nlohmann::json> by_id;
  for (const nlohmann::json& c : writer.document()["cases"]) by_id[c["id"]] = c["throughput"];
  const nlohmann::json& fp32 = by_id.at("plain/mlp/fp32/sgd");
  const nlohmann::json& bf16 = by_id.at("plain/mlp/bf16/sgd");
  ASSERT_TRUE(bf16.is_object()) << progress.str();
  ASSERT_TRUE(bf16["speedup_vs_fp32"].is_number()) << bf16.dump();
  EXPECT_DOUBLE_EQ(bf16["speedup_vs_fp32"].get<double>(), bf16["median"].get<double>() / fp32["median"].get<double>());
  EXPECT_TRUE(fp32["speedup_vs_fp32"].is_null()) << "a baseline has no speedup over itself";
}

// The cases as the one results reader gives them back from a results file
// (conforms null and no samples unless a case says otherwise).
ResultsFile read_cases(nlohmann::json cases) {
  for (nlohmann::json& c : cases) {
    if (!c.contains("conforms")) c["conforms"] = nullptr;
    if (c["throughput"].is_object()) c["throughput"]["samples_per_s"] = nlohmann::json::array();
  }
  return parse_results(gate::test::make_results(cases.get<std::vector<nlohmann::json>>()), "t.json");
}

TEST(SummaryTable, OneRowPerCaseFamilyOneColumnPerPrecision) {
  const nlohmann::json results = {
      {"cases",
       {{{"id", "plain/mlp/fp32/sgd"}, {"precision", "fp32"}, {"status", "pass"}, {"expect", "pass"},
         {"throughput", {{"median", 1000.0}, {"speedup_vs_fp32", nullptr}}}},
        {{"id", "plain/mlp/fp16/sgd"}, {"precision", "fp16"}, {"status", "fail"}, {"expect", "pass"},
         {"throughput", {{"median", 500.0}, {"speedup_vs_fp32", 0.5}}}},
        {{"id", "clip_norm+clip_before_unscale/mlp/fp16/sgd"}, {"precision", "fp16"}, {"status", "fail"},
         {"expect", "fail"}, {"throughput", nullptr}}}}};
  std::ostringstream out;
  print_summary_table(out, read_cases(results["cases"]));
  const std::string text = out.str();
  EXPECT_NE(text.find("plain/mlp/sgd"), std::string::npos) << text;
  EXPECT_NE(text.find("pass 1000/s"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL 500/s x0.50"), std::string::npos) << text;
  EXPECT_NE(text.find("caught"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;  // header + 2 rows
}

TEST(SummaryTable, ATf32ColumnOnlyWhenSomeCaseIsTf32) {
  nlohmann::json results = {
      {"cases",
       {{{"id", "plain/mlp/fp32/sgd"}, {"precision", "fp32"}, {"status", "pass"}, {"expect", "pass"},
         {"throughput", nullptr}}}}};
  std::ostringstream without;
  print_summary_table(without, read_cases(results["cases"]));
  EXPECT_EQ(without.str().find("tf32"), std::string::npos) << without.str();
  results["cases"].push_back({{"id", "plain/mlp/tf32/sgd"}, {"precision", "tf32"}, {"status", "skipped"},
                              {"expect", "pass"}, {"throughput", nullptr}});
  std::ostringstream with;
  print_summary_table(with, read_cases(results["cases"]));
  const std::string text = with.str();
  EXPECT_NE(text.find("bf16  tf32"), std::string::npos) << text;
  EXPECT_NE(text.find("pass  -     -     skipped"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;  // header + 1 row
}

TEST(SummaryTable, O2AndO3SitBesideFp16AndAReportedVerdictIsNotRed) {
  const nlohmann::json results = {
      {"cases",
       {{{"id", "plain/mlp/fp32/sgd"}, {"precision", "fp32"}, {"status", "pass"}, {"expect", "pass"},
         {"throughput", nullptr}},
        {{"id", "plain/mlp/o2/sgd"}, {"precision", "o2"}, {"status", "pass"}, {"expect", "pass"},
         {"throughput", nullptr}},
        {{"id", "plain/mlp/o3/sgd"}, {"precision", "o3"}, {"status", "fail"}, {"expect", "report"},
         {"throughput", nullptr}}}}};
  std::ostringstream out;
  print_summary_table(out, read_cases(results["cases"]));
  const std::string text = out.str();
  EXPECT_NE(text.find("fp16  o2    o3             bf16"), std::string::npos) << text;
  EXPECT_NE(text.find("reported fail"), std::string::npos) << text;
  EXPECT_EQ(text.find("FAIL"), std::string::npos) << text;
}

CaseTally tally(CaseStatus status, bool control = false, bool reported = false) {
  // conforms as make_case_result decides it: a control conforms when caught,
  // a reported-only case either way, an error never.
  const bool conforms = status != CaseStatus::kError &&
                        (reported || (control ? status == CaseStatus::kFail : status == CaseStatus::kPass));
  return {"c", status, control, reported, conforms, std::nullopt};
}

TEST(SuiteRunSummary, ACleanRunCountsCaughtControlsAndReportedCasesWithoutAFail) {
  SuiteRunSummary s;
  for (int i = 0; i < 3; ++i) s.add(tally(CaseStatus::kPass));
  s.add(tally(CaseStatus::kFail, /*control=*/true));
  s.add(tally(CaseStatus::kFail, /*control=*/true));
  s.add(tally(CaseStatus::kPass, false, /*reported=*/true));
  s.add(tally(CaseStatus::kSkipped));
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.counts(), "3 correct cases passed; 2 of 2 negative controls caught; 1 reported only; 1 skipped");
}

TEST(SuiteRunSummary, WhatWentWrongIsNamedByItsKind) {
  SuiteRunSummary s;
  s.add(tally(CaseStatus::kPass));
  s.add(tally(CaseStatus::kFail));                           // a correct case failed
  s.add(tally(CaseStatus::kFail, /*control=*/true));         // caught
  s.add(tally(CaseStatus::kPass, /*control=*/true));         // missed
  s.add(tally(CaseStatus::kFail, false, /*reported=*/true));  // shown, not required
  s.add(tally(CaseStatus::kError, /*control=*/true));
  s.add_unfinished(2);
  EXPECT_EQ(s.nonconforming, 5) << "failed, missed, error and the two unfinished; not the reported one";
  EXPECT_EQ(s.counts(),
            "1 correct case passed, 1 FAILED; 1 of 2 negative controls caught, 1 MISSED; "
            "1 reported only (1 did not pass its check: shown, not required); 1 error; 2 did not finish; 0 skipped");
}

TEST(SuiteRunSummary, ACaseReadBackCountsAsTheCaseItself) {
  const nlohmann::json cases = {
      {{"id", "plain/mlp/o3/sgd"}, {"precision", "o3"}, {"status", "fail"}, {"expect", "report"},
       {"conforms", true}, {"throughput", nullptr}},
      {{"id", "clip_norm+clip_before_unscale/mlp/fp16/sgd"}, {"precision", "fp16"}, {"status", "fail"},
       {"expect", "fail"}, {"conforms", true}, {"throughput", nullptr}}};
  SuiteRunSummary s;
  for (const ResultsCase& c : read_cases(cases).cases) s.add(tally_of(c));
  EXPECT_EQ(s.counts(), "0 correct cases passed; 1 of 1 negative control caught; 1 reported only (1 did not pass "
                        "its check: shown, not required); 0 skipped");
}

// The teeth margin excludes a control the scale audit caught (an exact rule,
// whatever its distance) and one caught without exceeding its bound; the
// results' "summary" states what the terminal printed.
TEST(SuiteRunSummary, TeethMarginIsOverBoundControlsOverTheWorstCorrectCase) {
  auto with_ratio = [](CaseTally t, const std::string& id, double ratio, bool audited = false) {
    t.id = id;
    t.max_ratio = ratio;
    t.audited = audited;
    return t;
  };
  SuiteRunSummary s;
  EXPECT_FALSE(s.teeth_margin());
  EXPECT_TRUE(s.to_json()["teeth"].is_null());
  s.add(with_ratio(tally(CaseStatus::kPass), "near", 0.5));
  s.add(with_ratio(tally(CaseStatus::kPass), "far", 0.1));
  s.add(with_ratio(tally(CaseStatus::kFail, true), "audited", 1.2, /*audited=*/true));
  s.add(with_ratio(tally(CaseStatus::kFail, true), "inside", 0.9));
  s.add(with_ratio(tally(CaseStatus::kFail, true), "mild", 2.0));
  s.add(with_ratio(tally(CaseStatus::kFail, true), "wild", 40.0));
  ASSERT_TRUE(s.teeth_margin());
  EXPECT_DOUBLE_EQ(*s.teeth_margin(), 4.0);
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["teeth"]["mildest_control_id"], "mild");
  EXPECT_EQ(j["teeth"]["worst_correct_id"], "near");
  EXPECT_EQ(j["teeth"]["controls_caught_by_audit"], 2);
  EXPECT_EQ(j["teeth"]["line"], s.teeth());
  EXPECT_NE(s.teeth().find("margin 4.0x"), std::string::npos) << s.teeth();
  EXPECT_EQ(j["counts_line"], s.counts());
  EXPECT_EQ(j["counts"]["controls_caught"], 4);
}

// A case id wider than its column (a long tag) keeps two spaces before its
// verdict on the progress line.
TEST(RunCases, ALongCaseIdStaysApartFromItsVerdict) {
  const std::string tag(60, 't');
  const Suite suite = parse_suite(R"({
    "name": "t",
    "defaults": {"steps": 2},
    "models": {"mlp": {"batch": 4, "in_features": 4, "hidden": 4, "classes": 4}},
    "cases": [{"workload": "plain", "model": "mlp", "precision": "fp32", "optimizer": "sgd", "steps": 3,
               "tag": ")" + tag + R"("}],
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}}})",
                                  "t.json", DeviceKind::kCpu);
  ASSERT_EQ(suite.cases.size(), 1u);
  ASSERT_GT(suite.cases[0].id.size(), 50u);
  const gate::test::TempDir tmp;
  ResultsWriter writer(tmp.file("long-id-results.json"), suite.name, suite.path,
                       nlohmann::json::object());
  RunOptions options;
  options.measure_throughput = false;
  std::ostringstream progress;
  run_cases(suite.cases, Runner(options), writer, progress, {});
  EXPECT_NE(progress.str().find(suite.cases[0].id + "  pass"), std::string::npos) << progress.str();
}

}  // namespace
}  // namespace ampbench
