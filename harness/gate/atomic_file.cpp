#include "gate/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "gate/results_file.h"

namespace ampbench::gate {

namespace fs = std::filesystem;

void write_file_atomic(const std::string& path, const std::string& content) {
  static std::atomic<unsigned> counter{0};
  if (path.empty()) throw GateInputError(path, "empty output path");
  const fs::path target(path);
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw GateInputError(path, "cannot write: is a directory");
  // rename() would replace a device node (/dev/null, /dev/full) or a FIFO
  // with a regular file.
  if (fs::exists(target, ec) && !fs::is_regular_file(target, ec))
    throw GateInputError(path, "exists and is not a regular file; refusing to replace it");
  const fs::path parent = target.parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) throw GateInputError(path, "cannot create folder " + parent.string() + ": " + ec.message());
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw GateInputError(path, std::string("cannot write: ") + std::strerror(errno));
  const char* data = content.data();
  std::size_t left = content.size();
  int err = 0;
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (!err && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    throw GateInputError(path, std::string("cannot write: ") + std::strerror(err));
  }
}

}  // namespace ampbench::gate
