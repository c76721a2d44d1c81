#include "runner/graph_step.h"

#include <ATen/ops/abs.h>
#include <ATen/ops/equal.h>
#include <c10/core/Device.h>

#include <cmath>
#include <stdexcept>

#include "runner/runner.h"
#include "workloads/workload.h"

#ifdef AMPBENCH_HAVE_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace ampbench {

#ifdef AMPBENCH_HAVE_CUDA
struct GraphedStep::Impl {
  at::cuda::CUDAGraph graph;
};

namespace {

// `waiter` runs nothing further until the work queued on `on` so far is done.
void wait_for(const at::cuda::CUDAStream& waiter, const at::cuda::CUDAStream& on) {
  at::cuda::CUDAEvent done;
  done.record(on);
  done.block(waiter);
}

}  // namespace

GraphedStep::GraphedStep(const std::function<void()>& step, int warmup_steps) : impl_(std::make_unique<Impl>()) {
  const at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  wait_for(side, at::cuda::getCurrentCUDAStream());
  {
    const c10::cuda::CUDAStreamGuard on_side(side);
    for (int i = 0; i < warmup_steps; ++i) step();
    // Captured on the side stream, as torch.cuda.graph does: capture may not
    // run on the legacy default stream.
    impl_->graph.capture_begin();
    step();
    impl_->graph.capture_end();
  }
  wait_for(at::cuda::getCurrentCUDAStream(), side);
}

GraphedStep::~GraphedStep() = default;

void GraphedStep::replay() { impl_->graph.replay(); }
#else
struct GraphedStep::Impl {};

GraphedStep::GraphedStep(const std::function<void()>&, int) {
  throw std::runtime_error("CUDA-graph capture needs a CUDA build of ampbench");
}

GraphedStep::~GraphedStep() = default;

void GraphedStep::replay() {}
#endif

namespace {

// One timed-mode state trained on the case's (cached) batch, eagerly or
// through a graph; its trained tensors and scale at the end.
struct Trained {
  std::vector<at::Tensor> params;
  double scale = 1;
};

Trained train(const CaseSpec& spec, const c10::Device& device, int warmup_steps, int replays, bool graphed) {
  TimedTraining timed(spec, device);
  auto step = [&] { timed.step(); };
  if (graphed) {
    GraphedStep graph(step, warmup_steps);
    for (int i = 0; i < replays; ++i) graph.replay();
  } else {
    for (int i = 0; i < warmup_steps + replays; ++i) step();
  }
  return {timed.state().parameters(), timed.state().scaler.get_scale()};
}

// |a - b| in units of float32's ulp at b's largest magnitude.
double ulps_apart(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor x = a.detach().to(at::kCPU, at::kFloat), y = b.detach().to(at::kCPU, at::kFloat);
  const double largest = y.abs().max().item<double>();
  const double ulp = largest > 0 ? std::nextafter(static_cast<float>(largest), INFINITY) - static_cast<float>(largest)
                                 : 1e-45;
  return (x - y).abs().max().item<double>() / ulp;
}

}  // namespace

std::optional<std::string> graph_difference(const CaseSpec& spec, const c10::Device& device, int warmup_steps,
                                            int replays) {
  const Trained eager = train(spec, device, warmup_steps, replays, false);
  const Trained graphed = train(spec, device, warmup_steps, replays, true);
  const std::string head = "the CUDA-graph run (" + std::to_string(warmup_steps) + " eager steps, then " +
                           std::to_string(replays) + " replays) differs from the uncaptured run: ";
  for (size_t k = 0; k < eager.params.size(); ++k)
    if (!at::equal(graphed.params[k].detach().cpu(), eager.params[k].detach().cpu()))
      return head + "parameter " + std::to_string(k) + " by " + std::to_string(ulps_apart(graphed.params[k], eager.params[k])) +
             " ulp of its largest element";
  if (graphed.scale != eager.scale)
    return head + "loss scale " + std::to_string(graphed.scale) + " vs " + std::to_string(eager.scale);
  return std::nullopt;
}

}  // namespace ampbench
