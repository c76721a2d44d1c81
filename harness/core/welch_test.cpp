#include "core/welch_test.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/sample_stats.h"

namespace ampbench {

std::vector<double> olympic_trim(std::vector<double> values, int k) {
  if (k < 0 || values.size() < static_cast<size_t>(2 * k + 1)) return {};
  std::sort(values.begin(), values.end());
  return std::vector<double>(values.begin() + k, values.end() - k);
}

namespace {

// The continued fraction of I_x(a, b) by the modified Lentz method
// (Numerical Recipes' betacf); converges fast for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    for (int half = 0; half < 2; ++half) {
      d = 1.0 + aa * d;
      if (std::fabs(d) < kTiny) d = kTiny;
      c = 1.0 + aa / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      d = 1.0 / d;
      const double delta = d * c;
      h *= delta;
      if (half == 1 && std::fabs(delta - 1.0) < kEps) return h;
      aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    }
  }
  return h;  // not converged in 10000 terms: only for extreme a, b, far beyond any sample size here
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
    throw std::invalid_argument("incomplete_beta: needs a, b > 0 and x in [0, 1]");
  if (x == 0 || x == 1) return x;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

double student_t_sf(double t, double df) {
  if (!(df > 0)) throw std::invalid_argument("student_t_sf: degrees of freedom must be positive");
  if (std::isnan(t)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 0.0 : 1.0;
  const double tail = 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + t * t));  // P(T > |t|)
  return t > 0 ? tail : 1.0 - tail;
}

WelchTest welch_greater(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2 || b.size() < 2)
    throw std::invalid_argument("welch_greater: needs two values on each side (got " + std::to_string(a.size()) +
                                " and " + std::to_string(b.size()) + ")");
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  const double va = std::pow(stddev_of(a), 2) / na;
  const double vb = std::pow(stddev_of(b), 2) / nb;
  const double diff = mean_of(a) - mean_of(b);
  WelchTest out;
  if (va + vb == 0) {
    out.t = diff == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), diff);
    out.df = na + nb - 2;
    out.p = diff == 0 ? 0.5 : (diff > 0 ? 0.0 : 1.0);
    return out;
  }
  out.t = diff / std::sqrt(va + vb);
  out.df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
  out.p = student_t_sf(out.t, out.df);
  return out;
}

}  // namespace ampbench
