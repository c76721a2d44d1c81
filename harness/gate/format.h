// Number formatting shared by the comparison and the report writers.
#pragma once

#include <optional>
#include <string>

namespace ampbench::gate {

std::string fmt_number(double v);                   // 6 significant digits: "1234.57", "1.5e+07"
std::string fmt_percent(std::optional<double> rel);  // "+3.21%", "-10.00%", "" when empty
std::string fmt_p(std::optional<double> p);          // "0.0123", "1.2e-05", "" when empty
// A time in nanoseconds with a readable unit: "850 ns", "12.3 us", "4.56 ms", "1.2 s".
std::string fmt_time_ns(double ns);

}  // namespace ampbench::gate
