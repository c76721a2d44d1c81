// The fields that name a case, written the same way wherever a case is
// serialised (results files, dumps for the Python oracle).
#pragma once

#include "core/json.h"
#include "spec/case_spec.h"
#include "spec/workload_traits.h"

namespace ampbench {

// {id, workload, variant, model, precision, optimizer, optimizer_impl, cuda_graph}
inline nlohmann::json case_identity_json(const CaseSpec& s) {
  return {{"id", s.id},
          {"workload", s.workload->name()},
          {"variant", to_string(s.variant)},
          {"model", s.model->name},
          {"precision", s.precision.name()},
          {"optimizer", optim::to_string(s.optimizer)},
          {"optimizer_impl", optim::to_string(s.optimizer_impl)},
          {"cuda_graph", s.cuda_graph}};
}

}  // namespace ampbench
