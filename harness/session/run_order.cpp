#include "session/run_order.h"

#include <set>
#include <string>
#include <utility>

namespace ampbench {

std::vector<CaseSpec> run_order(const std::vector<CaseSpec>& cases) {
  std::vector<CaseSpec> baselines, first_of_kind, rest;
  std::set<std::pair<std::string, std::string>> seen;  // (model, precision)
  for (const CaseSpec& c : cases) {
    if (c.is_baseline()) {
      baselines.push_back(c);
      continue;
    }
    const bool first = seen.insert({c.model ? c.model->name : "", c.precision.name()}).second;
    (first ? first_of_kind : rest).push_back(c);
  }
  std::vector<CaseSpec> out = std::move(baselines);
  out.insert(out.end(), first_of_kind.begin(), first_of_kind.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace ampbench
