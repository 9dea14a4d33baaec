#include "sim/scenario/object_reader.h"

namespace locksim {

std::string TypeName(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "a number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "something else";
  }
}

Nanos SignedDuration(const ObjectReader& r, std::string_view key) {
  const json& v = r.Get(key);
  if (!v.is_string()) {
    r.Fail(r.Path(key), "expected a duration string such as \"-2s\" or \"+500ms\", got " +
                            TypeName(v));
  }
  std::string text = v.get<std::string>();
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text = text.substr(1);
  }
  std::string error;
  auto d = ParseDuration(text, &error);
  if (!d) r.Fail(r.Path(key), error);
  return negative ? -*d : *d;
}


}  // namespace locksim
