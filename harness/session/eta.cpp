#include "session/eta.h"

#include <optional>

namespace ampbench {
namespace {

constexpr const char* kFp32 = "fp32";

std::string model_of(const CaseSpec& c) { return c.model ? c.model->name : ""; }

}  // namespace

EtaModel::EtaModel(const std::vector<CaseSpec>& cases) : cases_(cases) {}

void EtaModel::finished(std::size_t index, double seconds) {
  const CaseSpec& c = cases_.at(index);
  for (Mean* m : {&by_family_[model_of(c)][c.precision.name()], &by_model_[model_of(c)], &all_}) {
    m->sum += seconds;
    ++m->count;
  }
  done_ = index + 1;
}

std::optional<double> EtaModel::precision_ratio(const std::string& precision) const {
  Mean ratio;
  for (const auto& [model, precisions] : by_family_) {
    const auto base = precisions.find(kFp32);
    const auto p = precisions.find(precision);
    if (base == precisions.end() || p == precisions.end() || base->second.value() <= 0) continue;
    ratio.sum += p->second.value() / base->second.value();
    ++ratio.count;
  }
  if (ratio.count == 0) return std::nullopt;
  return ratio.value();
}

double EtaModel::estimate(const CaseSpec& c) const {
  const auto m = by_family_.find(model_of(c));
  if (m != by_family_.end()) {
    if (const auto f = m->second.find(c.precision.name()); f != m->second.end()) return f->second.value();
    if (const auto base = m->second.find(kFp32); base != m->second.end())
      return base->second.value() * precision_ratio(c.precision.name()).value_or(1.0);
    return by_model_.at(model_of(c)).value();
  }
  return all_.count > 0 ? all_.value() : 0.0;
}

double EtaModel::remaining() const {
  double total = 0;
  for (std::size_t i = done_; i < cases_.size(); ++i) total += estimate(cases_[i]);
  return total;
}

}  // namespace ampbench
