// A Redis reply as plain data (RESP2: status, error, integer, bulk string,
// nil, array). The virtual Redis produces these directly; the real backend
// converts each hiredis redisReply exactly once, at the socket, so that no C
// ownership reaches lock code.
#ifndef LOCKSIM_SIM_CORE_REPLY_H_
#define LOCKSIM_SIM_CORE_REPLY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace locksim {

// A command as Redis receives it: argv[0] is the command name.
using Command = std::vector<std::string>;
// A command built once and sent again and again, never changed (a retry
// loop's SET NX): Env::Call sends it without a copy.
using SharedCommand = std::shared_ptr<const Command>;
inline SharedCommand Share(Command cmd) { return std::make_shared<const Command>(std::move(cmd)); }

struct Reply;

// An array reply's elements (none for the other types), as a std::vector
// reads them: size, [], at, iteration, push_back. They are on the heap only
// when there are any. A std::vector<Reply> member made every Reply's
// destruction and move-assignment an out-of-line call (the vector's
// destructor is recursive, so never inlined): eleven a command, 3% of a
// virtual run (callgrind); most replies are not arrays.
class ReplyElements {
 public:
  ReplyElements() = default;
  ReplyElements(std::vector<Reply> elements);  // NOLINT: implicit, as a vector converts
  ReplyElements(const ReplyElements& other);
  ReplyElements(ReplyElements&& other) noexcept : v_(other.v_) { other.v_ = nullptr; }
  ReplyElements& operator=(const ReplyElements& other);
  ReplyElements& operator=(ReplyElements&& other) noexcept {
    std::swap(v_, other.v_);  // the old elements go with `other`
    return *this;
  }
  ~ReplyElements() {
    if (v_ != nullptr) Free();
  }

  size_t size() const;
  bool empty() const { return size() == 0; }
  const Reply& operator[](size_t i) const;
  Reply& operator[](size_t i);
  const Reply& at(size_t i) const;
  const Reply* begin() const;
  const Reply* end() const;
  Reply* begin();
  Reply* end();
  void push_back(Reply r);

  bool operator==(const ReplyElements& other) const;

 private:
  void Free();
  std::vector<Reply>* v_ = nullptr;  // owned; null: no elements
};

struct Reply {
  enum class Type { kStatus, kError, kInteger, kString, kNil, kArray };

  Type type = Type::kNil;
  int64_t integer = 0;
  std::string str;  // status text, error text (with its code) or bulk bytes
  ReplyElements elements;

  static Reply Status(std::string s) { return {Type::kStatus, 0, std::move(s), {}}; }
  static Reply Ok() { return Status("OK"); }
  static Reply Error(std::string s) { return {Type::kError, 0, std::move(s), {}}; }
  static Reply Integer(int64_t v) { return {Type::kInteger, v, {}, {}}; }
  static Reply String(std::string s) { return {Type::kString, 0, std::move(s), {}}; }
  static Reply Nil() { return {}; }
  static Reply Array(std::vector<Reply> e) { return {Type::kArray, 0, {}, std::move(e)}; }

  bool IsOk() const { return type == Type::kStatus && str == "OK"; }
  bool IsError() const { return type == Type::kError; }
  bool IsNil() const { return type == Type::kNil; }
  bool IsInteger(int64_t v) const { return type == Type::kInteger && integer == v; }

  bool operator==(const Reply&) const = default;

  // As redis-cli prints it, on one line: OK, (nil), (integer) 1, "abc",
  // (error) ERR ..., [1) ..., 2) ...].
  std::string ToString() const;
};

inline size_t ReplyElements::size() const { return v_ == nullptr ? 0 : v_->size(); }
inline const Reply& ReplyElements::operator[](size_t i) const { return (*v_)[i]; }
inline Reply& ReplyElements::operator[](size_t i) { return (*v_)[i]; }
inline const Reply* ReplyElements::begin() const { return v_ == nullptr ? nullptr : v_->data(); }
inline const Reply* ReplyElements::end() const { return begin() + size(); }
inline Reply* ReplyElements::begin() { return v_ == nullptr ? nullptr : v_->data(); }
inline Reply* ReplyElements::end() { return begin() + size(); }

// Quotes a command for display: SET lock:x "a b" NX PX 100.
std::string FormatCommand(const Command& cmd);
// Appends one argument as FormatCommand shows it (quoted and escaped when
// it is empty or has spaces, quotes or bytes outside printable ASCII).
void AppendCommandArg(std::string_view arg, std::string* out);

// Whether `name` names the command `expected`, as Redis looks commands up:
// ASCII case-insensitively ("exec" is EXEC). Every comparison of command
// names goes through here.
bool CommandNameIs(std::string_view name, std::string_view expected);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_REPLY_H_
