// Adapter manifests (lockimpls/adapter_manifest.h): the bundled libraries
// are variants without C++, and a bad manifest is bad input naming its file
// and the JSON path of what is wrong.
#include "lockimpls/adapter_manifest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/errors.h"
#include "sim/real/adapter_process.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

TEST(AdapterManifestTest, TheBundledLibrariesAreVariantsWithTheirVersions) {
  const struct {
    const char* id;
    const char* version;
    const char* script;
  } bundled[] = {{"redis-py", "4.3.4", "redis_py/redis_py_adapter.py"},
                 {"node-redlock", "5.0.0-beta.2", "node/redlock_adapter.js"},
                 {"redis-semaphore", "5.8.0", "node/redis_semaphore_adapter.js"}};
  for (const auto& b : bundled) {
    SCOPED_TRACE(b.id);
    const AlgorithmInfo* a = FindAlgorithm(b.id);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(a->adapter, nullptr);
    EXPECT_TRUE(a->real_only());
    EXPECT_EQ(a->adapter->version, b.version);
    EXPECT_TRUE(a->adapter->script.ends_with(b.script)) << a->adapter->script;
    EXPECT_TRUE(fs::is_regular_file(a->adapter->script));
    EXPECT_EQ(a->adapter->argv.front().front(), '/');
    EXPECT_FALSE(a->bug.empty());
    EXPECT_EQ(a->defaults.ttl, std::chrono::seconds(10));
  }
  EXPECT_EQ(FindAlgorithm("redis-semaphore")->adapter->key_prefix, "mutex:");
  // In the catalogue's order since before they were manifests.
  std::vector<std::string_view> ids;
  for (const AlgorithmInfo& a : Algorithms()) {
    if (a.adapter != nullptr) ids.push_back(a.id);
  }
  EXPECT_EQ(ids, (std::vector<std::string_view>{"redis-py", "node-redlock", "redis-semaphore"}));
  EXPECT_TRUE(FindAlgorithm("node-redlock")->adapter->node_modules);
  EXPECT_FALSE(FindAlgorithm("redis-py")->adapter->node_modules);
}

class BadManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("locksim-manifest-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "adapter.sh") << "#!/bin/sh\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The InputError that loading `text` gives, or "" when it loads.
  std::string Error(const std::string& text) {
    const std::string path = (dir_ / "x.adapter.json").string();
    std::ofstream(path) << text;
    try {
      LoadAdapterManifest(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

constexpr char kGood[] = R"({"id": "mylock", "library": "mylock", "version": "1.2",
  "summary": "s", "source": "src", "bug": "b", "run": ["/bin/sh", "./adapter.sh"],
  "install": "apt-get install mylock", "defaults": {"ttl": "3s"}})";

TEST_F(BadManifestTest, AGoodOneLoadsWithItsProgramBesideIt) {
  ASSERT_EQ(Error(kGood), "");
  auto v = LoadAdapterManifest((dir_ / "x.adapter.json").string());
  EXPECT_EQ(v->info.id, "mylock");
  EXPECT_EQ(v->info.adapter, &v->program);
  EXPECT_EQ(v->program.argv.size(), 2u);
  EXPECT_EQ(v->program.script, (dir_ / "adapter.sh").string());
  EXPECT_EQ(v->program.argv[1], v->program.script);
  EXPECT_EQ(v->info.defaults.ttl, std::chrono::seconds(3));
  EXPECT_EQ(v->info.defaults.acquire_timeout, std::chrono::seconds(10));
}

TEST_F(BadManifestTest, EachMistakeIsNamedByFileAndPath) {
  const std::string file = (dir_ / "x.adapter.json").string();
  const std::pair<std::string, std::string> cases[] = {
      {"not json", ": not JSON"},
      {"[1]", ": $: must be an object"},
      {R"({"library": "l", "summary": "s", "source": "s", "run": ["/bin/sh"], "install": "i"})",
       R"(: $: missing "id")"},
      {R"({"id": "Bad Id", "library": "l", "summary": "s", "source": "s", "run": ["/bin/sh"],
           "install": "i"})",
       ": $.id: \"Bad Id\""},
      {R"({"id": "a", "library": "l", "summary": "s", "source": "s", "run": ["node", "x.js"],
           "install": "i"})",
       ": $.run[0]: \"node\": the program must be an absolute path"},
      {R"({"id": "a", "library": "l", "summary": "s", "source": "s", "run": [],
           "install": "i"})",
       ": $.run: must be a non-empty array"},
      {R"({"id": "a", "library": "l", "summary": "s", "source": "s", "run": ["/bin/sh"],
           "install": "i", "defaults": {"ttl": "soon"}})",
       ": $.defaults.ttl: must be a positive duration"},
      {R"({"id": "a", "library": "l", "summary": "s", "source": "s", "run": ["/bin/sh"],
           "install": "i", "interpreter": "/bin/sh"})",
       ": $.interpreter: unknown field"},
      {R"({"id": "a", "library": 3, "summary": "s", "source": "s", "run": ["/bin/sh"],
           "install": "i"})",
       ": $.library: must be a non-empty string"},
  };
  for (const auto& [text, message] : cases) {
    const std::string e = Error(text);
    EXPECT_EQ(e.rfind(file, 0), 0u) << text << " -> " << e;
    EXPECT_NE(e.find(message), std::string::npos) << text << " -> " << e;
  }
}

TEST_F(BadManifestTest, ABareProgramIsNamedAfterItsFile) {
  auto v = AdapterFromPath((dir_ / "adapter.sh").string());
  EXPECT_EQ(v->id, "adapter");
  EXPECT_EQ(v->program.argv, std::vector<std::string>{(dir_ / "adapter.sh").string()});
  EXPECT_THROW(AdapterFromPath((dir_ / "missing.sh").string()), InputError);
  // Its results would pass for another variant's.
  std::ofstream(dir_ / "set-nx-px.sh") << "#!/bin/sh\n";
  try {
    AdapterFromPath((dir_ / "set-nx-px.sh").string());
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\"set-nx-px\" is already a variant's id"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(AdapterFromPath((dir_ / "missing.json").string()), InputError);
}

// A library's stderr goes into the result JSON (a failure's stderr_tail),
// whose writer refuses bytes that are not UTF-8: the tail is cut between
// characters, and bytes of another encoding are shown as U+FFFD.
TEST(AdapterStderr, TheTailIsUtf8WhereverItIsCut) {
  const std::string replaced = "\xEF\xBF\xBD";  // U+FFFD
  EXPECT_EQ(TextTail("short", 800), "short");
  EXPECT_EQ(TextTail("abcdef", 3), "...def");
  const std::string e_acute = "\xC3\xA9";  // é, two bytes
  // The last 4 bytes start inside the first é: from the next character.
  EXPECT_EQ(TextTail(e_acute + e_acute + "x", 4), "..." + e_acute + "x");
  EXPECT_EQ(TextTail("caf\xE9 latin-1", 800), "caf" + replaced + " latin-1");
  EXPECT_EQ(TextTail("\xF0\x9F\x94\x92 lock", 800), "\xF0\x9F\x94\x92 lock");  // 🔒
  EXPECT_EQ(TextTail("ab\xE2\x82", 800), "ab" + replaced);  // cut short
  // A surrogate is not UTF-8 either: whatever replaces it, no byte of it stays.
  EXPECT_EQ(TextTail("\xED\xA0\x80", 800).find('\xED'), std::string::npos);
}

}  // namespace
}  // namespace locksim
