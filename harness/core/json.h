// nlohmann/json, checked against the copy CMake found at configure time
// (cmake/ampbench_json.cmake says why). Include this, or rely on the shared
// precompiled header that includes it, instead of <nlohmann/json.hpp>.
#pragma once

#include <nlohmann/json.hpp>

#if !defined(AMPBENCH_NLOHMANN_JSON_MAJOR) || !defined(AMPBENCH_NLOHMANN_JSON_MINOR) || \
    !defined(AMPBENCH_NLOHMANN_JSON_PATCH)
#error "ampbench: core/json.h included by a target that does not link ampbench_json: link ampbench_json (CMake) so every target compiles against the one nlohmann/json found at configure time"
#endif

#define AMPBENCH_JSON_STR_(x) #x
#define AMPBENCH_JSON_STR(x) AMPBENCH_JSON_STR_(x)

#define AMPBENCH_JSON_SEEN                                                                              \
  AMPBENCH_JSON_STR(NLOHMANN_JSON_VERSION_MAJOR) "." AMPBENCH_JSON_STR(NLOHMANN_JSON_VERSION_MINOR) "." \
  AMPBENCH_JSON_STR(NLOHMANN_JSON_VERSION_PATCH)
#define AMPBENCH_JSON_CONFIGURED                                                                          \
  AMPBENCH_JSON_STR(AMPBENCH_NLOHMANN_JSON_MAJOR) "." AMPBENCH_JSON_STR(AMPBENCH_NLOHMANN_JSON_MINOR) "." \
  AMPBENCH_JSON_STR(AMPBENCH_NLOHMANN_JSON_PATCH)

static_assert(NLOHMANN_JSON_VERSION_MAJOR == AMPBENCH_NLOHMANN_JSON_MAJOR &&
                  NLOHMANN_JSON_VERSION_MINOR == AMPBENCH_NLOHMANN_JSON_MINOR &&
                  NLOHMANN_JSON_VERSION_PATCH == AMPBENCH_NLOHMANN_JSON_PATCH,
              "ampbench: this translation unit reads nlohmann/json " AMPBENCH_JSON_SEEN
              " but CMake configured " AMPBENCH_JSON_CONFIGURED
              ": another json.hpp is earlier on the include path (a system copy?); two versions in one "
              "binary do not link (their ABI namespaces json_abi_vX_Y_Z differ)");

#undef AMPBENCH_JSON_CONFIGURED
#undef AMPBENCH_JSON_SEEN
#undef AMPBENCH_JSON_STR
#undef AMPBENCH_JSON_STR_
