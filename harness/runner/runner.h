// Runner: CaseSpec in, CaseRecord out. Trains the case from its seed for
// spec.steps optimizer steps recording the trajectory (the conformance run),
// then measures throughput (warm-up, repetitions, synchronized timing).
#pragma once

#include <functional>
#include <string>

#include <c10/core/Device.h>

#include "runner/case_record.h"
#include "spec/case_spec.h"

namespace ampbench {

struct RunOptions {
  bool measure_throughput = true;
  // Debug: extra busy work after each timed step, as a fraction of that
  // step's own time (calibrates the gate's slowdown detection).
  double inject_slowdown = 0.0;
  // When set, every conformance run is dumped here for reference/python.
  std::string dump_dir;
  // Multi-rank runs (ddp): the cases this rank leaves to rank 0 (recorded as
  // skipped with the returned reason; "" runs it) and a hook after every
  // case (the ranks' barrier, which keeps them in step).
  std::function<std::string(const CaseSpec&)> skip_here;
  std::function<void(const CaseSpec&)> after_case;
};

class Runner {
 public:
  explicit Runner(RunOptions options = {}) : options_(options) {}

  // Never throws: failures become status kError with the message, a device
  // that cannot run the case becomes kSkipped with the reason.
  CaseRecord run(const CaseSpec& spec) const;

 private:
  RunOptions options_;
};

// Throughput of `spec` alone (warm-up, repetitions, synchronized timing).
ThroughputRecord measure_throughput(const CaseSpec& spec, const c10::Device& device, double slowdown = 0.0);

// Why `spec` cannot run on this machine, or "" when it can.
std::string skip_reason(const CaseSpec& spec);

}  // namespace ampbench
