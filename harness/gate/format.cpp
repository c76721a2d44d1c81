#include "gate/format.h"

#include <cmath>
#include <cstdio>

namespace ampbench::gate {

std::string fmt_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string fmt_percent(std::optional<double> rel) {
  if (!rel) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.2f%%", *rel * 100.0);
  return buf;
}

std::string fmt_p(std::optional<double> p) {
  if (!p) return "";
  char buf[64];
  if (*p != 0.0 && *p < 1e-4) {
    std::snprintf(buf, sizeof buf, "%.1e", *p);
  } else {
    std::snprintf(buf, sizeof buf, "%.4f", *p);
  }
  return buf;
}

std::string fmt_time_ns(double ns) {
  const double a = std::fabs(ns);
  char buf[64];
  if (a >= 1e9) std::snprintf(buf, sizeof buf, "%.4g s", ns / 1e9);
  else if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.4g ms", ns / 1e6);
  else if (a >= 1e3) std::snprintf(buf, sizeof buf, "%.4g us", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%.4g ns", ns);
  return buf;
}

}  // namespace ampbench::gate
