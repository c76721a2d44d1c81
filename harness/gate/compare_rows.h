// What the gate's two comparisons (ampbench results, Google Benchmark JSON)
// share, internal to harness/gate: table cells, skipped rows, the pairing of
// both sides by name, and the report's multiplicity correction and notices.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "gate/compare.h"

namespace ampbench::gate {

std::string value_cell(double v, const std::string& unit, std::size_t n);
std::string join(const std::vector<std::string>& parts, const std::string& sep);
CheckResult skipped_row(const std::string& id, const std::string& check, const std::string& label,
                        const std::string& detail, GateVerdict verdict = GateVerdict::Skipped);

// The current side's names in its order, then the baseline's names it lacks.
std::vector<std::string> ordered_ids(const std::vector<std::string>& baseline_ids,
                                     const std::vector<std::string>& current_ids);

template <typename Entry>
struct NamedPair {
  std::string id;
  const Entry* baseline;  // null: not in the baseline
  const Entry* current;   // null: not in the current results
};

// Both sides' entries lined up by name, in report order. Throws
// GateInputError(current_path) when they share no name: "no <names> in
// common with the baseline ... (N baseline <items>, M current <items>)".
template <typename Entry, typename NameOf>
std::vector<NamedPair<Entry>> pair_by_name(const std::vector<Entry>& baseline, const std::vector<Entry>& current,
                                           NameOf name_of, const std::string& baseline_path,
                                           const std::string& current_path, const std::string& names,
                                           const std::string& items) {
  std::map<std::string, const Entry*> base_by, cur_by;
  std::vector<std::string> base_ids, cur_ids;
  for (const Entry& e : baseline) {
    base_by[name_of(e)] = &e;
    base_ids.push_back(name_of(e));
  }
  std::size_t common = 0;
  for (const Entry& e : current) {
    cur_by[name_of(e)] = &e;
    cur_ids.push_back(name_of(e));
    common += base_by.count(name_of(e));
  }
  if (common == 0) {
    throw GateInputError(current_path, "no " + names + " in common with the baseline " + baseline_path + " (" +
                                           std::to_string(baseline.size()) + " baseline " + items + ", " +
                                           std::to_string(current.size()) + " current " + items + ")");
  }
  std::vector<NamedPair<Entry>> out;
  for (const std::string& id : ordered_ids(base_ids, cur_ids)) {
    const auto b = base_by.find(id);
    const auto c = cur_by.find(id);
    out.push_back({id, b == base_by.end() ? nullptr : b->second, c == cur_by.end() ? nullptr : c->second});
  }
  return out;
}

// The first step of either comparison: an empty report of these two files.
GateReport start_report(InputKind kind, const std::string& baseline_path, const std::string& current_path,
                        const GateOptions& options);

// The last step of either comparison: Benjamini-Hochberg over the judged
// rows (when the options ask for it), then the insufficient-samples notice.
void finish_report(GateReport& report);

}  // namespace ampbench::gate
