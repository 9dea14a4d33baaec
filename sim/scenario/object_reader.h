// The field readers the scenario parser and the fault parser share: an
// ObjectReader walks one JSON object, reads typed fields with messages that
// name the file and the JSON path ("f.json: $.clients[1].hold: ..."), and
// refuses a field it was not told of (a misspelling is an error, not a
// silent default). Internal to sim/scenario/.
#ifndef LOCKSIM_SIM_SCENARIO_OBJECT_READER_H_
#define LOCKSIM_SIM_SCENARIO_OBJECT_READER_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/core/time.h"

namespace locksim {

// The scenario's JSON as it was written: a reader looks fields up by name,
// and an ordered object is what explore builds its documents as, so they
// are read without a copy. An error names the first bad field in the
// document's order.
using json = nlohmann::ordered_json;

// "a string", "an array", ...: for messages.
std::string TypeName(const json& j);

// Walks one JSON object, remembering which fields it read, so that an
// unknown (misspelt) field is an error rather than silently ignored.
class ObjectReader {
 public:
  // `fields`: the names the object may have (read here, not kept).
  ObjectReader(const json& j, std::string path, const std::string& file,
               std::initializer_list<std::string_view> fields)
      : j_(j), path_(std::move(path)), file_(file) {
    if (!j_.is_object()) Fail(path_, "expected an object, got " + TypeName(j_));
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (std::find(fields.begin(), fields.end(), it.key()) == fields.end()) {
        std::string known;
        for (std::string_view f : fields) (known += known.empty() ? "" : ", ") += f;
        Fail(Path(it.key()), "unknown field (expected one of: " + known + ")");
      }
    }
  }

  bool Has(std::string_view key) const { return j_.contains(key); }
  const json& Get(std::string_view key) const { return j_.at(key); }
  std::string Path(std::string_view key) const { return (path_ + ".").append(key); }

  [[noreturn]] void Fail(const std::string& path, const std::string& what) const {
    throw InputError(file_ + ": " + path + ": " + what);
  }

  const json* Find(std::string_view key, bool required) const {
    const auto it = j_.find(key);
    if (it == j_.end()) {
      if (required) Fail(Path(key), "required field is missing");
      return nullptr;
    }
    return &*it;
  }

  void String(std::string_view key, std::string* out, bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_string()) Fail(Path(key), "expected a string, got " + TypeName(*v));
      *out = v->get_ref<const std::string&>();
    }
  }

  void Duration(std::string_view key, Nanos* out, bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_string()) {
        Fail(Path(key), "expected a duration string such as \"250ms\", got " +
                            TypeName(*v));
      }
      std::string error;
      auto d = ParseDuration(v->get_ref<const std::string&>(), &error);
      if (!d) Fail(Path(key), error);
      *out = *d;
    }
  }

  void Bool(std::string_view key, bool* out, bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_boolean()) Fail(Path(key), "expected true or false, got " + TypeName(*v));
      *out = v->get<bool>();
    }
  }

  void Integer(std::string_view key, int64_t* out, int64_t min, int64_t max,
               bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_number_integer()) {
        Fail(Path(key), "expected an integer, got " + TypeName(*v));
      }
      if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(max)) {
        Fail(Path(key), "must be at most " + std::to_string(max));
      }
      int64_t x = v->get<int64_t>();
      if (x < min || x > max) {
        Fail(Path(key), "must be between " + std::to_string(min) + " and " +
                            std::to_string(max) + ", got " + std::to_string(x));
      }
      *out = x;
    }
  }

  void Array(std::string_view key,
             const std::function<void(const json&, const std::string&)>& each,
             bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_array()) Fail(Path(key), "expected an array, got " + TypeName(*v));
      const std::string path = Path(key);
      for (size_t i = 0; i < v->size(); ++i) {
        each((*v)[i], path + "[" + std::to_string(i) + "]");
      }
    }
  }

 private:
  const json& j_;
  std::string path_;
  const std::string& file_;
};

// "+2s", "-500ms" or "2s" at `key`: a duration with an optional sign.
Nanos SignedDuration(const ObjectReader& r, std::string_view key);

}  // namespace locksim

#endif  // LOCKSIM_SIM_SCENARIO_OBJECT_READER_H_
