// The numeric flag readers (integer_range.h, finite_range.h) through CLI11
// itself, as `run --seed`, `--nproc` and `gate --alpha` use them: what CLI11
// would convert on its own (octal, signs, wrap-around, NaN) must be refused
// or arrive as the decimal value the user wrote.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cli/finite_range.h"
#include "cli/integer_range.h"

namespace ampbench::cli {
namespace {

// The value CLI11 stores for `--value=TEXT` with the reader attached as
// cmd_run.cpp and cmd_gate.cpp attach it, or nullopt when the parse is
// refused. IntegerRange rewrites the text, so it must be a transform;
// FiniteRange only judges it.
template <typename T>
std::optional<T> parsed(const std::string& text, const CLI::Validator& check) {
  CLI::App app{"input ranges"};
  T value{};
  CLI::Option* option = app.add_option("--value", value);
  if constexpr (std::is_integral_v<T>)
    option->transform(check);
  else
    option->check(check);
  // With "=", CLI11 hands the validator the text as written, a leading '-'
  // included (a separate "-1" it would take for a short option).
  std::vector<std::string> args = {"--value=" + text};
  try {
    app.parse(args);
  } catch (const CLI::ParseError&) {
    return std::nullopt;
  }
  return value;
}

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(IntegerRange, LeadingZerosAreDecimalNotOctal) {
  const CLI::Validator seed = IntegerRange(0, kMax);
  EXPECT_EQ(parsed<std::uint64_t>("010", seed), 10u);
  EXPECT_EQ(parsed<std::uint64_t>("0009", seed), 9u) << "9 is no octal digit: base 0 would refuse it";
  EXPECT_EQ(parsed<std::uint64_t>("0", seed), 0u);
  EXPECT_EQ(parsed<std::uint64_t>("000", seed), 0u);
  EXPECT_EQ(parsed<int>("08", IntegerRange(1, 1024)), 8);
  EXPECT_EQ(parsed<int>("0100", IntegerRange(1, 1024)), 100);
}

TEST(IntegerRange, SignsAndOtherBasesAreRefused) {
  const CLI::Validator seed = IntegerRange(0, kMax);
  for (const char* text : {"-1", "+1", "-0", "0x10", "0X10", "1e3", "1.0", " 1", "1 ", "", "one", "1_000"})
    EXPECT_FALSE(parsed<std::uint64_t>(text, seed).has_value()) << "'" << text << "'";
}

TEST(IntegerRange, BoundsAreInclusiveAndExact) {
  const CLI::Validator seed = IntegerRange(0, kMax);
  EXPECT_EQ(parsed<std::uint64_t>(std::to_string(kMax), seed), kMax);
  EXPECT_EQ(parsed<std::uint64_t>("0" + std::to_string(kMax), seed), kMax);
  EXPECT_FALSE(parsed<std::uint64_t>("18446744073709551616", seed).has_value()) << "2^64 must not wrap";
  EXPECT_FALSE(parsed<std::uint64_t>("99999999999999999999999", seed).has_value());
  const CLI::Validator nproc = IntegerRange(1, 1024);
  EXPECT_EQ(parsed<int>("1", nproc), 1);
  EXPECT_EQ(parsed<int>("1024", nproc), 1024);
  EXPECT_EQ(parsed<int>("01024", nproc), 1024);
  EXPECT_FALSE(parsed<int>("0", nproc).has_value());
  EXPECT_FALSE(parsed<int>("1025", nproc).has_value());
  EXPECT_FALSE(parsed<int>("4294967297", nproc).has_value()) << "2^32 + 1 must not wrap to 1";
}

TEST(FiniteRange, NonFiniteAndMalformedNumbersAreRefused) {
  const CLI::Validator alpha = FiniteRange(1e-12, 1.0);
  for (const char* text : {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e999", "", " ", "0.05 ", "0.05x",
                           "five", "0.05,0.1"})
    EXPECT_FALSE(parsed<double>(text, alpha).has_value()) << "'" << text << "'";
}

TEST(FiniteRange, BoundsAreInclusiveAndSignsAndZerosReadAsWritten) {
  const CLI::Validator alpha = FiniteRange(1e-12, 1.0);
  EXPECT_EQ(parsed<double>("1", alpha), 1.0);
  EXPECT_EQ(parsed<double>("1e-12", alpha), 1e-12);
  EXPECT_FALSE(parsed<double>("1.0000001", alpha).has_value());
  EXPECT_FALSE(parsed<double>("1e-13", alpha).has_value());
  EXPECT_FALSE(parsed<double>("0", alpha).has_value());
  EXPECT_FALSE(parsed<double>("-0.05", alpha).has_value());
  EXPECT_EQ(parsed<double>("0.05", alpha), 0.05);
  EXPECT_EQ(parsed<double>("+0.05", alpha), 0.05);
  EXPECT_EQ(parsed<double>("010", FiniteRange(0.0, 10.0)), 10.0) << "a float with a leading zero is not octal";
  EXPECT_EQ(parsed<double>(".5", FiniteRange(0.0, 10.0)), 0.5);
  const CLI::Validator effect = FiniteRange(0.0, 1.0);
  EXPECT_EQ(parsed<double>("0", effect), 0.0);
  EXPECT_EQ(parsed<double>("-0", effect), 0.0) << "-0 is 0, inside [0, 1]";
  EXPECT_FALSE(parsed<double>("-1e-300", effect).has_value());
}

}  // namespace
}  // namespace ampbench::cli
