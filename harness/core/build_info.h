// Facts fixed when this binary was configured. They live in one translation
// unit: as compile definitions on every file they would differ between two
// clones (the source path) and defeat ccache for the whole tree.
#pragma once

namespace ampbench::build_info {

const char* source_dir();      // the checkout this binary was built from
const char* default_python();  // the venv interpreter (reports, reference)
const char* compiler();        // "GNU 12.2.0"

}  // namespace ampbench::build_info
