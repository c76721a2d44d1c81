// The progress line's estimate of the time left. A suite's cases differ in
// cost by orders of magnitude (a ResNet fp16 case on a CPU without native
// half precision costs ten times its fp32 baseline where an mlp case costs
// about the same; a gradient-penalty or multi-model step costs three plain
// ones), so the average over the cases so far says little about the ones to
// come. Each remaining case is priced first among the cases of its workload
// and model, then among its model's of every workload: by the cases already
// run of its precision there; else by that family's fp32 baseline (which
// runs first) times what its precision has cost over fp32 in the families
// that ran both. Failing both, by its model's mean, else by all.
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
    void add(double seconds) {
      sum += seconds;
      ++count;
    }
  };
  // family -> precision -> seconds of its cases so far.
  class Families {
   public:
    void add(const std::string& family, const std::string& precision, double seconds);
    // The family's own mean for the precision, else its fp32 mean times the
    // precision's ratio; nullopt when neither is known (with a fp32 mean
    // but no ratio yet: `unknown_ratio`, when given, stands for it).
    std::optional<double> price(const std::string& family, const std::string& precision,
                                std::optional<double> unknown_ratio = std::nullopt) const;

   private:
    // Mean over the families that ran both of (family x precision) /
    // (family x fp32); nullopt when none has yet.
    std::optional<double> precision_ratio(const std::string& precision) const;
    std::map<std::string, std::map<std::string, Mean>> seconds_;
  };
  double estimate(const CaseSpec& c) const;

  std::vector<CaseSpec> cases_;
  std::size_t done_ = 0;
  Families by_workload_and_model_;
  Families by_model_;
  std::map<std::string, Mean> model_mean_;
  Mean all_;
};

}  // namespace ampbench
