#include "session/eta.h"

#include "spec/workload_traits.h"

namespace ampbench {
namespace {

constexpr const char* kFp32 = "fp32";

std::string model_of(const CaseSpec& c) { return c.model ? c.model->name : ""; }

// '/' never occurs in a workload's name.
std::string workload_and_model_of(const CaseSpec& c) {
  return (c.workload ? c.workload->name() : std::string()) + "/" + model_of(c);
}

}  // namespace

void EtaModel::Families::add(const std::string& family, const std::string& precision, double seconds) {
  seconds_[family][precision].add(seconds);
}

std::optional<double> EtaModel::Families::precision_ratio(const std::string& precision) const {
  Mean ratio;
  for (const auto& [family, precisions] : seconds_) {
    const auto base = precisions.find(kFp32);
    const auto p = precisions.find(precision);
    if (base == precisions.end() || p == precisions.end() || base->second.value() <= 0) continue;
    ratio.add(p->second.value() / base->second.value());
  }
  if (ratio.count == 0) return std::nullopt;
  return ratio.value();
}

std::optional<double> EtaModel::Families::price(const std::string& family, const std::string& precision,
                                                std::optional<double> unknown_ratio) const {
  const auto f = seconds_.find(family);
  if (f == seconds_.end()) return std::nullopt;
  if (const auto own = f->second.find(precision); own != f->second.end()) return own->second.value();
  const auto base = f->second.find(kFp32);
  if (base == f->second.end()) return std::nullopt;
  const std::optional<double> ratio = precision_ratio(precision);
  if (!ratio && !unknown_ratio) return std::nullopt;
  return base->second.value() * ratio.value_or(*unknown_ratio);
}

EtaModel::EtaModel(const std::vector<CaseSpec>& cases) : cases_(cases) {}

void EtaModel::finished(std::size_t index, double seconds) {
  const CaseSpec& c = cases_.at(index);
  by_workload_and_model_.add(workload_and_model_of(c), c.precision.name(), seconds);
  by_model_.add(model_of(c), c.precision.name(), seconds);
  model_mean_[model_of(c)].add(seconds);
  all_.add(seconds);
  done_ = index + 1;
}

double EtaModel::estimate(const CaseSpec& c) const {
  const std::string precision = c.precision.name();
  if (const auto p = by_workload_and_model_.price(workload_and_model_of(c), precision)) return *p;
  // No ratio known yet at the model level: the fp32 price.
  if (const auto p = by_model_.price(model_of(c), precision, 1.0)) return *p;
  if (const auto m = model_mean_.find(model_of(c)); m != model_mean_.end()) return m->second.value();
  return all_.count > 0 ? all_.value() : 0.0;
}

double EtaModel::remaining() const {
  double total = 0;
  for (std::size_t i = done_; i < cases_.size(); ++i) total += estimate(cases_[i]);
  return total;
}

}  // namespace ampbench
