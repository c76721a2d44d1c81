// What the two image families (resnet, vit) share: torchvision's models take
// RGB images, so one sample is [3, image, image] (the convergence suite's
// grey digits are fed as three equal channels).
#pragma once

#include <cstdint>

namespace ampbench {

inline constexpr int64_t kImageChannels = 3;

}  // namespace ampbench
