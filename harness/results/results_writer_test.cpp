// results.json is replaced after every case, never rewritten in place: a
// reader holding the file of case N keeps reading case N's complete file.
#include "results/results_writer.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
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
  // A fresh folder from mkdtemp: not std::filesystem::remove_all, which in a
  // binary linked with libtorch resolves to libtorch's own copy and crashes
  // (io/output_path.cpp says more).
  std::string tmpl = (fs::temp_directory_path() / "ampbench-results-writer-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const fs::path dir(tmpl);
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
  for (const char* name : {"results.json", "after-start.json", "after-one-case.json"}) ::unlink((dir / name).c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace ampbench
