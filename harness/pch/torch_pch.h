// The LibTorch headers ampbench uses, precompiled once (see harness/CMakeLists.txt).
#pragma once
#include <torch/torch.h>
#include <ATen/autocast_mode.h>
#include <ATen/ThreadLocalState.h>
#include <nlohmann/json.hpp>
