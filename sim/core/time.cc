#include "sim/core/time.h"

#include <numeric>

namespace locksim {
namespace {

// Parses a non-negative decimal "123" or "123.456" into an exact fraction
// mantissa / 10^digits. Rejects signs, exponents and empty parts.
bool ParseDecimal(std::string_view s, __int128* mantissa, int* frac_digits) {
  if (s.empty()) return false;
  __int128 m = 0;
  int digits = 0;
  bool seen_point = false, seen_digit = false;
  for (char c : s) {
    if (c == '.') {
      if (seen_point || !seen_digit) return false;
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') return false;
    seen_digit = true;
    m = m * 10 + (c - '0');
    if (seen_point) ++digits;
    if (m > (static_cast<__int128>(1) << 80)) return false;  // absurdly large
  }
  if (seen_point && digits == 0) return false;
  *mantissa = m;
  *frac_digits = digits;
  return true;
}

}  // namespace

std::optional<Nanos> ParseDuration(std::string_view text, std::string* error) {
  struct Unit {
    std::string_view suffix;
    int64_t nanos;
  };
  // Longest suffixes first so that "ms" is not read as "m" + "s".
  static constexpr Unit kUnits[] = {{"ns", 1},
                                    {"us", 1000},
                                    {"ms", 1000000},
                                    {"h", 3600000000000},
                                    {"m", 60000000000},
                                    {"s", 1000000000}};
  auto quoted = [&] { return "\"" + std::string(text) + "\""; };  // for a message only
  if (!text.empty() && text[0] == '-') {
    *error = "negative duration " + quoted();
    return std::nullopt;
  }
  auto malformed = [&]() -> std::optional<Nanos> {
    *error = "expected a duration such as \"250ms\", \"1.5s\" or \"1m30s\" "
             "(units ns, us, ms, s, m, h), got " + quoted();
    return std::nullopt;
  };
  if (text.empty()) return malformed();
  // A sequence of <decimal><unit> parts, as Go's time.ParseDuration: "1m30s".
  __int128 total = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t digits_end = 0;
    while (digits_end < rest.size() &&
           ((rest[digits_end] >= '0' && rest[digits_end] <= '9') || rest[digits_end] == '.')) {
      ++digits_end;
    }
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (rest.substr(digits_end, u.suffix.size()) == u.suffix) {
        unit = &u;
        break;
      }
    }
    __int128 mantissa;
    int digits;
    if (unit == nullptr || !ParseDecimal(rest.substr(0, digits_end), &mantissa, &digits)) {
      return malformed();
    }
    // mantissa < 2^80 and nanos < 2^42: the product fits in 127 bits.
    __int128 part = mantissa * unit->nanos;
    __int128 pow10 = 1;
    for (int i = 0; i < digits; ++i) pow10 *= 10;
    if (part % pow10 != 0) {
      *error = "duration " + quoted() + " is not a whole number of nanoseconds";
      return std::nullopt;
    }
    total += part / pow10;
    if (total > INT64_MAX / 4) {
      *error = "duration " + quoted() + " is too large";
      return std::nullopt;
    }
    rest.remove_prefix(digits_end + unit->suffix.size());
  }
  return Nanos(static_cast<int64_t>(total));
}

std::string FormatDuration(Nanos d) {
  // Built with to_string, not snprintf: explore's shrinking formats every
  // candidate's durations, and snprintf was 1% of it (callgrind).
  int64_t ns = d.count();
  std::string out;
  if (ns < 0) {
    out = "-";
    ns = -ns;
  }
  // value has `width` decimal digits of fraction; trailing zeros stripped.
  auto frac = [&out](int64_t value, size_t width) {
    if (value == 0) return;
    std::string s = std::to_string(value);
    s.insert(0, width - s.size(), '0');
    while (s.back() == '0') s.pop_back();
    (out += '.') += s;
  };
  auto whole = [&](int64_t unit, size_t width, const char* suffix) {
    out += std::to_string(ns / unit);
    frac(ns % unit, width);
    out += suffix;
  };
  if (ns < 1000) {
    out += std::to_string(ns);
    out += "ns";
  } else if (ns < 1000000) {
    whole(1000, 3, "us");
  } else if (ns < 1000000000) {
    whole(1000000, 6, "ms");
  } else if (ns < 60000000000) {
    whole(1000000000, 9, "s");
  } else {
    out += std::to_string(ns / 60000000000);
    out += 'm';
    const int64_t seconds = ns % 60000000000 / 1000000000;
    if (seconds < 10) out += '0';
    out += std::to_string(seconds);
    frac(ns % 1000000000, 9);
    out += 's';
  }
  return out;
}

std::string TimeScale::ToString() const {
  if (den == 1) return std::to_string(num);
  return std::to_string(num) + "/" + std::to_string(den);
}

std::optional<TimeScale> ParseTimeScale(std::string_view text,
                                        std::string* error) {
  auto fail = [&]() -> std::optional<TimeScale> {
    *error = "expected a positive time scale such as \"1/500\" or \"0.01\", "
             "got \"" +
             std::string(text) + "\"";
    return std::nullopt;
  };
  TimeScale scale;
  size_t slash = text.find('/');
  __int128 num, den = 1;
  int digits;
  if (slash != std::string_view::npos) {
    int d2;
    if (!ParseDecimal(text.substr(0, slash), &num, &digits) || digits != 0 ||
        !ParseDecimal(text.substr(slash + 1), &den, &d2) || d2 != 0) {
      return fail();
    }
  } else {
    if (!ParseDecimal(text, &num, &digits)) return fail();
    for (int i = 0; i < digits; ++i) den *= 10;
  }
  if (num <= 0 || den <= 0 || num > INT32_MAX || den > INT32_MAX) return fail();
  int64_t g = std::gcd(static_cast<int64_t>(num), static_cast<int64_t>(den));
  scale.num = static_cast<int64_t>(num) / g;
  scale.den = static_cast<int64_t>(den) / g;
  return scale;
}

}  // namespace locksim
