// What the two attention families (transformer, decoder) share in their
// registrations: the sizes a suite gives them and one block's parameters.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spec/model_sizes.h"

namespace ampbench {

inline std::vector<std::pair<std::string, int ModelSizes::*>> sequence_size_keys() {
  return {{"seq", &ModelSizes::seq}, {"d_model", &ModelSizes::d_model}, {"heads", &ModelSizes::heads},
          {"ffn", &ModelSizes::ffn}};
}

// The token models (gpt2, bert): the sequence sizes, their layer count and
// vocabulary; one sample is seq token ids.
inline std::vector<std::pair<std::string, int ModelSizes::*>> token_model_size_keys() {
  auto keys = sequence_size_keys();
  keys.emplace_back("layers", &ModelSizes::layers);
  keys.emplace_back("vocab", &ModelSizes::vocab);
  return keys;
}
inline std::vector<int64_t> token_sample_shape(const ModelSizes& s) { return {s.seq}; }

// One layer of transformers' eager attention keeps its heads x seq x seq
// scores and probabilities besides the block's own activations.
inline double eager_attention_layer_activations(const ModelSizes& s) {
  const double seq = s.seq;
  return seq * (10.0 * s.d_model + 3.0 * s.ffn) + 3.0 * s.heads * seq * seq;
}

// One sample: seq feature vectors of d_model.
inline std::vector<int64_t> sequence_sample_shape(const ModelSizes& s) { return {s.seq, s.d_model}; }

inline std::pair<std::string, std::string> heads_refusal(const ModelSizes& s) {
  if (s.heads <= 0 || s.d_model % s.heads != 0) return {"heads", "must divide d_model"};
  return {};
}

// q/k/v and output projections with biases, two LayerNorms, the
// feed-forward with biases.
inline double attention_block_parameters(const ModelSizes& s) {
  const double d = s.d_model, f = s.ffn;
  return 4 * d * d + 4 * d + 2 * d * f + f + d + 4 * d;
}

}  // namespace ampbench
