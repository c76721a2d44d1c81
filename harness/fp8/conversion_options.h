// Which Linear layers an FP8 recipe may convert besides the inner ones, and
// the choice made for each layer (fp8/conversion.h makes it): a header
// without LibTorch's modules, for CaseSpec and CaseRecord.
#pragma once

#include <torch/arg.h>

#include <cstdint>
#include <string>

namespace ampbench::fp8 {

struct ConversionOptions {
  TORCH_ARG(bool, convert_first) = false;
  TORCH_ARG(bool, convert_last) = false;
  // Both dimensions must be multiples of it: 16 for the GPU's FP8 GEMMs, 128
  // for blockwise scaling, whose tiles may not straddle a layer's edge.
  TORCH_ARG(int64_t, alignment) = 16;
};

// One Linear layer and the choice made for it: converted, or why not.
struct LinearChoice {
  std::string name;  // as named_modules() names it
  int64_t in_features = 0;
  int64_t out_features = 0;
  bool converted = false;
  std::string reason;  // empty when converted
};

}  // namespace ampbench::fp8
