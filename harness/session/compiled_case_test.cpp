// The compiled implementation's C++ side without Python: which cases a
// compiled run trains compiled (and the compiled fp32 twin of each baseline
// they use), and the record it reads back into the case's CaseRecord.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gate/test_util.h"
#include "session/compiled_case.h"
#include "session/compiled_record.h"
#include "suite/suite.h"

namespace ampbench {
namespace {

Suite two_models() {
  return parse_suite(R"({
    "name": "t",
    "defaults": {"steps": 2},
    "models": {"mlp": {"batch": 4, "in_features": 4, "hidden": 4, "classes": 4}},
    "matrix": {"workloads": ["plain", "ddp", "penalty"], "models": ["mlp"], "precisions": ["fp32", "bf16"], "optimizers": ["sgd"]},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}}})",
                     "t.json", DeviceKind::kCpu);
}

TEST(CompiledPlan, MixedPrecisionCasesCompileAndEachUsedBaselineGainsACompiledTwin) {
  std::vector<CaseSpec> cases = two_models().cases;
  const auto refused = make_compiled(cases);
  std::map<std::string, const CaseSpec*> by_id;
  for (const CaseSpec& c : cases) by_id[c.id] = &c;
  ASSERT_TRUE(by_id.count("plain/mlp/bf16/sgd"));
  EXPECT_EQ(by_id["plain/mlp/bf16/sgd"]->implementation, Implementation::kCompiled);
  EXPECT_EQ(by_id["plain/mlp/fp32/sgd"]->implementation, Implementation::kEager) << "the reference stays eager";
  const std::string twin = std::string("plain/mlp/fp32/sgd") + kCompiledIdSuffix;
  ASSERT_TRUE(by_id.count(twin));
  EXPECT_EQ(by_id[twin]->implementation, Implementation::kCompiled);
  EXPECT_EQ(by_id[twin]->baseline_id, "plain/mlp/fp32/sgd");
  EXPECT_TRUE(by_id[twin]->envelope_precisions.empty());
  const std::vector<Precision>& asked = by_id["plain/mlp/fp32/sgd"]->envelope_precisions;
  EXPECT_NE(std::find(asked.begin(), asked.end(), Precision::kFp32), asked.end())
      << "the baseline measures the fp32 envelope its compiled twin is held to";
  // The twin runs right after its baseline, which it is judged against.
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (cases[i].id == twin) EXPECT_EQ(cases[i - 1].id, "plain/mlp/fp32/sgd");
  std::map<std::string, std::string> why(refused.begin(), refused.end());
  EXPECT_NE(why["ddp/mlp/bf16/sgd"].find("single-process"), std::string::npos) << why["ddp/mlp/bf16/sgd"];
  EXPECT_NE(why["ddp/mlp/fp32/sgd"].find("no case of this run compiles against"), std::string::npos);
  EXPECT_FALSE(by_id.count(std::string("ddp/mlp/fp32/sgd") + kCompiledIdSuffix));
  EXPECT_NE(why["penalty/mlp/bf16/sgd"].find("double backward"), std::string::npos) << why["penalty/mlp/bf16/sgd"];
}

TEST(CompiledPlan, AFileCompilesOnlyThroughThePythonModuleItWasMadeFrom) {
  CaseSpec c = two_models().cases.front();
  ModelFamily file;
  file.name = "mine";
  file.scripted = ScriptedModel{"/m/mine.pt", {}};
  c.model = &file;
  EXPECT_NE(compiled_refusal(c).find("names no Python module"), std::string::npos) << compiled_refusal(c);
  file.scripted->python_factory = "pkg.mod:make";
  EXPECT_EQ(compiled_refusal(c), "");
}

