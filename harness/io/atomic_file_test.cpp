// write_file_atomically replaces the file, never rewrites it in place: an
// open handle or a hard link to the old file keeps reading the old content,
// and a write that fails half way leaves the old file as it was.
#include "io/atomic_file.h"
#include "io/temp_dir_test_util.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ampbench::io {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

TEST(AtomicFile, AHardLinkAndAnOpenHandleKeepTheOldContent) {
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  const fs::path file = dir / "results.json";
  write_file_atomically(file.string(), "old");
  fs::create_hard_link(file, dir / "link");
  std::ifstream handle(file);
  write_file_atomically(file.string(), "new content");
  EXPECT_EQ(read(file), "new content");
  EXPECT_EQ(read(dir / "link"), "old") << "the file was rewritten in place";
  std::string through_handle;
  handle >> through_handle;
  EXPECT_EQ(through_handle, "old");
  EXPECT_EQ(fs::hard_link_count(file), 1u);
}

// A real failure half way through the write: the process's file-size limit
// (RLIMIT_FSIZE) makes write(2) fail with EFBIG, as a full disk would.
TEST(AtomicFile, AWriteThatFailsLeavesTheOldFileAndNoTempFile) {
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  const fs::path file = dir / "results.json";
  write_file_atomically(file.string(), "old");
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 16;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string error;
  try {
    write_file_atomically(file.string(), std::string(4096, 'x'));
  } catch (const WriteError& e) {
    error = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(error.find(file.string() + ": cannot write"), std::string::npos) << error;
  EXPECT_EQ(read(file), "old");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"results.json"});
}

TEST(AtomicFile, RefusesToReplaceADeviceNodeOrAFolder) {
  EXPECT_THROW(write_file_atomically("/dev/null", "x"), WriteError);
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  EXPECT_THROW(write_file_atomically(dir.string(), "x"), WriteError);
  EXPECT_THROW(write_file_atomically("", "x"), WriteError);
}

TEST(AtomicFile, CreatesMissingFolders) {
  const test::TempDir tmp;
  const fs::path file = tmp.path() / "a" / "b" / "c.json";
  write_file_atomically(file.string(), "{}");
  EXPECT_EQ(read(file), "{}");
}

}  // namespace
}  // namespace ampbench::io
