#include "distributed/ddp_reducer.h"

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>
#include <torch/nn/module.h>

#include <torch/csrc/distributed/c10d/comm.hpp>

#include <algorithm>

namespace ampbench::distributed {

using Clock = std::chrono::steady_clock;

struct DdpReplica::Launches {
  std::mutex mutex;
  Clock::time_point backward_started;
  std::vector<Clock::time_point> times;
};

namespace {

// What torch.nn.parallel.DistributedDataParallel does by default (divide by
// the world size, all-reduce the bucket), plus a timestamp per launch.
class TimedAllReduceHook : public c10d::CppCommHookInterface<c10::intrusive_ptr<c10d::ProcessGroup>> {
 public:
  TimedAllReduceHook(const c10::intrusive_ptr<c10d::ProcessGroup>& group,
                     std::shared_ptr<DdpReplica::Launches> launches)
      : CppCommHookInterface(group), launches_(std::move(launches)) {}

  c10::intrusive_ptr<c10::ivalue::Future> runHook(c10d::GradBucket& bucket) override {
    {
      const std::lock_guard<std::mutex> lock(launches_->mutex);
      launches_->times.push_back(Clock::now());
    }
    at::Tensor& buffer = bucket.getBufferRef();
    buffer.div_(state_->getSize());
    std::vector<at::Tensor> tensors = {buffer};
    return state_->allreduce(tensors)->getFuture();
  }

 private:
  std::shared_ptr<DdpReplica::Launches> launches_;
};

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

void broadcast_from_rank0(torch::nn::Module& module, Context& context) {
  std::vector<at::Tensor> tensors;
  for (const at::Tensor& p : module.parameters()) tensors.push_back(p.detach());
  for (const at::Tensor& b : module.buffers()) tensors.push_back(b.detach());
  if (context.world_size == 1 || tensors.empty()) return;
  torch::NoGradGuard no_grad;
  // One collective per tensor keeps it simple; done once per case.
  for (at::Tensor& t : tensors) {
    std::vector<at::Tensor> one = {t};
    c10d::BroadcastOptions opts;
    opts.rootRank = 0;
    context.group->broadcast(one, opts)->wait();
  }
}

DdpReplica::DdpReplica(const std::shared_ptr<torch::nn::Module>& module, Context& context) : context_(context) {
  broadcast_from_rank0(*module, context);
  std::vector<at::Tensor> params;
  for (const at::Tensor& p : module->parameters())
    if (p.requires_grad()) params.push_back(p);
  const std::vector<bool> sparse(params.size(), false);
  auto [buckets, limits] = c10d::compute_bucket_assignment_by_size(
      params, {static_cast<size_t>(c10d::kDefaultFirstBucketBytes), static_cast<size_t>(c10d::kDefaultBucketBytesCap)},
      sparse);
  // Gradients arrive roughly in reverse parameter order: DDP reverses the
  // bucket list so the first bucket to fill is reduced first.
  std::reverse(buckets.begin(), buckets.end());
  bucket_count_ = buckets.size();
  std::unordered_map<size_t, std::string> names;
  size_t i = 0;
  for (const auto& item : module->named_parameters())
    if (item.value().requires_grad()) names[i++] = item.key();
  reducer_ = std::make_unique<c10d::Reducer>(params, std::move(buckets), context.group, sparse,
                                             c10d::kDefaultBucketBytesCap,
                                             /*find_unused_parameters=*/false,
                                             /*gradient_as_bucket_view=*/false, std::move(names),
                                             c10d::kDefaultFirstBucketBytes,
                                             /*skip_all_reduce_unused_params=*/false,
                                             /*use_python_reducer=*/false, std::vector<int64_t>{});
  launches_ = std::make_shared<Launches>();
  reducer_->register_comm_hook(std::make_unique<TimedAllReduceHook>(context.group, launches_));
}

DdpReplica::~DdpReplica() = default;

void DdpReplica::prepare_for_forward() {
  reducer_->rebuild_buckets();
  reducer_->prepare_for_forward();
}

void DdpReplica::prepare_for_backward(const std::vector<at::Tensor>& outputs) {
  {
    const std::lock_guard<std::mutex> lock(launches_->mutex);
    launches_->times.clear();
    launches_->backward_started = Clock::now();
  }
  reducer_->prepare_for_backward(outputs);
}

BackwardTimeline DdpReplica::last_backward() const {
  const Clock::time_point now = Clock::now();
  const std::lock_guard<std::mutex> lock(launches_->mutex);
  BackwardTimeline t;
  t.buckets = bucket_count_;
  for (const Clock::time_point& launch : launches_->times) t.launch_ms.push_back(ms_between(launches_->backward_started, launch));
  t.returned_ms = ms_between(launches_->backward_started, now);
  return t;
}

}  // namespace ampbench::distributed
