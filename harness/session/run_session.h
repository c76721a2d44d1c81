// A run of one suite as an API: plan (every input and output checked) ->
// launch the local ranks, or join as one -> run -> merge -> report. `ampbench
// run` binds its flags to RunSettings and calls run_session; `qualify` runs
// its suites through it the same way a user would.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/device_kind.h"

namespace ampbench {

struct RunSettings {
  std::string suite;  // "" = the default for the device
  std::string device = "auto";
  std::string out_dir;
  std::string filter;
  std::string junit;
  std::string ceilings_file;  // measured ceilings to embed in env
  bool no_throughput = false;
  bool no_report = false;
  double inject_slowdown = 0.0;
  // Pin determinism and record each case's fingerprint (runner/determinism.h).
  bool deterministic = false;
  int inject_bitflip_step = -1;  // test only (runner/bitflip.h); -1 = off
  std::string dump_dir;
  int nproc = 0;            // > 0: launch this many local ranks
  int rank_timeout = 120;   // seconds a rank may go without finishing a case
  // Every case's seed (weights, data, envelope noise) instead of the suite's.
  std::optional<std::uint64_t> seed;
  // CPU: run without oneDNN (other kernels, other rounding): the envelope's
  // "different hardware" check on one machine.
  bool no_mkldnn = false;
  // A non-empty --out is refused unless this is set; then the previous run's
  // files there are removed first (io::remove_previous_run).
  bool overwrite = false;
  bool allow_oversubscribe = false;  // more local ranks than cores (CPU) or GPUs
  // Fresh seeds a borderline verdict may take (check/confirmation.h); 0: the
  // suite's seed alone decides.
  int confirm_seeds = 2;
  // "compiled": the cases that can train compiled by torch.compile in
  // PyTorch's Python (session/compiled_case.h), judged like eager ones.
  std::string implementation = "eager";
  std::string compile_mode = "default";
  bool compile_step = false;
  // One Inductor cache every compiled case of the run fills and reuses ("":
  // each case's own, emptied first, so that its cold compile is cold).
  std::string compile_cache;
  std::string inject_compile_fault;  // test only: a wrong compiled graph the checker must fail
};

// "auto" -> the best device present; throws std::invalid_argument for cuda
// without a device.
DeviceKind resolve_device(const std::string& requested);

// Runs one suite; returns the exit code (session/exit_codes.h: 0 conforming,
// 1 not, 2 usage, 3 a lost rank, 128+N stopped).
int run_session(const RunSettings& settings);

// python -m reports over `results_paths` into `report_dir`; false (with a
// warning) when it failed.
bool make_report(const std::vector<std::string>& results_paths, const std::string& report_dir);

}  // namespace ampbench
