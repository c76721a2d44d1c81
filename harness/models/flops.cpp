#include "models/flops.h"

namespace ampbench {

double attention_block_flops(const ModelSizes& s) {
  const double seq = s.seq, d = s.d_model;
  const double projections = seq * (linear_flops(d, 3 * d) + linear_flops(d, d));
  const double attention = 2.0 * (2.0 * seq * seq * d);
  const double ffn = seq * (linear_flops(d, s.ffn) + linear_flops(s.ffn, d));
  return projections + attention + ffn;
}

}  // namespace ampbench
