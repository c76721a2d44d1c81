#include "models/flops.h"

#include <stdexcept>

#include "models/cnn.h"

namespace ampbench {

namespace {

double linear(double in, double out) { return 2.0 * in * out; }

// 3x3 convolution, padding 1: the output keeps the input's size.
double conv3x3(double in_channels, double out_channels, double side) {
  return 2.0 * in_channels * out_channels * 9.0 * side * side;
}

}  // namespace

double forward_flops_per_sample(const std::string& family, const ModelSizes& s) {
  if (family == "mlp") return linear(s.in_features, s.hidden) + linear(s.hidden, s.hidden) + linear(s.hidden, s.classes);
  if (family == "cnn") {
    const double c = s.channels;
    // conv1 at full size, a 2x2 max-pool, conv2 at half size, pooled head.
    return conv3x3(kCnnInputChannels, c, s.image) + conv3x3(c, 2 * c, s.image / 2) + linear(2 * c, s.classes);
  }
  if (family == "transformer" || family == "decoder") {
    const double seq = s.seq, d = s.d_model;
    const double projections = seq * (linear(d, 3 * d) + linear(d, d));  // packed q/k/v in, out
    // q.k^T and weights.v over the full seq x seq square, also for the causal
    // decoder (the PaLM / Megatron-LM MFU convention): a kernel that skips
    // the masked half does less work than counted.
    const double attention = 2.0 * (2.0 * seq * seq * d);
    const double ffn = seq * (linear(d, s.ffn) + linear(s.ffn, d));
    const double blocks = family == "decoder" ? s.layers : 1;
    return blocks * (projections + attention + ffn) + linear(d, s.classes);
  }
  throw std::invalid_argument("unknown model '" + family + "'");
}

}  // namespace ampbench
