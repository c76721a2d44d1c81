#include "spec/model_family.h"

namespace ampbench {

// Each defined beside its module (models/mlp.cpp, ...).
const ModelFamily& mlp_family();
const ModelFamily& cnn_family();
const ModelFamily& transformer_family();
const ModelFamily& decoder_family();
const ModelFamily& gpt2_family();
const ModelFamily& bert_family();
const ModelFamily& resnet_family();
const ModelFamily& vit_family();
const ModelFamily& linear_stack_family();

const std::vector<const ModelFamily*>& model_families() {
  // The one registration of each family; the descriptors live beside their
  // modules.
  static const std::vector<const ModelFamily*> families = {&mlp_family(), &cnn_family(), &transformer_family(),
                                                           &decoder_family(), &gpt2_family(), &bert_family(),
                                                           &resnet_family(), &vit_family(),
                                                           &linear_stack_family()};
  return families;
}

const ModelFamily* find_model_family(std::string_view name) {
  for (const ModelFamily* f : model_families())
    if (f->name == name) return f;
  return nullptr;
}

std::vector<std::string> model_family_names() {
  std::vector<std::string> names;
  for (const ModelFamily* f : model_families()) names.push_back(f->name);
  return names;
}

}  // namespace ampbench
