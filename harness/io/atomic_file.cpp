#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace ampbench::io {

namespace fs = std::filesystem;

namespace {

// Writes all of `content` to `fd`; returns 0 or the errno of the failure.
int write_all(int fd, const std::string& content) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  // Unique per process and call: two writers of one folder (ranks, threads)
  // never share a temp file.
  static std::atomic<unsigned> counter{0};
  if (path.empty()) throw WriteError(path, "empty output path");
  const fs::path target(path);
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw WriteError(path, "cannot write: is a directory");
  if (fs::exists(target, ec) && !fs::is_regular_file(target, ec))
    throw WriteError(path, "exists and is not a regular file; refusing to replace it");
  const fs::path parent = target.parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) throw WriteError(path, "cannot create folder " + parent.string() + ": " + ec.message());
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw WriteError(path, std::string("cannot write: ") + std::strerror(errno));
  int err = write_all(fd, content);
  // fsync before rename: after a crash the new name never points at a file
  // whose data did not reach the disk.
  if (!err && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    throw WriteError(path, std::string("cannot write: ") + std::strerror(err));
  }
}

}  // namespace ampbench::io
