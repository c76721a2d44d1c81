// A test's own temporary folder: unique (mkdtemp), so that two test runs on
// one machine never share files, and removed with everything in it when the
// test ends, so that runs leave nothing in TMPDIR. Removed by io::remove_tree,
// not std::filesystem::remove_all, which crashes in a binary linked with
// libtorch (io/remove_tree.h).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "io/remove_tree.h"

namespace ampbench::io::test {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ampbench-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() { remove_tree(path_.string()); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Writes TEXT to NAME inside the folder; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = file(name);
    std::ofstream(path) << text;
    return path;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace ampbench::io::test
