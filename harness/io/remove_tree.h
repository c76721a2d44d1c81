// Removes a folder and everything in it. Not std::filesystem::remove_all: in
// a binary linked with libtorch that symbol resolves to libtorch's own copy,
// which calls through a null pointer (`ampbench baseline update` crashed
// replacing an existing baseline).
#pragma once

#include <string>

namespace ampbench::io {

// True when nothing is left at `path` (it was removed, or never existed).
bool remove_tree(const std::string& path);

}  // namespace ampbench::io
