#include "sim/serve/request_reader.h"

#include <hiredis/hiredis.h>

#include <optional>

#include "sim/core/errors.h"

namespace locksim {
namespace {

struct ReplyFree {
  void operator()(void* r) const { freeReplyObject(r); }
};

// A request as Redis accepts it over RESP: an array of bulk strings.
// nullopt for anything else (a nested array, an integer, a bare string).
std::optional<Command> ToCommand(const redisReply& r) {
  if (r.type != REDIS_REPLY_ARRAY) return std::nullopt;
  Command argv;
  argv.reserve(r.elements);
  for (size_t i = 0; i < r.elements; ++i) {
    const redisReply* e = r.element[i];
    if (e->type != REDIS_REPLY_STRING) return std::nullopt;
    argv.emplace_back(e->str, e->len);
  }
  return argv;
}

}  // namespace

void RequestReader::Free::operator()(redisReader* r) const { redisReaderFree(r); }

RequestReader::RequestReader() : reader_(redisReaderCreate()) {
  if (reader_ == nullptr) throw HarnessError("redisReaderCreate(): out of memory");
  functions_ = std::make_unique<redisReplyObjectFunctions>(*reader_->fn);
  default_create_array_ = functions_->createArray;
  functions_->createArray = &RequestReader::CreateArray;
  reader_->fn = functions_.get();
  reader_->privdata = this;
}

void* RequestReader::CreateArray(const redisReadTask* task, int elements) {
  auto* self = static_cast<RequestReader*>(task->privdata);
  if (task->parent != nullptr) {  // refused before hiredis allocates it
    self->refused_ =
        "expected an array of bulk strings (locksim serve does not accept inline commands)";
    return nullptr;
  }
  if (elements > kMaxRequestArguments) {
    self->refused_ = "invalid multibulk length (" + std::to_string(elements) +
                     " arguments; locksim serve takes at most " +
                     std::to_string(kMaxRequestArguments) + ")";
    return nullptr;
  }
  return self->default_create_array_(task, elements);
}

RequestReader::~RequestReader() = default;

void RequestReader::Feed(const char* data, size_t n) {
  if (!error_.empty() || n == 0) return;
  if (redisReaderFeed(reader_.get(), data, n) != REDIS_OK) error_ = reader_->errstr;
}

RequestReader::Status RequestReader::Next(Command* argv, std::string* error) {
  while (error_.empty()) {
    void* object = nullptr;
    if (redisReaderGetReply(reader_.get(), &object) != REDIS_OK) {
      error_ = refused_.empty() ? std::string(reader_->errstr) : refused_;
      break;
    }
    if (object == nullptr) {  // an incomplete request: wait for more bytes
      if (reader_->len - reader_->pos > kMaxQueryBytes) {
        error_ = "request larger than " + std::to_string(kMaxQueryBytes >> 20) + " MB";
        break;
      }
      return Status::kNeedMore;
    }
    std::unique_ptr<void, ReplyFree> owner(object);
    const auto* request = static_cast<const redisReply*>(object);
    if (request->type == REDIS_REPLY_NIL) continue;  // "*-1", as hiredis reads it
    std::optional<Command> parsed = ToCommand(*request);
    if (!parsed) {
      error_ =
          "expected an array of bulk strings (locksim serve does not accept inline commands)";
      break;
    }
    if (parsed->empty()) continue;  // "*0"
    *argv = std::move(*parsed);
    return Status::kRequest;
  }
  *error = error_;
  return Status::kError;
}

}  // namespace locksim
