#include "io/output_path.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "io/json_file.h"

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

// Empty, or marked by a run that stopped at load before writing anything.
bool holds_nothing_but_the_marker(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().filename() != kRunMarker) return false;
  return !ec;
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

void check_output_dir(const std::string& flag, const std::string& path, bool refuse_non_empty) {
  if (path.empty()) refuse(flag, "''", "empty path");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_directory(st)) refuse(flag, path, "exists and is not a directory");
  if (fs::exists(st) && refuse_non_empty && !holds_nothing_but_the_marker(path))
    refuse(flag, path,
           "is not empty (a previous run?); choose a new folder, or pass --overwrite to replace that run's "
           "results");
}

void prepare_output_dir(const std::string& flag, const std::string& path, bool refuse_non_empty) {
  check_output_dir(flag, path, refuse_non_empty);
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) refuse(flag, path, "cannot create it: " + ec.message());
  if (::access(path.c_str(), W_OK) != 0) refuse(flag, path, "is not writable");
}

void check_replaceable(const std::string& flag, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || fs::is_empty(dir, ec)) return;
  if (fs::exists(fs::path(dir) / kRunMarker, ec)) return;
  try {
    const nlohmann::json doc = read_json_file((fs::path(dir) / "results.json").string());
    if (doc.is_object() && doc.value("schema", nlohmann::json()) == "ampbench.results") return;
  } catch (const JsonFileError&) {
  }
  refuse(flag, dir,
         std::string("holds files ampbench did not write (no ") + kRunMarker +
             " marker, no ampbench results.json): --overwrite replaces only a previous run; choose another folder");
}

void mark_run_dir(const std::string& dir, const std::string& command, const std::string& flag) {
  const fs::path marker = fs::path(dir) / kRunMarker;
  std::ofstream out(marker, std::ios::trunc);
  out << "Written by `ampbench " << command << "`: --overwrite may replace the run in this folder.\n";
  if (!out) refuse(flag, dir, "cannot write " + marker.string());
}

namespace {

// Absolute, with every symbolic link of its existing part resolved.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) p = fs::absolute(path).lexically_normal();
  return p.has_filename() ? p : p.parent_path();  // "dir/" names dir
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec)) return true;
  return resolved(a) == resolved(b);
}

bool inside(const std::string& path, const std::string& dir) {
  const fs::path p = resolved(path), d = resolved(dir);
  return std::mismatch(d.begin(), d.end(), p.begin(), p.end()).first == d.end();
}

}  // namespace

void check_distinct_paths(const std::vector<PathUse>& inputs, const std::vector<PathUse>& output_files,
                          const std::vector<PathUse>& output_dirs) {
  for (size_t i = 0; i < output_files.size(); ++i) {
    const PathUse& out = output_files[i];
    if (out.path.empty()) continue;
    for (const PathUse& in : inputs)
      if (!in.path.empty() && same_file(out.path, in.path))
        refuse(out.flag, out.path, "is the same file as " + in.flag + " " + in.path + ": refusing to overwrite it");
    for (size_t j = 0; j < i; ++j)
      if (same_file(out.path, output_files[j].path))
        refuse(out.flag, out.path, "is the same file as " + output_files[j].flag + " " + output_files[j].path +
                                       ": one would overwrite the other");
  }
  for (const PathUse& dir : output_dirs) {
    if (dir.path.empty()) continue;
    for (const std::vector<PathUse>* files : {&inputs, &output_files})
      for (const PathUse& f : *files)
        if (!f.path.empty() && inside(f.path, dir.path))
          refuse(f.flag, f.path, "lies inside " + dir.path + ", which " + dir.flag + " writes: choose a path outside it");
  }
}

namespace {

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path) == 0 ? 0 : errno; }

// Depth-first, never following links. Not std::filesystem::remove_all: in
// the ampbench binary that symbol resolves to libtorch's own copy, which
// crashed (a different libstdc++ build).
void remove_tree(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // nothing there
  const int err = ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (err != 0) throw std::invalid_argument("--out: cannot remove " + path + ": " + std::strerror(err > 0 ? err : errno));
}

}  // namespace

std::string staging_dir(const std::string& dir) { return (fs::path(dir) / kStagingName).string(); }

void prepare_staging_dir(const std::string& dir) {
  remove_tree(staging_dir(dir));
  prepare_output_dir("--out", staging_dir(dir), true);
}

bool promote_staged_run(const std::string& dir) {
  const fs::path staged(staging_dir(dir));
  try {
    const nlohmann::json doc = read_json_file((staged / "results.json").string());
    if (!doc.is_object() || doc.value("complete", nlohmann::json(false)) != true) return false;
  } catch (const JsonFileError&) {
    return false;  // no results yet: not a completed run
  }
  for (const char* name : {"results.json", "report", "ddp-ranks", "dump"}) remove_tree((fs::path(dir) / name).string());
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(staged, ec)) {
    const fs::path target = fs::path(dir) / entry.path().filename();
    remove_tree(target.string());
    if (::rename(entry.path().c_str(), target.c_str()) != 0)
      refuse("--overwrite", target.string(), std::string("cannot move the new run's file into place: ") + std::strerror(errno));
  }
  if (ec) refuse("--overwrite", staged.string(), "cannot list the new run: " + ec.message());
  remove_tree(staged.string());
  return true;
}

}  // namespace ampbench::io
