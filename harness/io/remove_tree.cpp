#include "io/remove_tree.h"

#include <ftw.h>
#include <sys/stat.h>

#include <cstdio>

namespace ampbench::io {

bool remove_tree(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return true;
  // Depth first, without following links: a link is removed, never what it
  // points to.
  ::nftw(path.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { std::remove(p); return 0; },
         16, FTW_DEPTH | FTW_PHYS);
  return ::lstat(path.c_str(), &st) != 0;
}

}  // namespace ampbench::io
