// How much of PyTorch's own autocast test lists a run of `ampbench
// autocast-ops` covered: per list, how many rows (entries x dtypes) ran on
// both sides, agreed, disagreed, could not be called from C++, were skipped
// as PyTorch's own test skips them. Rows of our own op list
// (harness/amp/autocast_ops.json) are counted under kOwnList.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "amp/autocast_list_calls.h"
#include "amp/autocast_policy.h"

namespace ampbench::amp {

inline constexpr const char* kOwnList = "autocast_ops.json";

struct ListCoverage {
  std::string list;
  int entries = 0;  // in PyTorch's list (ours: ops)
  int rows = 0;     // verdicts: entries x dtypes
  int ran = 0;      // rows both sides ran (agreeing or not)
  int agree = 0;
  int disagree = 0;
  int cannot_call = 0;
  int skipped = 0;
};

// One line per PyTorch list (by name), then kOwnList, then "all"
// (every row). A verdict belongs to the list its row names.
std::vector<ListCoverage> list_coverage(const TorchLists& lists, int own_ops, const std::vector<OpVerdict>& verdicts);

nlohmann::json to_json(const std::vector<ListCoverage>& coverage);
void print_coverage(std::ostream& out, const std::vector<ListCoverage>& coverage);

}  // namespace ampbench::amp