class CompiledRecordFile : public ::testing::Test {
 protected:
  gate::test::TempDir dir;
  nlohmann::json doc = {
      {"schema", kCompiledRecordSchema}, {"schema_version", kCompiledRecordVersion}, {"case_id", "plain/mlp/bf16/sgd"},
      {"mode", "default"}, {"compile_step", false}, {"emulate_precision_casts", false}, {"fault", nullptr},
      {"torch_version", "2.15.0"}, {"loss", {2.0, nullptr}}, {"scale", {1.0, 1.0}}, {"skipped", {false, false}},
      {"optimizer_skipped", {{false}, {false}}}, {"initial_params", {1.0, 2.0}}, {"final_params", {0.5, 1.5}},
      {"optimizer_state", {0.25}},
      {"compile", {{"graphs", 2}, {"graph_breaks", {{{"reason", "print"}}}}, {"recompiles", 0}, {"ran_eager", true},
                   {"fullgraph", {{"ok", false}, {"reason", "print in forward"}}}, {"seconds_cold", 3.5},
                   {"seconds_warm", 0.5}}},
      {"throughput", {{"samples_per_s", {100.0, 120.0}}}}};
  std::string write(const nlohmann::json& d) { return gate::test::write_json(dir.file("record.json"), d); }
  CaseRecord eager() {
    CaseRecord r;
    r.spec.id = "plain/mlp/bf16/sgd";
    r.loss = {2.0, 1.0};
    r.initial_params = {1.0f, 2.0f};
    r.final_params = {0.9f, 1.9f};
    r.optimizer_state = {0.1f};
    r.throughput = ThroughputRecord{};
    r.throughput->samples_per_s = {50.0, 60.0};
    return r;
  }
};

TEST_F(CompiledRecordFile, ReadsTheTrajectoryAndTheCompileFacts) {
  const CompiledRecord r = read_compiled_record(write(doc), "plain/mlp/bf16/sgd", 2);
  EXPECT_EQ(r.loss[0], 2.0);
  EXPECT_TRUE(std::isnan(r.loss[1])) << "null is a value JSON cannot carry";
  EXPECT_EQ(r.run.graphs, 2);
  ASSERT_EQ(r.run.graph_breaks.size(), 1u);
  EXPECT_EQ(r.run.graph_breaks[0], "print");
  EXPECT_FALSE(r.run.fullgraph);
  EXPECT_EQ(r.run.fullgraph_refusal, "print in forward");
  EXPECT_EQ(r.run.seconds_cold, 3.5);
  EXPECT_EQ(r.samples_per_s, (std::vector<double>{100.0, 120.0}));
}

TEST_F(CompiledRecordFile, RefusesAnotherCaseAStepCountOrASchemaItIsNot) {
  const std::string path = write(doc);
  EXPECT_THROW(read_compiled_record(path, "plain/mlp/fp16/sgd", 2), std::invalid_argument);
  EXPECT_THROW(read_compiled_record(path, "plain/mlp/bf16/sgd", 3), std::invalid_argument);
  nlohmann::json other = doc;
  other["schema"] = "ampbench.results";
  EXPECT_THROW(read_compiled_record(write(other), "plain/mlp/bf16/sgd", 2), std::invalid_argument);
  other = doc;
  other["loss"] = {"2.0", 1.0};
  try {
    read_compiled_record(write(other), "plain/mlp/bf16/sgd", 2);
    FAIL() << "a string loss was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("loss[0]"), std::string::npos) << e.what();
  }
}

TEST_F(CompiledRecordFile, TheCompiledRunReplacesTheEagerOneAndKeepsItsSpeed) {
  CaseRecord rec = eager();
  apply_compiled_record(rec, read_compiled_record(write(doc), rec.spec.id, 2));
  EXPECT_EQ(rec.final_params, (std::vector<float>{0.5f, 1.5f}));
  EXPECT_EQ(rec.optimizer_state, (std::vector<float>{0.25f}));
  ASSERT_TRUE(rec.compiled);
  EXPECT_EQ(rec.compiled->eager_samples_per_s, (std::vector<double>{50.0, 60.0}));
  EXPECT_EQ(rec.throughput->samples_per_s, (std::vector<double>{100.0, 120.0}));
  EXPECT_EQ(rec.throughput->timing_method, "python_perf_counter");
}

TEST_F(CompiledRecordFile, ARunFromAnotherStartOrOfAnotherSizeIsRefused) {
  CaseRecord rec = eager();
  nlohmann::json moved = doc;
  moved["initial_params"] = {1.0, 2.5};
  EXPECT_THROW(apply_compiled_record(rec, read_compiled_record(write(moved), rec.spec.id, 2)), std::invalid_argument);
  nlohmann::json longer = doc;
  longer["final_params"] = {0.5, 1.5, 3.0};
  EXPECT_THROW(apply_compiled_record(rec, read_compiled_record(write(longer), rec.spec.id, 2)), std::invalid_argument);
}

}  // namespace
}  // namespace ampbench
