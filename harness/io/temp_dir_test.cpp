// The tests' temporary folders: two runs of one test binary on a machine
// must not share one (fixed names in TMPDIR once did), and none may outlive
// its test.
#include "io/temp_dir_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace ampbench::io::test {
namespace {

namespace fs = std::filesystem;

TEST(TempDir, EachIsItsOwnAndGoesWithWhatItHolds) {
  fs::path kept;
  {
    const TempDir a;
    const TempDir b;
    EXPECT_NE(a.path(), b.path());
    EXPECT_EQ(a.path().parent_path(), fs::temp_directory_path());
    fs::create_directories(a.path() / "sub");
    a.write("sub/results.json", "{}");
    EXPECT_TRUE(fs::is_regular_file(a.path() / "sub/results.json"));
    kept = a.path();
  }
  EXPECT_FALSE(fs::exists(kept));
}

}  // namespace
}  // namespace ampbench::io::test
