#include "distributed/ddp_registry.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace ampbench::distributed {
namespace {

struct Entry {
  std::weak_ptr<torch::nn::Module> module;
  std::unique_ptr<DdpReplica> replica;
};

std::mutex registry_mutex;
std::map<const TrainingState*, Entry> registry;  // guarded by registry_mutex

}  // namespace

DdpReplica& ddp_replica_for(TrainingState& state) {
  if (state.models.size() != 1) throw std::invalid_argument("ddp: expects exactly one model");
  const std::shared_ptr<torch::nn::Module>& module = state.model().module;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    // Drop replicas whose states are gone (their models expired).
    for (auto it = registry.begin(); it != registry.end();) {
      it = it->second.module.expired() ? registry.erase(it) : std::next(it);
    }
    auto it = registry.find(&state);
    if (it != registry.end() && it->second.module.lock() == module) return *it->second.replica;
    if (it != registry.end()) registry.erase(it);
  }
  Context& context = current();
  maybe_debug_fail(context);
  auto replica = std::make_unique<DdpReplica>(module, context);  // collectives: outside the lock
  std::lock_guard<std::mutex> lock(registry_mutex);
  Entry& entry = registry[&state];
  entry.module = module;
  entry.replica = std::move(replica);
  return *entry.replica;
}

}  // namespace ampbench::distributed
