// The compiled implementation of a case: the C++ runner trains it eagerly
// and dumps its start (weights, batches); PyTorch's Python trains the same
// recipe from that start with the model compiled by torch.compile
// (python -m reference.python.compiled); its record replaces the trajectory,
// and the checker judges it against the eager fp32 baseline like any case.
// The training runs in Python by necessity: torch.compile has no C++ API.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/case_record.h"
#include "session/case_verdict.h"
#include "session/run_session.h"

namespace ampbench {

// The file that marks a folder as a cache the compiled implementation made
// (reference/python/compiled/toolchain.py writes it).
inline constexpr const char* kCompileCacheMarker = ".ampbench-compiled-cache";

struct CompiledSettings {
  std::string mode = "default";
  bool compile_step = false;  // compile the optimizer step too
  std::string fault;          // "" or one of kCompileFaults
  std::string dump_dir;       // where the eager runs dump their cases' start
  std::string cache_dir;      // absolute; "" for each case's own cache, emptied first
  bool timed = true;          // time the compiled steps (the case's measured steps)
};

// The settings of `run --implementation compiled` writing into `out_dir`
// (its dumps in OUT/dump unless --dump names a folder); none for eager.
std::optional<CompiledSettings> compiled_settings(const RunSettings& args, const std::string& out_dir);

// Why `dir` cannot be the run's shared Inductor cache ("" when it can): it
// must be a new or empty folder, or one the compiled implementation made
// (its marker file), so that no folder of the user's is filled or reused.
std::string compile_cache_refusal(const std::string& dir);

// The env block's record of them: "implementation", and "compile" {mode,
// compile_step, cache_dir (null: each case's own)}; a test-only fault as "injected_compile_fault".
void add_implementation_env(nlohmann::json& env, const std::optional<CompiledSettings>& compiled);

// Why `spec` cannot run compiled ("" when it can): the compiled
// implementation runs single-process cases of a model with a Python
// definition, in the precisions the Python recipes implement.
std::string compiled_refusal(const CaseSpec& spec);

// Trains `rec`'s case compiled from the dump its eager run wrote and puts
// the compiled run in its place (compiled_record.h). A failure becomes the
// case's error, with the reason Python gave.
void train_compiled(CaseRecord& rec, const CompiledSettings& settings, bool emulate_precision_casts = false);

// The record of `spec` by its implementation: the runner's eager run, then,
// for a compiled case, the compiled run from its dump.
CaseRecord run_case(const CaseSpec& spec, const Runner& runner, const std::optional<CompiledSettings>& compiled);

// A compiled case beyond its bound: the same case compiled again with
// Inductor keeping eager's intermediate roundings (emulate_precision_casts),
// its largest distance/bound recorded beside the verdict's, so a reader sees
// whether the difference is Inductor's dropped roundings or something else.
void add_emulated_distance(CaseRecord& record, const Verdict& verdict, const CaseRecord& baseline,
                           const Runner& runner, const CompiledSettings& settings);

// The compiled fp32 twin of each fp32 baseline that a compiled case uses:
// `baseline` compiled, judged against the eager `baseline` within fp32's
// envelope (make_compiled asks the baseline for it).
CaseSpec compiled_fp32_twin(const CaseSpec& baseline);

// `cases` as `run --implementation compiled` runs them: every case that can
// run compiled does, every fp32 baseline stays eager and gains its compiled
// twin after it, and a case that cannot is left eager with the reason in
// the returned list (id, reason), to be skipped.
std::vector<std::pair<std::string, std::string>> make_compiled(std::vector<CaseSpec>& cases);

}  // namespace ampbench
