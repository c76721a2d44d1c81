#include "core/build_info.h"

namespace ampbench::build_info {

const char* source_dir() { return AMPBENCH_SOURCE_DIR; }
const char* default_python() { return AMPBENCH_DEFAULT_PYTHON; }
const char* compiler() { return AMPBENCH_COMPILER; }

}  // namespace ampbench::build_info
