#include "sim/core/reply.h"

#include <stdexcept>

namespace locksim {

ReplyElements::ReplyElements(std::vector<Reply> elements) {
  if (!elements.empty()) v_ = new std::vector<Reply>(std::move(elements));
}

ReplyElements::ReplyElements(const ReplyElements& other) {
  if (other.v_ != nullptr) v_ = new std::vector<Reply>(*other.v_);
}

ReplyElements& ReplyElements::operator=(const ReplyElements& other) {
  if (this != &other) *this = ReplyElements(other);
  return *this;
}

void ReplyElements::Free() {
  delete v_;
  v_ = nullptr;
}

const Reply& ReplyElements::at(size_t i) const {
  if (i >= size()) throw std::out_of_range("reply element " + std::to_string(i));
  return (*v_)[i];
}

void ReplyElements::push_back(Reply r) {
  if (v_ == nullptr) v_ = new std::vector<Reply>();
  v_->push_back(std::move(r));
}

bool ReplyElements::operator==(const ReplyElements& other) const {
  if (size() != other.size()) return false;
  for (size_t i = 0; i < size(); ++i) {
    if (!((*v_)[i] == (*other.v_)[i])) return false;
  }
  return true;
}
namespace {

// Appends s, quoted and escaped, to *out. Runs of plain characters are
// appended at once: the history formats every command a run sends.
void AppendQuoted(std::string_view s, std::string* out) {
  out->push_back('"');
  size_t plain = 0;  // start of the current run of plain characters
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') continue;
    out->append(s.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default: {
        static const char kHex[] = "0123456789abcdef";
        const char hex[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
        out->append(hex, 4);
      }
    }
  }
  out->append(s.data() + plain, s.size() - plain);
  out->push_back('"');
}

std::string Quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendQuoted(s, &out);
  return out;
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

void AppendCommandArg(std::string_view arg, std::string* out) {
  if (NeedsQuotes(arg)) {
    AppendQuoted(arg, out);
  } else {
    out->append(arg);
  }
}

std::string FormatCommand(const Command& cmd) {
  size_t size = 0;
  for (const std::string& arg : cmd) size += arg.size() + 3;
  std::string out;
  out.reserve(size);
  for (size_t i = 0; i < cmd.size(); ++i) {
    if (i) out += ' ';
    AppendCommandArg(cmd[i], &out);
  }
  return out;
}

bool CommandNameIs(std::string_view name, std::string_view expected) {
  if (name.size() != expected.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const auto upper = [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; };
    if (upper(name[i]) != upper(expected[i])) return false;
  }
  return true;
}

}  // namespace locksim
