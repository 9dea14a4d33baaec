#include "sim/reply.h"

namespace locksim {
namespace {

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          static const char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  for (unsigned char c : s) {
    if (c <= ' ' || c >= 0x7f || c == '"' || c == '\\') return true;
  }
  return false;
}

}  // namespace

std::string Reply::ToString() const {
  switch (type) {
    case Type::kStatus: return str;
    case Type::kError: return "(error) " + str;
    case Type::kInteger: return "(integer) " + std::to_string(integer);
    case Type::kString: return Quote(str);
    case Type::kNil: return "(nil)";
    case Type::kArray: {
      if (elements.empty()) return "(empty array)";
      std::string out = "[";
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i) out += ", ";
        out += std::to_string(i + 1) + ") " + elements[i].ToString();
      }
      return out + "]";
    }
  }
  return "?";
}

std::string FormatCommand(const Command& cmd) {
  std::string out;
  for (size_t i = 0; i < cmd.size(); ++i) {
    if (i) out += ' ';
    out += NeedsQuotes(cmd[i]) ? Quote(cmd[i]) : cmd[i];
  }
  return out;
}

}  // namespace locksim
