// Load-time refusal of an FP8 case whose model its recipe cannot convert
// (its own file: it builds models, which the light suite reader does not).
#pragma once

#include <string>
#include <vector>

#include "spec/case_spec.h"

namespace ampbench {

// Throws SuiteError naming the case and the reason when an FP8 case's model
// has no Linear its recipe converts, or a planned one is torch's own Linear.
void check_fp8_plans(const std::vector<CaseSpec>& cases, const std::string& path);

}  // namespace ampbench
