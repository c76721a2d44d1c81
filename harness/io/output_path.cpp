#include "io/output_path.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace ampbench::io {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const std::string& flag, const std::string& path, const std::string& why) {
  throw std::invalid_argument(flag + " " + path + ": " + why);
}

// The nearest ancestor of `path` that exists (a missing file's folders are
// created on write).
fs::path nearest_existing(fs::path p) {
  std::error_code ec;
  p = fs::absolute(p, ec);
  while (!p.empty() && !fs::exists(p, ec)) {
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  return p;
}

}  // namespace

void check_output_file(const std::string& flag, const std::string& path) {
  if (path.empty()) refuse(flag, "''", "empty path");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (fs::is_directory(st)) refuse(flag, path, "is a directory, not a file");
    if (!fs::is_regular_file(st))
      refuse(flag, path, "exists and is not a regular file (a device, FIFO or socket); refusing to replace it");
    if (::access(path.c_str(), W_OK) != 0) refuse(flag, path, "exists and is not writable");
    return;
  }
  const fs::path base = nearest_existing(path);
  if (!fs::is_directory(base, ec)) refuse(flag, path, base.string() + " is not a directory");
  if (::access(base.c_str(), W_OK) != 0) refuse(flag, path, "cannot create it: " + base.string() + " is not writable");
}

void prepare_output_dir(const std::string& flag, const std::string& path, bool refuse_non_empty) {
  if (path.empty()) refuse(flag, "''", "empty path");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_directory(st)) refuse(flag, path, "exists and is not a directory");
  if (fs::exists(st) && refuse_non_empty && !fs::is_empty(path, ec))
    refuse(flag, path,
           "is not empty (a previous run?); choose a new folder, or pass --overwrite to replace that run's "
           "results");
  fs::create_directories(path, ec);
  if (ec) refuse(flag, path, "cannot create it: " + ec.message());
  if (::access(path.c_str(), W_OK) != 0) refuse(flag, path, "is not writable");
}

void remove_previous_run(const std::string& dir) {
  std::error_code ec;
  for (const char* name : {"results.json", "results.json.tmp", "report", "ddp-ranks", "dump"}) {
    fs::remove_all(fs::path(dir) / name, ec);
    if (ec) throw std::invalid_argument("--overwrite " + dir + ": cannot remove " + name + ": " + ec.message());
  }
}

}  // namespace ampbench::io
