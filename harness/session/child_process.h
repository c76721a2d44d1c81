// Children of the ampbench command (the report step, the Python oracle of
// `ampbench autocast-ops`): run without a shell, and dying with this process.
#pragma once

#include <string>
#include <vector>

namespace ampbench {

// Runs argv[0] (found on PATH) with argv in `cwd`; returns its exit status,
// -1 if it did not exit (killed, or could not be started).
// With `stderr_path`, the child's standard error goes to that file (its
// one-line reason, for the caller to quote).
int run_dying_with_us(const std::vector<std::string>& argv, const std::string& cwd,
                      const std::string& stderr_path = "");

// The Python that runs reports/ and reference/: $AMPBENCH_PYTHON, else the
// venv interpreter this binary was configured with.
std::string python_interpreter();

}  // namespace ampbench
