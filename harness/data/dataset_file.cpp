#include "data/dataset_file.h"

#include <ATen/ops/tensor.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "io/json_file.h"

namespace ampbench {
namespace {

using nlohmann::json;

constexpr int kFormatVersion = 1;

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

[[noreturn]] void fail(const std::string& name, const std::string& path, const std::string& problem) {
  throw DatasetError("dataset " + name + " (" + path + "): " + problem + "; write it again with: " +
                     dataset_command(name, path));
}

int positive_int(const json& doc, const char* key, const std::string& name, const std::string& path) {
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_number_integer() || it->get<int64_t>() <= 0 || it->get<int64_t>() > 1'000'000)
    fail(name, path, std::string("\"") + key + "\" must be a positive integer");
  return it->get<int>();
}

// One split: x rows of `features` pixels in [0, scale], y labels in [0, classes).
LabelledSplit read_split(const json& doc, const char* key, int features, int classes, double scale,
                         const std::string& name, const std::string& path) {
  const std::string where = std::string("\"") + key + "\"";
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_object()) fail(name, path, where + " is missing");
  const json& x = it->value("x", json());
  const json& y = it->value("y", json());
  if (!x.is_array() || !y.is_array() || x.empty() || x.size() != y.size())
    fail(name, path, where + " needs \"x\" and \"y\" arrays of the same, non-zero length");
  const int64_t n = static_cast<int64_t>(y.size());
  std::vector<float> pixels;
  pixels.reserve(static_cast<size_t>(n) * features);
  std::vector<int64_t> labels;
  labels.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const json& row = x[i];
    if (!row.is_array() || static_cast<int>(row.size()) != features)
      fail(name, path, where + ".x[" + std::to_string(i) + "] must hold " + std::to_string(features) + " values");
    for (const json& v : row) {
      if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > scale)
        fail(name, path, where + ".x[" + std::to_string(i) + "] has a value outside [0, " + std::to_string(scale) + "]");
      pixels.push_back(static_cast<float>(v.get<double>() / scale));
    }
    if (!y[i].is_number_integer() || y[i].get<int64_t>() < 0 || y[i].get<int64_t>() >= classes)
      fail(name, path, where + ".y[" + std::to_string(i) + "] is not a class in [0, " + std::to_string(classes) + ")");
    labels.push_back(y[i].get<int64_t>());
  }
  LabelledSplit out;
  out.x = at::tensor(pixels, at::kFloat).reshape({n, features});
  out.y = at::tensor(labels, at::kLong);
  return out;
}

// "image": [height, width] of the features laid out row by row.
std::vector<int64_t> read_image(const json& doc, int features, const std::string& name, const std::string& path) {
  const auto it = doc.find("image");
  const bool pair = it != doc.end() && it->is_array() && it->size() == 2 && (*it)[0].is_number_integer() &&
                    (*it)[1].is_number_integer() && (*it)[0].get<int64_t>() > 0 && (*it)[1].get<int64_t>() > 0;
  if (!pair || (*it)[0].get<int64_t>() * (*it)[1].get<int64_t>() != features)
    fail(name, path, "\"image\" must be [height, width] with height x width = features (" + std::to_string(features) + ")");
  return {(*it)[0].get<int64_t>(), (*it)[1].get<int64_t>()};
}

}  // namespace

std::string dataset_path(const std::string& name) {
  std::string dir = env_or_empty("AMPBENCH_DATA_DIR");
  if (dir.empty() && !env_or_empty("AMPBENCH_HOME").empty()) dir = env_or_empty("AMPBENCH_HOME") + "/data";
  if (dir.empty()) dir = env_or_empty("HOME") + "/.cache/ampbench/data";
  return dir + "/" + name + ".json";
}

std::string dataset_command(const std::string& name, const std::string& path) {
  return "python -m reference.python.datasets " + name + " " + path + " (in the ampbench checkout, with its venv)";
}

Dataset read_dataset_file(const std::string& name, const std::string& path) {
  if (!std::filesystem::exists(path)) fail(name, path, "the file does not exist");
  json doc;
  try {
    doc = io::read_json_file(path);
  } catch (const io::JsonFileError& e) {
    fail(name, path, e.problem());
  }
  if (!doc.is_object() || doc.value("format", "") != "ampbench.dataset" || doc.value("version", 0) != kFormatVersion)
    fail(name, path, "not an ampbench.dataset file of version " + std::to_string(kFormatVersion));
  if (doc.value("name", "") != name) fail(name, path, "it holds dataset '" + doc.value("name", "") + "'");
  Dataset d;
  d.name = name;
  d.path = path;
  d.source = doc.value("source", "");
  d.sha256 = doc.value("sha256", "");
  if (d.sha256.size() != 64) fail(name, path, "\"sha256\" must be 64 hex digits");
  d.features = positive_int(doc, "features", name, path);
  d.classes = positive_int(doc, "classes", name, path);
  d.image = read_image(doc, d.features, name, path);
  const double scale = positive_int(doc, "pixel_scale", name, path);
  if (doc.contains("split") && doc["split"].is_object()) d.split_seed = doc["split"].value("seed", 0);
  d.train = read_split(doc, "train", d.features, d.classes, scale, name, path);
  d.validation = read_split(doc, "validation", d.features, d.classes, scale, name, path);
  return d;
}

}  // namespace ampbench
