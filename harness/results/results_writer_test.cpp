// results.json is replaced after every case, never rewritten in place: a
// reader holding the file of case N keeps reading case N's complete file.
#include "results/results_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/temp_dir_test_util.h"

namespace ampbench {
namespace {

namespace fs = std::filesystem;

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(ResultsWriter, EachCaseReplacesTheFileAHardLinkKeepsThePreviousOne) {
  const io::test::TempDir tmp;
  const fs::path& dir = tmp.path();
  const fs::path file = dir / "results.json";
  ResultsWriter writer(file.string(), "smoke", "suites/smoke.json", nlohmann::json::object());
  fs::create_hard_link(file, dir / "after-start.json");
  writer.add_json({{"id", "plain/mlp/fp32/sgd"}});
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
