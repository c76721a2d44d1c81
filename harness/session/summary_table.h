// The human table printed at the end of `ampbench run`: one row per
// workload/model/optimizer, one column per precision, each cell the verdict
// and (when measured) samples/s with the speedup over fp32. Read from the
// results document, so what is printed is what was written.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

namespace ampbench {

void print_summary_table(std::ostream& out, const nlohmann::json& results);

}  // namespace ampbench
