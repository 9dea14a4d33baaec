// Keeps scenarios/schema.json and the parser (sim/scenario/scenario.cc) in step
// without a general JSON Schema validator: the field sets, enums and
// patterns the schema states are compared with what ParseScenario accepts,
// found by probing it and reading its error messages.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lockimpls/lock.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario.h"
#include "sim/core/time.h"

namespace locksim {
namespace {

using json = nlohmann::json;
using Fields = std::set<std::string>;

const std::string kDir = std::string(LOCKSIM_SOURCE_DIR) + "/scenarios";

const json& Schema() {
  static const json schema = [] {
    std::ifstream in(kDir + "/schema.json");
    EXPECT_TRUE(in) << kDir << "/schema.json";
    return json::parse(in);  // throws (and fails the test) if malformed
  }();
  return schema;
}

// Follows "$ref": "#/..." (possibly several) to the schema it names.
const json& Resolve(const json& node) {
  if (node.is_object() && node.contains("$ref")) {
    const std::string ref = node["$ref"];
    EXPECT_TRUE(ref.starts_with("#/")) << ref;
    return Resolve(Schema().at(json::json_pointer(ref.substr(1))));
  }
  return node;
}

Fields Keys(const json& object) {
  Fields out;
  for (const auto& [key, value] : object.items()) out.insert(key);
  return out;
}

Fields SchemaFields(const json& node) { return Keys(Resolve(node).at("properties")); }

Fields Split(const std::string& list) {
  Fields out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(", ", start);
    if (comma == std::string::npos) comma = list.size();
    out.insert(list.substr(start, comma - start));
    start = comma + 2;
  }
  return out;
}

Fields EnumOf(const json& node) {
  Fields out;
  for (const json& v : Resolve(node).at("enum")) out.insert(v.get<std::string>());
  return out;
}

std::string ErrorOf(const json& scenario) {
  try {
    ParseScenario(scenario.dump(), "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The list in "... (<marker>a, b, c)" of the parser's message.
Fields ListInError(const std::string& error, const std::string& marker) {
  const size_t at = error.find(marker);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no \"" << marker << "\" in: " << error;
    return {};
  }
  const size_t start = at + marker.size();
  return Split(error.substr(start, error.rfind(')') - start));
}

// A valid scenario with every object the schema describes.
json Base() {
  return json::parse(R"({
    "duration": "10s",
    "algorithm": "set-nx-px",
    "network": {"latency": {"min": "1ms", "max": "2ms"}, "timeout": "1s"},
    "redis": {"replicas": 1},
    "lock": {"ttl": "1s"},
    "liveness": {"deadlock_after": "5s"},
    "workload": {"type": "counter"},
    "clients": [{"name": "A"}, {"name": "B"}],
    "faults": [{"type": "pause", "process": "A", "duration": "1s",
                "on": {"process": "A", "event": "enter"}}],
    "choices": [{"point": 2, "at": "0s", "message": "A->redis0", "delay": "1s"}],
    "expect": {"set-nx-px": {"verdict": "safe", "lock": {"ttl": "2s"}}}
  })");
}

json WithFault(const json& fault) {
  json s = Base();
  s["faults"] = json::array({fault});
  return s;
}

TEST(SchemaTest, BaseScenarioIsValid) { EXPECT_EQ(ErrorOf(Base()), ""); }

TEST(SchemaTest, EveryObjectListsExactlyTheParsersFields) {
  const json& root = Schema();
  const json& p = root.at("properties");
  struct Case {
    std::string where;  // JSON pointer into Base()
    const json& schema;
  };
  const Case cases[] = {
      {"", root},
      {"/network", p.at("network")},
      {"/network/latency", p.at("network").at("properties").at("latency")},
      {"/redis", p.at("redis")},
      {"/lock", p.at("lock")},
      {"/liveness", p.at("liveness")},
      {"/workload", p.at("workload")},
      {"/clients/0", p.at("clients").at("items")},
      {"/faults/0/on", root.at("$defs").at("trigger")},
      {"/choices/0", root.at("$defs").at("choice")},
      {"/expect/set-nx-px", p.at("expect").at("properties").at("set-nx-px")},
      {"/expect/set-nx-px/lock", root.at("$defs").at("expectation").at("properties").at("lock")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.where.empty() ? "$" : c.where);
    json s = Base();
    s[json::json_pointer(c.where)]["zz_unknown"] = 1;
    const std::string error = ErrorOf(s);
    EXPECT_NE(error.find(".zz_unknown: unknown field"), std::string::npos) << error;
    EXPECT_EQ(SchemaFields(c.schema), ListInError(error, "expected one of: "));
    EXPECT_EQ(Resolve(c.schema).value("additionalProperties", json(true)), json(false));
  }
  // Labels that are not algorithm ids must name their algorithm.
  const json& other = p.at("expect").at("additionalProperties");
  EXPECT_EQ(SchemaFields(other.at("allOf").at(0)), SchemaFields(p.at("expect").at("properties").at("set-nx-px")));
  EXPECT_EQ(other.at("required"), json::array({"algorithm"}));
}

TEST(SchemaTest, EnumsMatchTheParser) {
  const json& root = Schema();
  const json& defs = root.at("$defs");

  Fields ids = Split(AlgorithmIds());
  EXPECT_EQ(EnumOf(defs.at("algorithm")), ids);
  EXPECT_EQ(Keys(root.at("properties").at("expect").at("properties")), ids);

  json s = Base();
  s["faults"][0]["type"] = "zz";
  EXPECT_EQ(EnumOf(defs.at("fault_type")), ListInError(ErrorOf(s), "(known: "));

  s = Base();
  s["faults"][0]["on"]["event"] = "zz";
  EXPECT_EQ(EnumOf(defs.at("trigger").at("properties").at("event")),
            ListInError(ErrorOf(s), "(known: "));

  s = Base();
  s["workload"]["type"] = "zz";
  EXPECT_EQ(EnumOf(root.at("properties").at("workload").at("properties").at("type")),
            ListInError(ErrorOf(s), "(known: "));

  s = Base();
  s["redis"]["persistence"] = "zz";
  const std::string error = ErrorOf(s);
  const size_t start = error.find("one of ") + 7;
  EXPECT_EQ(EnumOf(root.at("properties").at("redis").at("properties").at("persistence")),
            Split(error.substr(start, error.find(", got") - start)));

  for (const std::string verdict : {"safe", "violated", "deadlock", "degraded", "zz"}) {
    s = Base();
    s["expect"]["set-nx-px"]["verdict"] = verdict;
    EXPECT_EQ(ErrorOf(s).empty(),
              EnumOf(defs.at("expectation").at("properties").at("verdict")).contains(verdict))
        << verdict;
  }
}

// The schema's definition of fault type `type` (the `then` of its if/then).
const json& FaultSchema(const std::string& type) {
  for (const json& branch : Schema().at("$defs").at("fault").at("allOf")) {
    if (branch.at("if").at("properties").at("type").at("const") == type) {
      return Resolve(branch.at("then"));
    }
  }
  ADD_FAILURE() << "no schema for fault type " << type;
  return Schema();
}

TEST(SchemaTest, EachFaultTypeAllowsExactlyTheParsersFields) {
  // Every field some fault takes, from the parser's unknown-field message.
  const Fields all = ListInError(ErrorOf(WithFault({{"type", "heal"}, {"at", "1s"}, {"zz", 1}})),
                                 "expected one of: ");
  ASSERT_TRUE(all.contains("between")) << "no field list";
  Fields in_schema;
  for (const std::string& type : EnumOf(Schema().at("$defs").at("fault_type"))) {
    SCOPED_TRACE(type);
    Fields accepted = {"type"};
    for (const std::string& field : all) {
      if (field == "type") continue;
      const std::string error = ErrorOf(WithFault({{"type", type}, {field, 0}}));
      if (error.find("$.faults[0]." + field + ": not a field of a " + type + " fault") ==
          std::string::npos) {
        accepted.insert(field);
      }
    }
    const json& schema = FaultSchema(type);
    EXPECT_EQ(Keys(schema.at("properties")), accepted);
    EXPECT_EQ(schema.at("additionalProperties"), json(false));
    in_schema.merge(Keys(schema.at("properties")));

    // Required fields: fill in each one the parser asks for.
    const json values = {{"process", type == "failover" ? "redis0" : "A"},
                         {"duration", "1s"},
                         {"between", {{"A"}, {"redis0"}}},
                         {"latency", "1ms"},
                         {"loss_percent", 10},
                         {"offset", "+1s"}};
    json fault = {{"type", type}, {"at", "1s"}};
    Fields required = {"type"};
    for (int i = 0; i < 10; ++i) {
      const std::string error = ErrorOf(WithFault(fault));
      const size_t end = error.find(": required field is missing");
      if (end == std::string::npos) break;
      const std::string field = error.substr(error.rfind('.', end) + 1, end - error.rfind('.', end) - 1);
      required.insert(field);
      fault[field] = values.at(field);
    }
    // With its required fields a fault is valid; a clock fault also needs
    // one of offset, jump, drift_ppm (the schema's anyOf).
    const std::string error = ErrorOf(WithFault(fault));
    if (type == "clock") {
      EXPECT_NE(error.find("needs \"offset\", \"jump\" or \"drift_ppm\""), std::string::npos)
          << error;
      Fields one_of;
      for (const json& branch : schema.at("anyOf")) one_of.insert(branch.at("required").at(0).get<std::string>());
      EXPECT_EQ(one_of, (Fields{"offset", "jump", "drift_ppm"}));
    } else {
      EXPECT_EQ(error, "");
    }
    Fields schema_required;
    for (const json& r : schema.at("required")) schema_required.insert(r.get<std::string>());
    EXPECT_EQ(schema_required, required);
  }
  EXPECT_EQ(in_schema, all);
}

TEST(SchemaTest, DurationPatternsMatchTheParser) {
  const json& defs = Schema().at("$defs");
  const std::regex duration(defs.at("duration").at("pattern").get<std::string>());
  const std::regex zero(defs.at("positive_duration").at("not").at("pattern").get<std::string>());
  const std::regex signed_duration(defs.at("signed_duration").at("pattern").get<std::string>());
  // Not samples the pattern cannot judge: fractions of a nanosecond, huge values.
  for (const std::string text :
       {"1s", "1.5s", "1m30s", "250ms", "0s", "0.0ms", "10ns", "3us", "2h", "1h2m3s4ms5us6ns",
        "", "1", "s", ".5s", "1.s", "1..2s", "-1s", "+1s", "1 s", "1S", "1sec", "1.5.5s", "5d",
        "1s ", "1e3s", "1ms5"}) {
    SCOPED_TRACE(text);
    std::string error;
    const auto parsed = ParseDuration(text, &error);
    EXPECT_EQ(std::regex_match(text, duration), parsed.has_value()) << error;
    if (parsed) {
      EXPECT_EQ(std::regex_match(text, zero), parsed->count() == 0);
    }

    for (const std::string sign : {"", "+", "-", "+-", "--"}) {
      json clock = {{"type", "clock"}, {"process", "A"}, {"at", "1s"}, {"offset", sign + text}};
      EXPECT_EQ(std::regex_match(sign + text, signed_duration), ErrorOf(WithFault(clock)).empty())
          << sign + text;
    }
  }
}

// Every property says what it is (not counted: the conditions of if/then,
// anyOf, oneOf and not, which restate properties described elsewhere).
void CheckDescriptions(const json& node, const std::string& path) {
  if (!node.is_object() && !node.is_array()) return;
  for (const auto& [key, value] : node.items()) {
    if (key == "if" || key == "then" || key == "anyOf" || key == "oneOf" || key == "not") continue;
    if (key == "properties" && node.is_object()) {
      for (const auto& [name, property] : value.items()) {
        EXPECT_TRUE(property.contains("description") || Resolve(property).contains("description"))
            << path << ".properties." << name;
      }
    }
    CheckDescriptions(value, path + "." + key);
  }
}

TEST(SchemaTest, EveryPropertyHasADescription) {
  CheckDescriptions(Schema(), "$");
  for (const auto& [name, def] : Schema().at("$defs").items()) {
    EXPECT_TRUE(def.contains("description")) << "$defs." << name;
  }
}

TEST(SchemaTest, EveryBundledScenarioLoads) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".json" || entry.path().filename() == "schema.json") continue;
    ++files;
    try {
      LoadScenario(path);
    } catch (const InputError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace locksim
