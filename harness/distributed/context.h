// The distributed context of one process: its rank, the world size and the
// c10d process group every DDP case of the run shares (Gloo on CPU; on CUDA
// NCCL for CUDA tensors and Gloo for CPU ones, as PyTorch's "cpu:gloo,cuda:nccl").
//
// Three ways to get one:
//  - launched: RANK/WORLD_SIZE/LOCAL_RANK/MASTER_ADDR/MASTER_PORT in the
//    environment (`ampbench run --nproc N`, torchrun, or Slurm's SLURM_PROCID/
//    SLURM_NTASKS/SLURM_LOCALID with MASTER_ADDR/MASTER_PORT exported);
//    rendezvous through a c10d::TCPStore;
//  - single process (no such environment): a world of one, still a real
//    ProcessGroupGloo (over a HashStore) and a real Reducer;
//  - tests: several contexts in one process, one per thread (ScopedContext).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <c10/util/intrusive_ptr.h>

namespace c10d {
class ProcessGroup;
class Store;
}  // namespace c10d

namespace ampbench::distributed {

// The launch environment of this process, if it was started as one rank of
// several.
struct RankEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;
  // torchrun's agent (and `ampbench run --nproc`) hosts the TCPStore itself:
  // then every rank is a client. Otherwise rank 0 hosts it.
  bool agent_store = false;
};

// RANK/WORLD_SIZE/... (or SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID), when set.
// Throws std::invalid_argument naming the variable when one is malformed or
// MASTER_ADDR/MASTER_PORT are missing.
std::optional<RankEnv> rank_env_from_environment();

struct Context {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string backend;  // "gloo" or "nccl+gloo"
  std::chrono::milliseconds timeout{300000};
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroup> group;
};

// Builds the process group over `store` (already a rendezvous point every
// rank reaches): Gloo for CPU tensors, plus NCCL for CUDA ones when `cuda`.
// Blocks until all `world_size` ranks have joined or `timeout` passes.
std::shared_ptr<Context> make_context(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size,
                                      int local_rank, bool cuda, std::chrono::milliseconds timeout);

// Joins the world described by `env` through a TCPStore.
std::shared_ptr<Context> join(const RankEnv& env, bool cuda, std::chrono::milliseconds timeout);

// The context DDP cases use: this thread's (ScopedContext), else the
// process's (set_process_context), else a lazily made world of one.
Context& current();

// Installs the process-wide context (done once by `ampbench run`).
void set_process_context(std::shared_ptr<Context> context);

// Whether a multi-rank process context is installed (this process is one of
// several ranks).
bool is_multi_rank();

// Whether a process-wide context exists (installed or lazily made).
bool has_process_context();

// Tears the process-wide context down now: ProcessGroup::shutdown() (NCCL
// destroys its communicators while CUDA is still up, as
// torch.distributed.destroy_process_group does), then drops the group and
// the store. Returns a line saying what was shut down, or "" when there was
// no context. Call it after every case (and so every Reducer) is gone.
std::string shutdown_process_context();

// Scopes the process-wide context to a command (`ampbench run`): on exit it
// shuts the context down and prints the line (rank logs end with it), so
// nothing torch-owned is left for static destruction, where the CUDA
// runtime may already be unloaded.
class ProcessContextScope {
 public:
  ProcessContextScope() = default;
  ~ProcessContextScope();
  ProcessContextScope(const ProcessContextScope&) = delete;
  ProcessContextScope& operator=(const ProcessContextScope&) = delete;
};

// Makes `context` this thread's context for the guard's lifetime (tests run
// several ranks as threads of one process).
class ScopedContext {
 public:
  explicit ScopedContext(std::shared_ptr<Context> context);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  std::shared_ptr<Context> previous_;
};

// Debug hooks for the failure-handling tests: AMPBENCH_DEBUG_RANK_CRASH=R
// makes rank R abort, AMPBENCH_DEBUG_RANK_HANG=R makes it hang, both at its
// first DDP step (after the process group is up, while the peers wait in a
// collective). "1" means rank 1.
void maybe_debug_fail(const Context& context);

}  // namespace ampbench::distributed
