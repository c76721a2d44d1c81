#include "gate/atomic_file.h"

#include "gate/results_file.h"
#include "io/atomic_file.h"

namespace ampbench::gate {

void write_file_atomic(const std::string& path, const std::string& content) {
  try {
    io::write_file_atomically(path, content);
  } catch (const io::WriteError& e) {
    throw GateInputError(e.path(), e.problem());  // the gate's exit-2 error
  }
}

}  // namespace ampbench::gate
