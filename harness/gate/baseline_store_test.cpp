#include "gate/baseline_store.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "gate/test_util.h"

namespace ampbench::gate {
namespace {

using namespace test;

TEST(BaselineStore, SanitizesNameParts) {
  EXPECT_EQ(sanitize_name_part("NVIDIA H200"), "NVIDIA-H200");
  EXPECT_EQ(sanitize_name_part("Intel(R) Xeon(R) CPU @ 2.20GHz"), "Intel-R-Xeon-R-CPU-2.20GHz");
  EXPECT_EQ(sanitize_name_part("../../etc/passwd"), "etc-passwd");
  EXPECT_EQ(sanitize_name_part("a__b"), "a_b");
  EXPECT_EQ(sanitize_name_part(""), "unknown");
  EXPECT_EQ(sanitize_name_part("///"), "unknown");
}

TEST(BaselineStore, FilenameFromEnv) {
  const ResultsFile cpu = parse_results(make_results({make_case("a")}, make_env("cpu", "none", "AMD EPYC 7B13")), "r");
  EXPECT_EQ(baseline_name(cpu), "smoke__cpu__AMD-EPYC-7B13__torch-2.11.0");
  const ResultsFile gpu = parse_results(
      make_results({make_case("a")}, make_env("cuda", "NVIDIA H200", "x", "2.11.0", "12.8"), "full"), "r");
  EXPECT_EQ(baseline_name(gpu), "full__cuda__NVIDIA-H200__torch-2.11.0__cuda-12.8");
}

// Zen 4 and Zen 5 named alike by a hypervisor: a baseline each. One stored
// before cpu_id was recorded (named by the model alone) is still found.
TEST(BaselineStore, GenerationsOfOneCpuNameKeepTheirOwnBaselines) {
  TempDir dir;
  const std::string store = dir.file("baselines");
  auto env_of = [](const char* cpu_id) {
    json env = make_env("cpu", "none", "AMD EPYC");
    if (cpu_id != nullptr) env["cpu_id"] = cpu_id;
    return env;
  };
  const std::string zen4 =
      write_json(dir.file("zen4.json"), make_results({make_case("a")}, env_of("AuthenticAMD family 25 model 17")));
  const std::string zen5 =
      write_json(dir.file("zen5.json"), make_results({make_case("a")}, env_of("AuthenticAMD family 26 model 2")));
  EXPECT_EQ(baseline_name(load_results(zen5)), "smoke__cpu__AMD-EPYC-AuthenticAMD-family-26-model-2__torch-2.11.0");
  update_baseline({zen4}, store);
  try {
    find_baseline(load_results(zen5), store);
    FAIL() << "a Zen 5 run found the Zen 4 baseline";
  } catch (const GateInputError& e) {
    EXPECT_NE(e.problem().find("cpu_id \"AuthenticAMD family 26 model 2\""), std::string::npos) << e.problem();
  }
  update_baseline({zen5}, store);
  EXPECT_EQ(find_baseline(load_results(zen5), store).folder,
            store + "/smoke__cpu__AMD-EPYC-AuthenticAMD-family-26-model-2__torch-2.11.0");
  EXPECT_EQ(find_baseline(load_results(zen4), store).folder,
            store + "/smoke__cpu__AMD-EPYC-AuthenticAMD-family-25-model-17__torch-2.11.0");
  const std::string older = dir.file("older");
  const BaselineUpdate legacy =
      update_baseline({write_json(dir.file("legacy.json"), make_results({make_case("a")}, env_of(nullptr)))}, older);
  EXPECT_EQ(legacy.path, older + "/smoke__cpu__AMD-EPYC__torch-2.11.0");
  EXPECT_EQ(find_baseline(load_results(zen5), older).folder, legacy.path);
}

TEST(BaselineStore, UpdateThenFindRoundTrip) {
  TempDir dir;
  const std::string results = write_json(dir.file("results.json"), make_results({make_case("a", {1, 2, 3, 4})}));
  const std::string store = dir.file("reference/baselines");
  const std::string second = write_json(dir.file("results2.json"), make_results({make_case("a", {2, 3, 4, 5})}));
  const BaselineUpdate u = update_baseline({results, second}, store);
  EXPECT_EQ(u.path, store + "/smoke__cpu__Test-CPU-2.0GHz__torch-2.11.0");
  EXPECT_TRUE(u.replaced.empty());
  EXPECT_EQ(u.runs, 2u);
  EXPECT_EQ(u.cases, 1u);
  // Each stored run is itself a valid results file, with its provenance.
  const ResultsFile stored = load_results(u.path + "/run-02.json");
  EXPECT_EQ(stored.cases.size(), 1u);
  EXPECT_EQ(stored.doc["baseline_source"]["results"], second);
  EXPECT_EQ(stored.doc["baseline_source"]["runs"], 2);
  // Found again, every run, from a results file of the same environment.
  const StoredBaseline found = find_baseline(load_results(results), store);
  EXPECT_EQ(found.folder, u.path);
  EXPECT_EQ(found.runs, (std::vector<std::string>{u.path + "/run-01.json", u.path + "/run-02.json"}));
  // An update replaces the whole folder: the old second run does not survive
  // beside a new single run, and no temp folder is left behind.
  EXPECT_EQ(update_baseline({results}, store).replaced, u.path);
  EXPECT_EQ(find_baseline(load_results(results), store).runs, (std::vector<std::string>{u.path + "/run-01.json"}));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(store)) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(BaselineStore, RunsOfOneBaselineShareSuiteAndEnvironment) {
  TempDir dir;
  const std::string a = write_json(dir.file("a.json"), make_results({make_case("a")}, make_env("cpu", "none", "CPU A")));
  const std::string b = write_json(dir.file("b.json"), make_results({make_case("a")}, make_env("cpu", "none", "CPU B")));
  const std::string other_suite = write_json(dir.file("c.json"), make_results({make_case("a")}, make_env(), "full"));
  EXPECT_THROW(update_baseline({a, b}, dir.file("store")), GateInputError);
  try {
    update_baseline({write_json(dir.file("d.json"), make_results({make_case("a")})), other_suite}, dir.file("store"));
    FAIL() << "expected GateInputError";
  } catch (const GateInputError& e) {
    EXPECT_EQ(e.file(), other_suite);
    EXPECT_NE(e.problem().find("suite \"full\" differs"), std::string::npos) << e.problem();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("store")));
}

TEST(BaselineStore, NoBaselineNamesWhatWasLookedFor) {
  TempDir dir;
  const std::string store = dir.file("baselines");
  update_baseline({write_json(dir.file("cpu_a.json"), make_results({make_case("a")}, make_env("cpu", "none", "CPU A")))},
                  store);
  const ResultsFile other = load_results(
      write_json(dir.file("cpu_b.json"), make_results({make_case("a")}, make_env("cpu", "none", "CPU B"))));
  try {
    find_baseline(other, store);
    FAIL() << "expected GateInputError";
  } catch (const GateInputError& e) {
    EXPECT_EQ(e.file(), store + "/smoke__cpu__CPU-B__torch-2.11.0");
    EXPECT_NE(e.problem().find("cpu_model \"CPU B\""), std::string::npos) << e.problem();
    EXPECT_NE(e.problem().find("baselines for this suite: smoke__cpu__CPU-A__torch-2.11.0"), std::string::npos)
        << e.problem();
  }
  EXPECT_THROW(find_baseline(other, dir.file("does-not-exist")), GateInputError);
}

TEST(BaselineStore, RefusesIncompleteAndUnusableResults) {
  TempDir dir;
  json doc = make_results({make_case("a")});
  doc["complete"] = false;
  const std::string partial = write_json(dir.file("partial.json"), doc);
  EXPECT_THROW(update_baseline({partial}, dir.file("b")), GateInputError);
  EXPECT_NO_THROW(update_baseline({partial}, dir.file("b"), true));
  EXPECT_THROW(update_baseline({dir.file("missing.json")}, dir.file("b")), GateInputError);
}

TEST(BaselineStore, UnwritableFolderIsAnError) {
  TempDir dir;
  const std::string results = write_json(dir.file("results.json"), make_results({make_case("a")}));
  const std::string blocker = write_text(dir.file("a-file"), "x");
  try {
    update_baseline({results}, blocker + "/baselines");
    FAIL() << "expected GateInputError";
  } catch (const GateInputError& e) {
    EXPECT_NE(e.file().find(blocker + "/baselines/"), std::string::npos);
    EXPECT_NE(e.problem().find("cannot create folder"), std::string::npos) << e.problem();
  }
}

}  // namespace
}  // namespace ampbench::gate
