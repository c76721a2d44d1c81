// The progress line's estimate of the time left. A suite's cases differ in
// cost by orders of magnitude (a ResNet fp16 case on a CPU without native
// half precision costs ten times its fp32 baseline where an mlp case costs
// about the same), so the average over the cases so far says little about
// the ones to come. Each remaining case is estimated by the cases already
// run of its model and precision; else by its model's fp32 baseline (which
// runs first) times what that precision has cost over fp32 on the models
// that ran both; else by its model; else by the average of all.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spec/case_spec.h"

namespace ampbench {

class EtaModel {
 public:
  explicit EtaModel(const std::vector<CaseSpec>& cases);
  // Case `index` (0-based, in the order given) took `seconds`.
  void finished(std::size_t index, double seconds);
  // Seconds the cases after the last finished one will take.
  double remaining() const;

 private:
  struct Mean {
    double sum = 0;
    int count = 0;
    double value() const { return sum / count; }
  };
  double estimate(const CaseSpec& c) const;
  // Mean over the models that ran both of (model x precision) / (model x
  // fp32); nullopt when no model has yet.
  std::optional<double> precision_ratio(const std::string& precision) const;

  std::vector<CaseSpec> cases_;
  std::size_t done_ = 0;
  // model -> precision -> seconds of its cases so far
  std::map<std::string, std::map<std::string, Mean>> by_family_;
  std::map<std::string, Mean> by_model_;
  Mean all_;
};

}  // namespace ampbench
