// results.json is replaced after every case, never rewritten in place: a
// reader holding the file of case N keeps reading case N's complete file.
#include "results/results_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ampbench {
namespace {

namespace fs = std::filesystem;

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(ResultsWriter, EachCaseReplacesTheFileAHardLinkKeepsThePreviousOne) {
  const fs::path dir = fs::temp_directory_path() / "ampbench-results-writer-test";
  fs::remove_all(dir);
  const fs::path file = dir / "results.json";
  ResultsWriter writer(file.string(), "smoke", "suites/smoke.json", nlohmann::json::object());
  fs::create_hard_link(file, dir / "after-start.json");
  writer.add({{"id", "plain/mlp/fp32/sgd"}});
  fs::create_hard_link(file, dir / "after-one-case.json");
  writer.finish();
  EXPECT_EQ(read_json(dir / "after-start.json")["cases"].size(), 0u);
  EXPECT_EQ(read_json(dir / "after-one-case.json")["cases"].size(), 1u);
  EXPECT_FALSE(read_json(dir / "after-one-case.json")["complete"].get<bool>());
  EXPECT_TRUE(read_json(file)["complete"].get<bool>());
  EXPECT_EQ(fs::hard_link_count(file), 1u);
}

}  // namespace
}  // namespace ampbench
