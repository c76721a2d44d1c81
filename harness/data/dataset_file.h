// Real labelled data for the converge cases, read from the JSON file that
// `python -m reference.python.datasets NAME FILE` writes from the copy
// scikit-learn ships in its wheel (nothing is downloaded). A fixed, stated
// train/validation split; the reader checks every shape and value and names
// the file and how to make it when anything is off.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ampbench {

class DatasetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LabelledSplit {
  at::Tensor x;  // float32 [n, features], pixels scaled to [0, 1]
  at::Tensor y;  // int64 [n], classes 0 .. classes - 1
  int64_t size() const { return y.defined() ? y.size(0) : 0; }
};

struct Dataset {
  std::string name;
  std::string path;
  std::string source;  // what made it (scikit-learn's loader and version)
  std::string sha256;  // of the split, as the writer computed it
  std::uint64_t split_seed = 0;
  int features = 0;
  int classes = 0;
  // One sample as a grey image, [height, width] with height * width =
  // features, row-major like its features: how an image model takes it.
  std::vector<int64_t> image;
  LabelledSplit train;
  LabelledSplit validation;
};

// $AMPBENCH_DATA_DIR/NAME.json, else $AMPBENCH_HOME/data/NAME.json, else
// $HOME/.cache/ampbench/data/NAME.json (beside the venv the bootstrap makes).
std::string dataset_path(const std::string& name);

// The command that writes dataset `name` to `path` (for messages).
std::string dataset_command(const std::string& name, const std::string& path);

// Reads and checks `path` as dataset `name`. Throws DatasetError naming the
// file, the problem and the command that makes it.
Dataset read_dataset_file(const std::string& name, const std::string& path);

}  // namespace ampbench
