// Runner: CaseSpec in, CaseRecord out. Trains the case from its seed for
// spec.steps optimizer steps recording the trajectory (the conformance run),
// then measures throughput (warm-up, repetitions, synchronized timing).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <c10/core/Device.h>

#include "data/dataset_file.h"
#include "data/synthetic_data.h"
#include "runner/case_record.h"
#include "spec/case_spec.h"

namespace ampbench {
namespace distributed {
struct Context;
}  // namespace distributed
struct TrainingState;
class Workload;

struct RunOptions {
  bool measure_throughput = true;
  // Debug: extra busy work after each timed step, as a fraction of that
  // step's own time (calibrates the gate's slowdown detection).
  double inject_slowdown = 0.0;
  // --deterministic: record each case's fingerprint (runner/determinism.h).
  bool fingerprint = false;
  // Test only, -1 = off: at this step of every recorded run, flip one low
  // mantissa bit of the first parameter's gradient (runner/bitflip.h).
  int inject_bitflip_step = -1;
  // When set, every conformance run is dumped here for reference/python.
  std::string dump_dir;
  // Multi-rank runs (ddp): the cases this rank leaves to rank 0 (recorded as
  // skipped with the returned reason; "" runs it) and a hook after every
  // case (the ranks' barrier, which keeps them in step).
  std::function<std::string(const CaseSpec&)> skip_here;
  std::function<void(const CaseSpec&)> after_case;
  // The process group collective cases (ddp) run over: this process's rank
  // of a launched world. Null: the Runner makes a world of one when such a
  // case first needs it, and shuts it down when destroyed.
  std::shared_ptr<distributed::Context> context;
};

class Runner {
 public:
  explicit Runner(RunOptions options = {}) : options_(std::move(options)) {}
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Never throws: failures become status kError with the message, a device
  // that cannot run the case becomes kSkipped with the reason. One thread
  // at a time (ranks run as threads each have their own Runner).
  CaseRecord run(const CaseSpec& spec) const;

 private:
  distributed::Context& context() const;
  // The converge cases' data, read once per file (data/dataset_file.h).
  const Dataset& dataset(const ConvergenceSettings& settings) const;

  RunOptions options_;
  mutable std::shared_ptr<distributed::Context> world_of_one_;  // made on first use
  mutable std::shared_ptr<const Dataset> dataset_;               // read on first use
};

// The data `spec` trains on: DataParallel scatters the whole batch of one
// process, a DDP rank reads its own shard.
DataOptions data_options(const CaseSpec& spec);

// The next `count` micro-batches from `cursor` (advanced), copied to the
// device; or the one cached device batch, `count` times.
std::vector<Batch> micro_batches(const SyntheticData& data, int count, int& cursor, bool cached);

// A fresh state of `spec` in timed mode (past any injected inf, no host
// reads for engagement) and the step that trains it on the case's input:
// what the timed region, a CUDA-graph capture and the checks of both repeat.
class TimedTraining {
 public:
  TimedTraining(const CaseSpec& spec, const c10::Device& device, distributed::Context* context = nullptr);
  ~TimedTraining();
  TimedTraining(const TimedTraining&) = delete;
  TimedTraining& operator=(const TimedTraining&) = delete;

  void step();
  TrainingState& state() { return *state_; }

 private:
  std::unique_ptr<TrainingState> state_;
  const Workload& workload_;
  SyntheticData data_;
  int micro_batches_;
  bool cached_;
  int cursor_ = 0;
};

// Throughput of `spec` alone (warm-up, repetitions, synchronized timing);
// `context` for collective workloads.
ThroughputRecord measure_throughput(const CaseSpec& spec, const c10::Device& device, double slowdown = 0.0,
                                    distributed::Context* context = nullptr);

// Why `spec` cannot run on this machine, or "" when it can.
std::string skip_reason(const CaseSpec& spec);

}  // namespace ampbench
