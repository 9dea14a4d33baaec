#include "lockimpls/adapter_manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/core/resources.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A lease and a wait as set-nx-px's, for an adapter that gives none.
LockConfig AdapterDefaults() {
  LockConfig c;
  c.ttl = std::chrono::seconds(10);
  c.retry_delay = std::chrono::milliseconds(100);
  c.acquire_timeout = std::chrono::seconds(10);
  return c;
}

// Points `v.info` at v's own strings.
void Link(AdapterVariant& v) {
  v.info.id = v.id;
  v.info.summary = v.summary;
  v.info.source = v.source;
  v.info.bug = v.bug;
  v.info.make = nullptr;
  v.info.adapter = &v.program;
}

class Reader {
 public:
  Reader(std::string file, const json& j) : file_(std::move(file)), j_(j) {}

  [[noreturn]] void Fail(const std::string& at, const std::string& why) const {
    throw InputError(file_ + ": " + at + ": " + why);
  }
  // A required (or, with `optional`, possibly absent) non-empty string.
  std::string String(const std::string& field, bool optional = false) const {
    if (!j_.contains(field)) {
      if (optional) return "";
      Fail("$", "missing \"" + field + "\" (see docs/adapters.md, Manifests)");
    }
    const json& v = j_[field];
    if (!v.is_string() || v.get<std::string>().empty()) {
      Fail("$." + field, "must be a non-empty string, not " + v.dump());
    }
    return v.get<std::string>();
  }
  bool Bool(const std::string& field) const {
    if (!j_.contains(field)) return false;
    if (!j_[field].is_boolean()) Fail("$." + field, "must be true or false");
    return j_[field].get<bool>();
  }
  Nanos Duration(const json& obj, const std::string& at, const std::string& field,
                 Nanos fallback) const {
    if (!obj.contains(field)) return fallback;
    const json& v = obj[field];
    std::string error;
    std::optional<Nanos> d;
    if (v.is_string()) d = ParseDuration(v.get<std::string>(), &error);
    if (!d || *d <= Nanos{0}) {
      Fail(at + "." + field, "must be a positive duration such as \"10s\" or \"100ms\", not " +
                                 v.dump() + (error.empty() ? "" : " (" + error + ")"));
    }
    return *d;
  }

 private:
  std::string file_;
  const json& j_;
};

constexpr const char* kFields[] = {"id",   "library",   "version",    "summary", "source",
                                   "bug",  "run",       "install",    "node_modules",
                                   "key_prefix", "defaults"};

}  // namespace

std::unique_ptr<AdapterVariant> LoadAdapterManifest(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read the adapter manifest");
  std::stringstream text;
  text << in.rdbuf();
  const json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw InputError(path + ": not JSON (an adapter manifest)");
  Reader r(path, j);
  if (!j.is_object()) r.Fail("$", "must be an object");
  for (const auto& [field, value] : j.items()) {
    (void)value;
    if (std::find(std::begin(kFields), std::end(kFields), field) == std::end(kFields)) {
      r.Fail("$." + field, "unknown field (known: id, library, version, summary, source, bug, "
                           "run, install, node_modules, key_prefix, defaults)");
    }
  }
  auto v = std::make_unique<AdapterVariant>();
  v->id = r.String("id");
  if (v->id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") != std::string::npos) {
    r.Fail("$.id", "\"" + v->id + "\": use lower-case letters, digits, '-', '_' and '.'");
  }
  AdapterProgram& p = v->program;
  p.manifest = fs::absolute(path).lexically_normal().string();
  p.library = r.String("library");
  p.version = r.String("version", /*optional=*/true);
  v->summary = r.String("summary");
  v->source = r.String("source");
  v->bug = r.String("bug", /*optional=*/true);
  p.install = r.String("install");
  p.node_modules = r.Bool("node_modules");
  p.key_prefix = j.contains("key_prefix") ? r.String("key_prefix") : "";
  // run: argv; "./x" is a file beside the manifest (the adapter itself),
  // argv[0] otherwise an absolute path (no PATH lookup: a pyenv python on
  // PATH is not Debian's).
  if (!j.contains("run") || !j["run"].is_array() || j["run"].empty()) {
    r.Fail("$.run", "must be a non-empty array of strings: the command that starts the adapter");
  }
  const fs::path dir = fs::absolute(fs::path(path)).parent_path();
  for (size_t i = 0; i < j["run"].size(); ++i) {
    const json& a = j["run"][i];
    const std::string at = "$.run[" + std::to_string(i) + "]";
    if (!a.is_string() || a.get<std::string>().empty()) r.Fail(at, "must be a non-empty string");
    std::string arg = a.get<std::string>();
    if (arg.rfind("./", 0) == 0) {
      arg = (dir / arg.substr(2)).lexically_normal().string();
      if (p.script.empty()) p.script = arg;
    } else if (i == 0 && arg.front() != '/') {
      r.Fail(at, "\"" + arg + "\": the program must be an absolute path (\"/usr/bin/node\") or "
                 "a file beside the manifest (\"./adapter.sh\")");
    }
    p.argv.push_back(arg);
  }
  v->info.defaults = AdapterDefaults();
  if (j.contains("defaults")) {
    const json& d = j["defaults"];
    if (!d.is_object()) r.Fail("$.defaults", "must be an object (ttl, retry_delay, acquire_timeout)");
    for (const auto& [field, value] : d.items()) {
      (void)value;
      if (field != "ttl" && field != "retry_delay" && field != "acquire_timeout") {
        r.Fail("$.defaults." + field, "unknown field (known: ttl, retry_delay, acquire_timeout)");
      }
    }
    LockConfig& c = v->info.defaults;
    c.ttl = r.Duration(d, "$.defaults", "ttl", c.ttl);
    c.retry_delay = r.Duration(d, "$.defaults", "retry_delay", c.retry_delay);
    c.acquire_timeout = r.Duration(d, "$.defaults", "acquire_timeout", c.acquire_timeout);
  }
  Link(*v);
  return v;
}

