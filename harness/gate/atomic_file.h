// Atomic file writes (temp file in the same folder, fsync, rename), so a
// reader never sees half a file and an interrupted write leaves the old one.
#pragma once

#include <string>

namespace ampbench::gate {

// Creates missing parent folders. Throws GateInputError(path, reason) when
// the file cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace ampbench::gate
