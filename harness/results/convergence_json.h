// A converge case's "convergence" block in results.json (SCHEMA.md): the
// dataset, the rule, every seed's curve (what the report draws) and, for a
// judged case, both sides' statistics and each criterion.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "check/checker.h"

namespace ampbench {

nlohmann::json convergence_to_json(const CaseRecord& record, const std::optional<Verdict>& verdict);

}  // namespace ampbench
