// The sizes a suite's "models" section gives a model family. One struct for
// every family: a family reads the fields its registration names
// (models/model_family.h) and ignores the others.
#pragma once

namespace ampbench {

// Sizes of every model family; a case uses the ones of its model.
struct ModelSizes {
  int batch = 32;        // samples per micro-batch (per rank)
  int in_features = 64;  // mlp input width
  int hidden = 128;      // mlp hidden width
  int classes = 16;
  int channels = 16;     // cnn channels
  int in_channels = 8;   // cnn input channels: 8 fills tensor cores' K, 1 takes a grey image
  int image = 16;        // cnn input height = width
  int seq = 16;          // transformer sequence length
  int d_model = 64;
  int heads = 4;
  int ffn = 128;
  int layers = 1;              // decoder blocks; gpt2, bert, vit: encoder/decoder layers
  int vocab = 64;              // gpt2, bert: token ids are in [0, vocab)
  int depth = 18;              // resnet: 10, 18, 34, 50, 101 or 152 (torchvision's block counts)
  int patch = 4;               // vit: patch side (image must be a multiple)
  bool channels_last = false;  // cnn: NHWC activations and weights (the layout tensor cores want)
};

}  // namespace ampbench
