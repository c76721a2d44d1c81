// The device a run targets, resolved from --device when the command line is
// read; its name exists only there and where results are printed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ampbench {

enum class DeviceKind { kCpu, kCuda };

inline std::string to_string(DeviceKind d) { return d == DeviceKind::kCuda ? "cuda" : "cpu"; }

// "cpu" | "cuda"; nullopt for anything else.
inline std::optional<DeviceKind> parse_device_kind(std::string_view name) {
  if (name == "cpu") return DeviceKind::kCpu;
  if (name == "cuda") return DeviceKind::kCuda;
  return std::nullopt;
}

}  // namespace ampbench
