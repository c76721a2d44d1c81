#include "io/remove_tree.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ampbench::io {
namespace {

namespace fs = std::filesystem;

TEST(RemoveTree, RemovesNestedFilesButNotWhatALinkPointsTo) {
  const fs::path root = fs::temp_directory_path() / ("ampbench-remove-tree-" + std::to_string(::getpid()));
  const fs::path keep = root.string() + "-kept";
  fs::create_directories(root / "a" / "b");
  fs::create_directories(keep);
  std::ofstream(root / "a" / "b" / "f.txt") << "x";
  std::ofstream(keep / "mine.txt") << "the user's";
  fs::create_directory_symlink(keep, root / "link");
  EXPECT_TRUE(remove_tree(root.string()));
  EXPECT_FALSE(fs::exists(root));
  EXPECT_TRUE(fs::exists(keep / "mine.txt")) << "followed a link out of the tree";
  EXPECT_TRUE(remove_tree(root.string())) << "nothing there: nothing to do";
  EXPECT_TRUE(remove_tree(keep.string()));
}

}  // namespace
}  // namespace ampbench::io
