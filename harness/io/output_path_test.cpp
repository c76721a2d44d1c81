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

TEST(OutputPath, OverwriteRemovesOnlyWhatARunWrote) {
  const fs::path dir = fresh_dir("overwrite");
  fs::create_directories(dir / "ddp-ranks/rank0");
  fs::create_directories(dir / "report");
  std::ofstream(dir / "results.json") << "{}";
  std::ofstream(dir / "notes.txt") << "mine";
  remove_previous_run(dir.string());
  EXPECT_FALSE(fs::exists(dir / "results.json"));
  EXPECT_FALSE(fs::exists(dir / "ddp-ranks"));
  EXPECT_FALSE(fs::exists(dir / "report"));
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
}

TEST(OutputPath, AFileWhereAFolderShouldBeIsRefused) {
  EXPECT_THROW(prepare_output_dir("--dump", "/dev/null", false), std::invalid_argument);
}

}  // namespace
}  // namespace ampbench::io
