#include "io/output_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace ampbench::io {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ampbench-output-test-" + name);
  fs::remove_all(dir);
  return dir;
}

std::string error_of(void (*check)(const std::string&, const std::string&), const std::string& path) {
  try {
    check("--junit", path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(OutputPath, DeviceNodesAndDirectoriesAreNotFiles) {
  EXPECT_NE(error_of(check_output_file, "/dev/null").find("--junit /dev/null: exists and is not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of(check_output_file, "/tmp").find("is a directory"), std::string::npos);
  EXPECT_EQ(error_of(check_output_file, (fresh_dir("file") / "a/b/c.xml").string()), "(accepted)");
}

TEST(OutputPath, NonEmptyOutIsRefusedUnlessOverwriting) {
  const fs::path dir = fresh_dir("out");
  EXPECT_NO_THROW(prepare_output_dir("--out", dir.string(), true));  // created
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_NO_THROW(prepare_output_dir("--out", dir.string(), true));  // empty: fine
  std::ofstream(dir / "results.json") << "{}";
  EXPECT_THROW(prepare_output_dir("--out", dir.string(), true), std::invalid_argument);
  EXPECT_NO_THROW(prepare_output_dir("--out", dir.string(), false));
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A previous run in `dir`, and the new one staged beside it by --overwrite.
fs::path previous_and_staged(const std::string& name, const std::string& staged_results) {
  const fs::path dir = fresh_dir(name);
  fs::create_directories(dir / "ddp-ranks/rank0");
  fs::create_directories(dir / "report");
  std::ofstream(dir / "results.json") << R"({"complete": true, "run": "old"})";
  std::ofstream(dir / "notes.txt") << "mine";
  prepare_staging_dir(dir.string());
  const fs::path staged(staging_dir(dir.string()));
  std::ofstream(staged / "results.json") << staged_results;
  fs::create_directories(staged / "report");
  std::ofstream(staged / "report/index.html") << "new";
  return dir;
}

TEST(OutputPath, OverwriteReplacesThePreviousRunOnlyWithACompletedOne) {
  const fs::path dir = previous_and_staged("overwrite-complete", R"({"complete": true, "run": "new"})");
  EXPECT_TRUE(promote_staged_run(dir.string()));
  EXPECT_EQ(read(dir / "results.json"), R"({"complete": true, "run": "new"})");
  EXPECT_EQ(read(dir / "report/index.html"), "new");
  EXPECT_FALSE(fs::exists(dir / "ddp-ranks")) << "a folder of the previous run survived the replacement";
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  EXPECT_FALSE(fs::exists(staging_dir(dir.string())));
}

TEST(OutputPath, AStoppedOverwritingRunLeavesThePreviousRunWhole) {
  for (const std::string& staged : {std::string(R"({"complete": false, "run": "new"})"), std::string("{\"comp")}) {
    const fs::path dir = previous_and_staged("overwrite-stopped", staged);
    EXPECT_FALSE(promote_staged_run(dir.string()));
    EXPECT_EQ(read(dir / "results.json"), R"({"complete": true, "run": "old"})");
    EXPECT_TRUE(fs::exists(dir / "ddp-ranks/rank0"));
    EXPECT_EQ(read(fs::path(staging_dir(dir.string())) / "results.json"), staged) << "the stopped run was lost";
    // The next --overwrite run starts from an empty staging folder.
    prepare_staging_dir(dir.string());
    EXPECT_TRUE(fs::is_empty(staging_dir(dir.string())));
  }
}

TEST(OutputPath, AFileWhereAFolderShouldBeIsRefused) {
  EXPECT_THROW(prepare_output_dir("--dump", "/dev/null", false), std::invalid_argument);
}

}  // namespace
}  // namespace ampbench::io
