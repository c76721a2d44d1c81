// The human table printed at the end of `ampbench run`: one row per
// workload/model/optimizer, one column per precision, each cell the verdict
// and (when measured) samples/s with the speedup over fp32. Read back from
// the results document (the one reader, results/results_file.h), so what is
// printed is what was written.
#pragma once

#include <ostream>

#include "results/results_file.h"

namespace ampbench {

void print_summary_table(std::ostream& out, const ResultsFile& results);

}  // namespace ampbench
