// The one way this project writes a file others read (results.json, gate
// reports, baselines, dumps, ceilings): a temp file beside the target, fsync,
// rename. A reader sees the old file or the new one, never half of one; a
// failed write (full disk, quota, killed process) leaves the old one intact.
#pragma once

#include <stdexcept>
#include <string>

namespace ampbench::io {

// Names the file and why it could not be written.
class WriteError : public std::runtime_error {
 public:
  WriteError(std::string path, std::string problem)
      : std::runtime_error(path + ": " + problem), path_(std::move(path)), problem_(std::move(problem)) {}
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

// Creates missing parent folders. Refuses to replace anything but a regular
// file (rename() would put a regular file where a device node or FIFO was).
// Throws WriteError; no temp file is left behind on failure.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace ampbench::io
