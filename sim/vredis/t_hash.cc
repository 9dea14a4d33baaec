// Hash commands, as redis t_hash.c (7.0). A hash is modelled as Redis
// stores a small one (a listpack, hash-max-listpack-entries 128 and -value
// 64): fields in insertion order, an update keeps a field's place and a
// deleted field that comes back goes to the end. HGETALL lists them in that
// order. (Past those limits Redis converts to a hash table whose order is
// its dict's; locksim's locks never get there.)
#include <algorithm>

#include "sim/vredis/server.h"

namespace locksim {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

Fields::iterator FindField(Fields& fields, const std::string& field) {
  return std::find_if(fields.begin(), fields.end(),
                      [&](const auto& fv) { return fv.first == field; });
}

// hashTypeSet(): true if the field is new.
bool SetField(Fields& fields, const std::string& field, std::string value) {
  auto it = FindField(fields, field);
  if (it != fields.end()) {
    it->second = std::move(value);
    return false;
  }
  fields.emplace_back(field, std::move(value));
  return true;
}

}  // namespace

// hashTypeLookupWriteOrCreate(): the hash at `key`, created empty if the
// key is missing; nullptr when the key holds another type (WRONGTYPE).
VirtualRedis::Object* VirtualRedis::HashLookupWriteOrCreate(const std::string& key) {
  Object* o = LookupWrite(key);
  if (o != nullptr) return o->type == Object::Type::kHash ? o : nullptr;
  Object fresh;
  fresh.type = Object::Type::kHash;
  return &SetKey(key, std::move(fresh), /*keep_ttl=*/false);
}

// hsetCommand(): the field/value pairs must pair up (an arity error, even
// though the arity itself is -4), then the key must be a hash or missing.
// Replies with the number of new fields; propagated as written.
Reply VirtualRedis::HsetCommand(const Command& argv) {
  if (argv.size() % 2 == 1) return ArityError("hset");
  const std::string& key = argv[1];
  Object* o = HashLookupWriteOrCreate(key);
  if (o == nullptr) return Reply::Error(std::string(kWrongTypeErr));
  int64_t created = 0;
  for (size_t i = 2; i < argv.size(); i += 2) {
    if (SetField(o->hash, argv[i], argv[i + 1])) ++created;
  }
  SignalModifiedKey(key);
  dirty_ += static_cast<int64_t>(argv.size() - 2) / 2;
  return Reply::Integer(created);
}

Reply VirtualRedis::HgetCommand(const Command& argv) {
  Object* o = LookupRead(argv[1]);
  if (o == nullptr) return Reply::Nil();
  if (o->type != Object::Type::kHash) return Reply::Error(std::string(kWrongTypeErr));
  auto it = FindField(o->hash, argv[2]);
  return it == o->hash.end() ? Reply::Nil() : Reply::String(it->second);
}

// hdelCommand(): the key goes with its last field; fields named after that
// are not looked at.
Reply VirtualRedis::HdelCommand(const Command& argv) {
  const std::string& key = argv[1];
  Object* o = LookupWrite(key);
  if (o == nullptr) return Reply::Integer(0);
  if (o->type != Object::Type::kHash) return Reply::Error(std::string(kWrongTypeErr));
  int64_t deleted = 0;
  for (size_t j = 2; j < argv.size(); ++j) {
    auto it = FindField(o->hash, argv[j]);
    if (it == o->hash.end()) continue;
    o->hash.erase(it);
    ++deleted;
    if (o->hash.empty()) {
      RemoveKey(db_.find(key));
      break;
    }
  }
  if (deleted > 0) {
    SignalModifiedKey(key);
    dirty_ += deleted;
  }
  return Reply::Integer(deleted);
}

Reply VirtualRedis::HexistsCommand(const Command& argv) {
  Object* o = LookupRead(argv[1]);
  if (o == nullptr) return Reply::Integer(0);
  if (o->type != Object::Type::kHash) return Reply::Error(std::string(kWrongTypeErr));
  return Reply::Integer(FindField(o->hash, argv[2]) != o->hash.end() ? 1 : 0);
}

// hincrbyCommand(): the increment is checked first, then the key's type
// (creating the hash if missing), then the field's value, which must be a
// strict int64; a missing field counts as 0.
Reply VirtualRedis::HincrbyCommand(const Command& argv) {
  int64_t incr;
  if (!StringToInt64(argv[3], &incr)) return Reply::Error(std::string(kNotIntegerErr));
  const std::string& key = argv[1];
  Object* o = HashLookupWriteOrCreate(key);
  if (o == nullptr) return Reply::Error(std::string(kWrongTypeErr));
  int64_t value = 0;
  auto it = FindField(o->hash, argv[2]);
  if (it != o->hash.end() && !StringToInt64(it->second, &value)) {
    return Reply::Error("ERR hash value is not an integer");
  }
  if ((incr < 0 && value < 0 && incr < INT64_MIN - value) ||
      (incr > 0 && value > 0 && incr > INT64_MAX - value)) {
    return Reply::Error(std::string(kOverflowErr));
  }
  value += incr;
  SetField(o->hash, argv[2], std::to_string(value));
  SignalModifiedKey(key);
  ++dirty_;
  return Reply::Integer(value);
}

// hgetallCommand(): RESP2 flattens the map to field, value, field, ...; a
// missing key is an empty array.
Reply VirtualRedis::HgetallCommand(const Command& argv) {
  Object* o = LookupRead(argv[1]);
  if (o == nullptr) return Reply::Array({});
  if (o->type != Object::Type::kHash) return Reply::Error(std::string(kWrongTypeErr));
  std::vector<Reply> out;
  out.reserve(o->hash.size() * 2);
  for (const auto& [field, value] : o->hash) {
    out.push_back(Reply::String(field));
    out.push_back(Reply::String(value));
  }
  return Reply::Array(std::move(out));
}

Reply VirtualRedis::HlenCommand(const Command& argv) {
  Object* o = LookupRead(argv[1]);
  if (o == nullptr) return Reply::Integer(0);
  if (o->type != Object::Type::kHash) return Reply::Error(std::string(kWrongTypeErr));
  return Reply::Integer(static_cast<int64_t>(o->hash.size()));
}

}  // namespace locksim
