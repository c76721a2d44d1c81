#include "workloads/ddp_replica.h"

#include <stdexcept>

#include "distributed/context.h"

namespace ampbench {
namespace {

// What the ddp workload keeps in TrainingState::workload_extension.
struct DdpExtension {
  std::weak_ptr<torch::nn::Module> module;  // the model the Reducer hooks
  std::unique_ptr<distributed::DdpReplica> replica;
};

}  // namespace

distributed::DdpReplica& ddp_replica_for(TrainingState& state) {
  if (state.models.size() != 1) throw std::invalid_argument("ddp: expects exactly one model");
  const std::shared_ptr<torch::nn::Module>& module = state.model().module;
  auto* current_extension = static_cast<DdpExtension*>(state.workload_extension.get());
  if (current_extension != nullptr && current_extension->module.lock() == module) return *current_extension->replica;
  if (state.context == nullptr)
    throw std::invalid_argument("ddp: no process group (the runner passes its context to the case's state)");
  distributed::Context& context = *state.context;
  maybe_debug_fail(context);
  auto extension = std::make_shared<DdpExtension>();
  extension->module = module;
  extension->replica = std::make_unique<distributed::DdpReplica>(module, context);
  state.workload_extension = extension;  // a stale replica (other model) dies here
  return *extension->replica;
}

}  // namespace ampbench
