// The gate's atomic write (io/atomic_file.h), failing with the gate's
// GateInputError so a bad --markdown/--junit path exits 2 like bad input.
#pragma once

#include <string>

namespace ampbench::gate {

// Throws GateInputError(path, reason) when the file cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace ampbench::gate
