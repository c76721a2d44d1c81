#include "session/convergence_data.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "core/build_info.h"
#include "data/dataset_file.h"
#include "session/child_process.h"
#include "suite/convergence_section.h"

namespace ampbench {
namespace {

std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// Runs the Python writer; its one-line reason (no scikit-learn, a folder it
// cannot write) becomes the refusal.
void write_dataset(const std::string& name, const std::string& path) {
  std::cout << "dataset " << name << ": writing " << path << " from scikit-learn's copy" << std::endl;
  const std::string err = (std::filesystem::temp_directory_path() / ("ampbench-dataset-" + std::to_string(::getpid()) + ".err")).string();
  const int code = run_dying_with_us({python_interpreter(), "-m", "reference.python.datasets", name, path},
                                     build_info::source_dir(), err);
  const std::string why = last_line_of(err);
  std::remove(err.c_str());
  if (code != 0)
    throw std::invalid_argument("dataset " + name + " (" + path + ") is missing and could not be written: " +
                                (why.empty() ? "python -m reference.python.datasets exited " + std::to_string(code) : why));
}

}  // namespace

void prepare_convergence_data(const std::vector<CaseSpec>& cases, const std::string& suite_path) {
  if (!has_convergence_cases(cases)) return;
  const CaseSpec& first = *std::find_if(cases.begin(), cases.end(), [](const CaseSpec& c) { return c.convergence.has_value(); });
  const ConvergenceSettings& s = *first.convergence;
  if (!std::filesystem::exists(s.data_file)) write_dataset(s.dataset, s.data_file);
  try {
    check_convergence_data(cases, read_dataset_file(s.dataset, s.data_file), suite_path);
  } catch (const DatasetError& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace ampbench
