// The suite's list of cases: each case added with the fp32 baseline it is
// compared with (one per distinct setting, shared), ids unique.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "suite/case_reader.h"

namespace ampbench::suite_detail {

// Case id -> its index in the suite's case list: a baseline is found by key,
// so reading a suite stays linear in its number of cases.
using CaseIndex = std::unordered_map<std::string, size_t>;

// Adds `c` (and its baseline, unless already there) to `cases`; `where`
// names the case in errors ("matrix", "cases[3]"). Throws SuiteError on a
// refused option or a duplicate id.
void add_case(std::vector<CaseSpec>& cases, CaseIndex& ids, CaseSpec c, const SuiteContext& ctx,
              const std::string& where);

}  // namespace ampbench::suite_detail
