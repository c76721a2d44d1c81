#include "gate/results_file.h"

#include <gtest/gtest.h>

#include <functional>

#include "gate/compare.h"
#include "gate/test_util.h"

namespace ampbench::gate {
namespace {

using namespace test;

// Runs compare_files and returns the GateInputError (file, problem).
std::pair<std::string, std::string> input_error(const std::string& baseline, const std::string& current) {
  try {
    compare_files(baseline, current, GateOptions{});
  } catch (const GateInputError& e) {
    EXPECT_EQ(std::string(e.what()), e.file() + ": " + e.problem());
    return {e.file(), e.problem()};
  }
  ADD_FAILURE() << "no GateInputError";
  return {};
}

class BadInput : public ::testing::Test {
 protected:
  TempDir dir;
  std::string good = write_json(dir.file("good.json"), make_results({make_case("a", {1, 2, 3, 4})}));
};

TEST_F(BadInput, MissingFile) {
  const auto [file, problem] = input_error(good, dir.file("nope.json"));
  EXPECT_EQ(file, dir.file("nope.json"));
  EXPECT_EQ(problem, "no such file");
  EXPECT_EQ(input_error(dir.file("gone.json"), good).first, dir.file("gone.json"));
}

TEST_F(BadInput, NotJson) {
  const std::string bad = write_text(dir.file("bad.json"), "{\"schema\": \"ampbench.results\", oops");
  const auto [file, problem] = input_error(good, bad);
  EXPECT_EQ(file, bad);
  EXPECT_NE(problem.find("not valid JSON"), std::string::npos) << problem;
  EXPECT_NE(problem.find("line 1"), std::string::npos) << problem;
}

TEST_F(BadInput, NotAnObject) {
  const std::string bad = write_text(dir.file("arr.json"), "[1, 2]");
  EXPECT_NE(input_error(good, bad).second.find("top level must be a JSON object"), std::string::npos);
}

TEST_F(BadInput, WrongSchema) {
  json doc = make_results({make_case("a", {1, 2, 3, 4})});
  doc["schema"] = "ampbench.suite";
  const auto [file, problem] = input_error(write_json(dir.file("s.json"), doc), good);
  EXPECT_EQ(file, dir.file("s.json"));
  EXPECT_EQ(problem, "wrong \"schema\" \"ampbench.suite\" (expected \"ampbench.results\")");
}

TEST_F(BadInput, WrongVersion) {
  for (const json& v : {json(3), json(0), json("1"), json(1.5)}) {
    json doc = make_results({make_case("a", {1, 2, 3, 4})});
    doc["schema_version"] = v;
    const auto [file, problem] = input_error(good, write_json(dir.file("v.json"), doc));
    EXPECT_NE(problem.find("unsupported \"schema_version\" " + v.dump()), std::string::npos) << problem;
  }
}

TEST_F(BadInput, MissingRequiredKeys) {
  struct Case {
    std::function<void(json&)> edit;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {[](json& d) { d.erase("schema"); }, "missing required key \"schema\""},
      {[](json& d) { d.erase("schema_version"); }, "missing required key \"schema_version\""},
      {[](json& d) { d.erase("suite"); }, "missing required key \"suite\""},
      {[](json& d) { d.erase("env"); }, "missing required key \"env\""},
      {[](json& d) { d["env"].erase("libtorch_version"); }, "\"env\": missing required key \"libtorch_version\""},
      {[](json& d) { d.erase("cases"); }, "missing required key \"cases\""},
      {[](json& d) { d["cases"][0].erase("id"); }, "cases[0]: missing required key \"id\""},
      {[](json& d) { d["cases"][0].erase("status"); }, "cases[0] (id \"a\"): missing required key \"status\""},
      {[](json& d) { d["cases"][0].erase("conforms"); }, "cases[0] (id \"a\"): missing required key \"conforms\""},
      {[](json& d) { d["cases"][0].erase("throughput"); },
       "cases[0] (id \"a\"): missing required key \"throughput\""},
      {[](json& d) { d["cases"][0]["throughput"].erase("samples_per_s"); },
       "cases[0] (id \"a\"): \"throughput\": missing required key \"samples_per_s\""},
      {[](json& d) { d["cases"][0]["throughput"]["samples_per_s"] = {1, "x"}; },
       "\"samples_per_s\" must hold finite numbers >= 0, found \"x\""},
      {[](json& d) { d["cases"].push_back(d["cases"][0]); }, "cases[1] (id \"a\"): duplicate case id"},
      {[](json& d) { d["cases"][0]["gate"] = {{"min_effect", -1}}; }, "\"min_effect\" must be a number >= 0"},
      {[](json& d) { d["cases"] = json::object(); }, "\"cases\": must be an array, got an object"},
      // A status or expectation is a type once read: an unknown one is the
      // file's problem, never a silent "not pass".
      {[](json& d) { d["cases"][0]["status"] = "passed"; },
       "cases[0] (id \"a\"): unknown \"status\" \"passed\" (expected pass, fail, skipped or error)"},
      {[](json& d) { d["cases"][0]["expect"] = "maybe"; },
       "cases[0] (id \"a\"): unknown \"expect\" \"maybe\" (expected pass, fail or report)"},
  };
  for (const auto& c : cases) {
    json doc = make_results({make_case("a", {1, 2, 3, 4})});
    c.edit(doc);
    const std::string path = write_json(dir.file("k.json"), doc);
    const auto [file, problem] = input_error(good, path);
    EXPECT_EQ(file, path);
    EXPECT_NE(problem.find(c.expected), std::string::npos) << "got: " << problem << "\nwanted: " << c.expected;
  }
}

TEST_F(BadInput, NoCommonCases) {
  const std::string other = write_json(dir.file("other.json"), make_results({make_case("b", {1, 2, 3, 4})}));
  const auto [file, problem] = input_error(good, other);
  EXPECT_EQ(file, other);
  EXPECT_NE(problem.find("no case ids in common with the baseline " + good), std::string::npos) << problem;
}

TEST_F(BadInput, MixedKinds) {
  const std::string gb = write_json(dir.file("gb.json"), make_gbench({gbench_entries("BM_a", {1, 2, 3})}));
  const auto [file, problem] = input_error(good, gb);
  EXPECT_EQ(file, gb);
  EXPECT_NE(problem.find("is Google Benchmark JSON but the baseline"), std::string::npos) << problem;
}

TEST(ResultsFile, ParsesWhatTheGateReads) {
  json doc = make_results({make_case("a", {10, 20, 30}), make_case("s", {}, "skipped")});
  doc["gate"] = {{"min_effect", 0.1}};
  doc["cases"][0]["gate"] = {{"min_effect", 0.2}};
  doc["cases"][0]["unknown_future_key"] = {1, 2};
  doc["complete"] = false;
  const ResultsFile r = parse_results(doc, "mem.json");
  EXPECT_EQ(r.suite, "smoke");
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.env.at("device"), "cpu");
  EXPECT_EQ(r.env.at("cpu_cores"), "2");
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[0].samples, (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(r.cases[0].input, "cached");
  EXPECT_EQ(*r.cases[0].min_effect, 0.2);
  EXPECT_EQ(*r.suite_min_effect, 0.1);
  EXPECT_FALSE(r.cases[1].has_throughput);
  EXPECT_FALSE(r.cases[1].conforms.has_value());
  EXPECT_EQ(r.cases[1].reason, "reason for skipped");
}

TEST(ResultsFile, EnvDifferences) {
  auto file = [](const json& env) { return parse_results(make_results({make_case("a")}, env), "x.json"); };
  const ResultsFile cpu_a = file(make_env("cpu", "none", "CPU A"));
  EXPECT_TRUE(env_differences(cpu_a, cpu_a).empty());
  const auto d = env_differences(cpu_a, file(make_env("cpu", "none", "CPU B", "2.12.0")));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0], "cpu_model: \"CPU A\" vs \"CPU B\"");
  EXPECT_EQ(d[1], "libtorch_version: \"2.11.0\" vs \"2.12.0\"");
  // cpu_model does not matter between two CUDA runs.
  const ResultsFile h200 = file(make_env("cuda", "NVIDIA H200", "CPU A", "2.11.0", "12.8"));
  EXPECT_TRUE(env_differences(h200, file(make_env("cuda", "NVIDIA H200", "CPU B", "2.11.0", "12.8"))).empty());
  const auto g = env_differences(h200, file(make_env("cuda", "NVIDIA A100", "CPU A", "2.11.0", "12.6")));
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0], "gpu_name: \"NVIDIA H200\" vs \"NVIDIA A100\"");
  EXPECT_EQ(g[1], "cuda_runtime: \"12.8\" vs \"12.6\"");
}

}  // namespace
}  // namespace ampbench::gate
