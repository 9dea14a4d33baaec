#include "sim/core/time.h"

#include <gtest/gtest.h>

namespace locksim {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

Nanos Parse(const std::string& s) {
  std::string error;
  auto d = ParseDuration(s, &error);
  EXPECT_TRUE(d.has_value()) << s << ": " << error;
  return d.value_or(Nanos(-1));
}

TEST(TimeTest, ParsesEveryUnitExactly) {
  EXPECT_EQ(Parse("20ns"), Nanos(20));
  EXPECT_EQ(Parse("100us"), Nanos(100000));
  EXPECT_EQ(Parse("250ms"), milliseconds(250));
  EXPECT_EQ(Parse("1.5s"), milliseconds(1500));
  EXPECT_EQ(Parse("3m"), minutes(3));
  EXPECT_EQ(Parse("1m30s"), seconds(90));
  EXPECT_EQ(Parse("1h2m3.5s"), seconds(3723) + milliseconds(500));
}

TEST(TimeTest, RejectsNegativeAndMalformedDurations) {
  std::string error;
  EXPECT_FALSE(ParseDuration("-5s", &error));
  EXPECT_NE(error.find("negative"), std::string::npos);
  EXPECT_FALSE(ParseDuration("5", &error));
  EXPECT_FALSE(ParseDuration("s", &error));
  EXPECT_FALSE(ParseDuration("1.s", &error));
  EXPECT_FALSE(ParseDuration("0.5ns", &error));
  EXPECT_FALSE(ParseDuration("1e3ms", &error));
  EXPECT_FALSE(ParseDuration("", &error));
  EXPECT_FALSE(ParseDuration("1m30", &error));
  EXPECT_FALSE(ParseDuration("1m-30s", &error));
  EXPECT_FALSE(ParseDuration("700000000000000000000000000000h", &error));
  EXPECT_FALSE(ParseDuration("3000000h", &error));  // beyond what time can hold
}

TEST(TimeTest, FormatsShortAndExact) {
  EXPECT_EQ(FormatDuration(Nanos(0)), "0ns");
  EXPECT_EQ(FormatDuration(milliseconds(250)), "250ms");
  EXPECT_EQ(FormatDuration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatDuration(minutes(4) + Nanos(200000)), "4m00.0002s");
  EXPECT_EQ(FormatDuration(Nanos(1500)), "1.5us");
}

TEST(TimeTest, TimeScaleIsAnExactRatio) {
  std::string error;
  auto s = ParseTimeScale("1/500", &error);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->Apply(minutes(3)), milliseconds(360));
  auto d = ParseTimeScale("0.01", &error);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->ToString(), "1/100");
  EXPECT_FALSE(ParseTimeScale("0", &error));
  EXPECT_FALSE(ParseTimeScale("-1", &error));
  EXPECT_FALSE(ParseTimeScale("1/0", &error));
}

}  // namespace
}  // namespace locksim
