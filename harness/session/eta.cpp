#include "session/eta.h"

namespace ampbench {
namespace {

std::string model_of(const CaseSpec& c) { return c.model ? c.model->name : ""; }
std::string family_of(const CaseSpec& c) { return model_of(c) + "/" + c.precision.name(); }

}  // namespace

EtaModel::EtaModel(const std::vector<CaseSpec>& cases) : cases_(cases) {}

void EtaModel::finished(std::size_t index, double seconds) {
  const CaseSpec& c = cases_.at(index);
  for (Mean* m : {&by_family_[family_of(c)], &by_model_[model_of(c)], &all_}) {
    m->sum += seconds;
    ++m->count;
  }
  done_ = index + 1;
}

double EtaModel::estimate(const CaseSpec& c) const {
  if (const auto f = by_family_.find(family_of(c)); f != by_family_.end()) return f->second.value();
  if (const auto m = by_model_.find(model_of(c)); m != by_model_.end()) return m->second.value();
  return all_.count > 0 ? all_.value() : 0.0;
}

double EtaModel::remaining() const {
  double total = 0;
  for (std::size_t i = done_; i < cases_.size(); ++i) total += estimate(cases_[i]);
  return total;
}

}  // namespace ampbench
