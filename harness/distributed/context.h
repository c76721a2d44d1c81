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
//  - tests: several contexts in one process, one per thread.
//
// Whoever makes a context passes it on (RunOptions::context, then
// TrainingState::context): there is no process-wide or per-thread one.
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

// A world of one (this process alone): a real ProcessGroupGloo over a
// HashStore, so a single-process ddp case runs the same Reducer path.
std::shared_ptr<Context> make_world_of_one();

// ProcessGroup::shutdown() (NCCL destroys its communicators while CUDA is
// still up, as torch.distributed.destroy_process_group does), then drops the
// group and the store. Returns "rank R of W: process group (BACKEND) shut
// down", or "" when it was shut down already. Call it once every Reducer
// over the group is gone.
std::string shutdown(Context& context);

// Owns a command's context (`ampbench run` as one rank of several) and shuts
// it down when the command ends, printing the line (rank logs end with it):
// nothing torch-owned is left for static destruction, where the CUDA
// runtime may already be unloaded.
class ContextScope {
 public:
  explicit ContextScope(std::shared_ptr<Context> context) : context_(std::move(context)) {}
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  const std::shared_ptr<Context>& get() const { return context_; }

 private:
  std::shared_ptr<Context> context_;
};

// Debug hooks for the failure-handling tests: AMPBENCH_DEBUG_RANK_CRASH=R
// makes rank R abort, AMPBENCH_DEBUG_RANK_HANG=R makes it hang, both at its
// first DDP step (after the process group is up, while the peers wait in a
// collective). "1" means rank 1.
void maybe_debug_fail(const Context& context);

}  // namespace ampbench::distributed
