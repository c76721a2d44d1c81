// Which Linear layers an FP8 recipe may convert besides the inner ones
// (fp8/conversion.h): a header without LibTorch's modules, for CaseSpec.
#pragma once

#include <torch/arg.h>

namespace ampbench::fp8 {

struct ConversionOptions {
  TORCH_ARG(bool, convert_first) = false;
  TORCH_ARG(bool, convert_last) = false;
};

}  // namespace ampbench::fp8
