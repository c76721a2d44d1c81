#include "distributed/context.h"

#include <c10/util/Logging.h>

#include <atomic>

#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#if defined(AMPBENCH_HAVE_CUDA) && defined(USE_C10D_NCCL)
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define AMPBENCH_HAVE_NCCL 1
#endif

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace ampbench::distributed {
namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

int env_int(const char* name, const std::string& value) {
  size_t used = 0;
  int out = 0;
  try {
    out = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || out < 0)
    throw std::invalid_argument(std::string("environment variable ") + name + "='" + value +
                                "' is not a non-negative integer");
  return out;
}

bool is_loopback(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

std::shared_ptr<::gloo::transport::Device> gloo_device(const std::string& master_addr) {
  if (auto ifname = env("GLOO_SOCKET_IFNAME")) return c10d::ProcessGroupGloo::createDeviceForInterface(*ifname);
  // All ranks on this host: loopback needs no name resolution.
  if (is_loopback(master_addr)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

}  // namespace

std::optional<RankEnv> rank_env_from_environment() {
  // torchrun (and `ampbench run --nproc`) first, then Slurm.
  const char* rank_var = "RANK";
  const char* size_var = "WORLD_SIZE";
  const char* local_var = "LOCAL_RANK";
  if (!env("RANK") && env("SLURM_PROCID") && env("SLURM_NTASKS")) {
    rank_var = "SLURM_PROCID";
    size_var = "SLURM_NTASKS";
    local_var = "SLURM_LOCALID";
  }
  const auto rank = env(rank_var);
  const auto size = env(size_var);
  if (!rank || !size) return std::nullopt;
  RankEnv e;
  e.rank = env_int(rank_var, *rank);
  e.world_size = env_int(size_var, *size);
  e.local_rank = env(local_var) ? env_int(local_var, *env(local_var)) : e.rank;
  if (e.world_size < 1) throw std::invalid_argument(std::string(size_var) + " must be at least 1");
  if (e.rank >= e.world_size)
    throw std::invalid_argument(std::string(rank_var) + "=" + *rank + " is not below " + size_var + "=" + *size);
  const auto addr = env("MASTER_ADDR");
  const auto port = env("MASTER_PORT");
  if (!addr || !port)
    throw std::invalid_argument(std::string(rank_var) + "/" + size_var +
                                " are set but MASTER_ADDR and MASTER_PORT are not (export them, e.g. the first "
                                "host of the allocation and a free port)");
  e.master_addr = *addr;
  e.master_port = env_int("MASTER_PORT", *port);
  if (e.master_port == 0 || e.master_port > 65535) throw std::invalid_argument("MASTER_PORT must be in 1..65535");
  const auto agent = env("TORCHELASTIC_USE_AGENT_STORE");
  e.agent_store = agent && (*agent == "True" || *agent == "true" || *agent == "1");
  return e;
}

std::shared_ptr<Context> make_context(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size,
                                      int local_rank, bool cuda, std::chrono::milliseconds timeout) {
  auto ctx = std::make_shared<Context>();
  ctx->rank = rank;
  ctx->world_size = world_size;
  ctx->local_rank = local_rank;
  ctx->timeout = timeout;
  ctx->store = store;
  // One prefix per group, as torch.distributed does, so the backends'
  // rendezvous keys never collide with anything else on the store.
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>("ampbench/default_pg/", store);
  ctx->group = c10::make_intrusive<c10d::ProcessGroup>(prefixed, rank, world_size);

  auto gloo_options = c10d::ProcessGroupGloo::Options::create(timeout);
  std::string master = "127.0.0.1";
  if (auto addr = env("MASTER_ADDR")) master = *addr;
  gloo_options->devices.push_back(gloo_device(master));
  auto gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(
      c10::make_intrusive<c10d::PrefixStore>("gloo/", prefixed), rank, world_size, gloo_options);
  ctx->group->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, gloo);
  ctx->group->setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
  ctx->group->setGroupName("ampbench_default_pg");
  ctx->backend = "gloo";
  if (cuda) {
#ifdef AMPBENCH_HAVE_NCCL
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(local_rank));
    auto nccl_options = c10d::ProcessGroupNCCL::Options::create();
    nccl_options->timeout = timeout;
    auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(
        c10::make_intrusive<c10d::PrefixStore>("nccl/", prefixed), rank, world_size, nccl_options);
    ctx->group->setBackend(c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::NCCL, nccl);
    ctx->group->setDefaultBackend(c10d::ProcessGroup::BackendType::NCCL);
    ctx->backend = "nccl+gloo";
#else
    throw std::runtime_error("this build of ampbench has no NCCL support (built without CUDA)");
#endif
  }
  return ctx;
}

namespace {

// c10d logs every failed connection attempt to an unreachable master (with a
// C++ backtrace) before throwing; the exception's first line is what the run
// reports, as the one line the README promises. Restores the level on exit.
class QuietC10Logging {
 public:
  QuietC10Logging() : saved_(FLAGS_caffe2_log_level) { FLAGS_caffe2_log_level = kFatal; }
  ~QuietC10Logging() { FLAGS_caffe2_log_level = saved_; }
  QuietC10Logging(const QuietC10Logging&) = delete;
  QuietC10Logging& operator=(const QuietC10Logging&) = delete;

 private:
  static constexpr int kFatal = 3;  // c10's levels: 0 INFO, 1 WARNING, 2 ERROR, 3 FATAL
  int saved_;
};

}  // namespace

std::shared_ptr<Context> join(const RankEnv& e, bool cuda, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions opts;
  opts.port = static_cast<std::uint16_t>(e.master_port);
  opts.isServer = e.rank == 0 && !e.agent_store;
  opts.numWorkers = static_cast<std::size_t>(e.world_size);
  opts.waitWorkers = false;
  opts.timeout = timeout;
  c10::intrusive_ptr<c10d::TCPStore> store;
  {
    const QuietC10Logging quiet;
    store = c10::make_intrusive<c10d::TCPStore>(e.master_addr, opts);
  }
  return make_context(store, e.rank, e.world_size, e.local_rank, cuda, timeout);
}

std::shared_ptr<Context> make_world_of_one() {
  return make_context(c10::make_intrusive<c10d::HashStore>(), 0, 1, 0, false, std::chrono::seconds(300));
}

std::string shutdown(Context& context) {
  if (!context.group && !context.store) return "";
  const std::string what = "rank " + std::to_string(context.rank) + " of " + std::to_string(context.world_size) +
                           ": process group (" + context.backend + ") shut down";
  if (context.group) context.group->shutdown();
  context.group.reset();
  context.store.reset();
  return what;
}

ContextScope::~ContextScope() {
  if (!context_) return;
  try {
    const std::string what = shutdown(*context_);
    if (!what.empty()) std::cout << "ampbench: " << what << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "ampbench: warning: shutting the process group down failed: " << e.what() << std::endl;
  }
}

void maybe_debug_fail(const Context& context) {
  // Once per process; atomic because tests run ranks as threads.
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  if (auto crash = env("AMPBENCH_DEBUG_RANK_CRASH"); crash && env_int("AMPBENCH_DEBUG_RANK_CRASH", *crash) == context.rank) {
    std::cerr << "rank " << context.rank << ": AMPBENCH_DEBUG_RANK_CRASH: aborting on purpose" << std::endl;
    std::abort();
  }
  if (auto hang = env("AMPBENCH_DEBUG_RANK_HANG"); hang && env_int("AMPBENCH_DEBUG_RANK_HANG", *hang) == context.rank) {
    std::cerr << "rank " << context.rank << ": AMPBENCH_DEBUG_RANK_HANG: hanging on purpose" << std::endl;
    for (;;) pause();
  }
}

}  // namespace ampbench::distributed