std::unique_ptr<AdapterVariant> AdHocAdapter(const std::string& program) {
  std::error_code ec;
  if (!fs::is_regular_file(program, ec)) {
    throw InputError("--adapter: " + program + ": no such file");
  }
  auto v = std::make_unique<AdapterVariant>();
  const fs::path abs = fs::absolute(program).lexically_normal();
  v->id = abs.stem().string();
  v->summary = "an adapter given on the command line: " + abs.string();
  v->source = abs.string();
  AdapterProgram& p = v->program;
  p.library = v->id;
  p.argv = {abs.string()};
  p.script = abs.string();
  p.install = "see " + abs.string();
  v->info.defaults = AdapterDefaults();
  Link(*v);
  return v;
}

std::unique_ptr<AdapterVariant> AdapterFromPath(const std::string& path) {
  std::unique_ptr<AdapterVariant> v;
  if (fs::path(path).extension() == ".json") {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) throw InputError("--adapter: " + path + ": no such file");
    v = LoadAdapterManifest(path);
  } else {
    v = AdHocAdapter(path);
    if (v->id.empty() ||
        v->id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") != std::string::npos) {
      throw InputError("--adapter: " + path + ": its file name \"" + v->id +
                       "\" is not a variant id (lower-case letters, digits, '-', '_', '.'): "
                       "rename it, or give it a manifest");
    }
  }
  // Results are labelled with the id: it must not pass for another variant.
  if (const AlgorithmInfo* other = FindAlgorithm(v->id);
      other != nullptr && !(other->adapter != nullptr && other->adapter->manifest ==
                                                             fs::absolute(path).lexically_normal().string())) {
    throw InputError("--adapter: " + path + ": \"" + v->id +
                     "\" is already a variant's id (locksim list): give it another name");
  }
  return v;
}

std::vector<std::unique_ptr<AdapterVariant>> LoadBundledAdapters() {
  std::vector<std::string> files;
  std::error_code ec;
  const std::string root = DataPath("lockimpls");
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 13 && name.ends_with(".adapter.json")) files.push_back(it->path().string());
  }
  if (ec || files.empty()) {
    // A broken install, not the user's input: the bundled libraries would
    // vanish from the catalogue, and every scenario that names one with them.
    throw HarnessError(root + ": no adapter manifests (*.adapter.json) found" +
                       (ec ? " (" + ec.message() + ")" : std::string()) +
                       "; locksim's data folder is incomplete");
  }
  std::vector<std::unique_ptr<AdapterVariant>> out;
  for (const std::string& f : files) out.push_back(LoadAdapterManifest(f));
  // The three that came first keep the order the catalogue has always
  // listed them in (tables and reports follow it); any other after them,
  // by id.
  auto rank = [](const std::string& id) {
    const std::string first[] = {"redis-py", "node-redlock", "redis-semaphore"};
    return static_cast<int>(std::find(std::begin(first), std::end(first), id) - std::begin(first));
  };
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    return std::make_pair(rank(a->id), a->id) < std::make_pair(rank(b->id), b->id);
  });
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i]->id == out[i - 1]->id) {
      throw InputError(out[i]->program.manifest + ": $.id: \"" + out[i]->id + "\" is also " +
                       out[i - 1]->program.manifest + "'s");
    }
  }
  return out;
}

}  // namespace locksim
