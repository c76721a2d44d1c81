// One case of a suite: built from the suite's defaults (a matrix cell) or
// read from an explicit entry of "cases", each refusal naming the field.
// suite.cpp expands the matrix and reads the file around them.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "suite/suite_reader.h"
#include "suite/suite_sections.h"

namespace ampbench::suite_detail {

// What every case of one suite file shares: the file, the device and the
// suite-wide sections its cases are built from.
struct SuiteContext {
  std::string file;
  DeviceKind device = DeviceKind::kCpu;
  TrainingSettings defaults;
  std::map<std::string, ModelSizes> models;  // by family name, as the suite gives them
  // The suite's models given by file, by their name in "models".
  std::map<std::string, std::shared_ptr<const ModelFamily>> scripted;
  ToleranceTable tolerances;
  ThroughputSettings throughput;
  EngagementRule engagement;
  bool gpu_sized = false;
  std::optional<ConvergenceSettings> convergence;  // the suite's "convergence" section

  const ModelFamily* family(const std::string& name) const;
  std::vector<std::string> model_names() const;
};

// A case's precision must have a row in "tolerances" (tf32's, o2's and o3's
// are optional until a suite runs them).
void require_tolerance_row(Reader& r, const std::string& key, const SuiteContext& ctx, const std::string& precision);

// The case of these names with settings `s` (names already checked).
CaseSpec make_case(const SuiteContext& ctx, const std::string& workload, const std::string& model,
                   const std::string& precision, const std::string& optimizer, const TrainingSettings& s);

// One entry of "cases": its names checked, its settings over the defaults,
// its variant, tag, tolerances and expectation. Throws SuiteError.
CaseSpec read_explicit_case(const SuiteContext& ctx, Reader r);

}  // namespace ampbench::suite_detail
