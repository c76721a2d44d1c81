#include "suite/fp8_plans.h"

#include <map>
#include <tuple>

#include "models/linear.h"
#include "models/model.h"
#include "suite/suite.h"

namespace ampbench {

// Whether an FP8 case's model has a Linear its recipe converts, and every
// planned one is the families' Linear, is known only from the built model:
// each model and choice of layers is built once, on the CPU. A GPU-sized
// model is left to its run (which refuses it the same way).
void check_fp8_plans(const std::vector<CaseSpec>& cases, const std::string& path) {
  std::map<std::tuple<std::string, bool, bool>, std::string> refusals;
  for (const CaseSpec& c : cases) {
    if (!c.fp8 || c.gpu_sized) continue;
    const auto key = std::make_tuple(c.model->name, c.fp8->conversion.convert_first(), c.fp8->conversion.convert_last());
    auto it = refusals.find(key);
    if (it == refusals.end()) {
      const Model model = make_model(*c.model, c.sizes, c.seed, c10::Device(c10::kCPU));
      it = refusals.emplace(key, plan_fp8(*model.module, c.fp8->conversion).refusal).first;
    }
    if (!it->second.empty()) throw SuiteError(path + ": case " + c.id + ": " + c.precision.name() + ": " + it->second);
  }
}

}  // namespace ampbench
