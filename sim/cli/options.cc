#include "sim/cli/options.h"

#include <charconv>
#include <iostream>
#include <sstream>

#include "sim/core/errors.h"

namespace locksim {

CommandLine::CommandLine(const std::string& usage) : options_(usage + "\noptions") {
  options_.add_options()("help,h", po::bool_switch(&help_), "show this help");
}

bool CommandLine::Parse(const std::vector<std::string>& args) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options_).positional(positional_).run(), vm);
  po::notify(vm);
  if (help_) std::cout << options_;
  return !help_;
}

void BackendOptions::AddTo(CommandLine& cl) {
  cl.Add()("backend", po::value(&backend)->default_value("virtual"),
           "virtual (deterministic, simulated Redis) or real (redis-server processes)")(
      "time-scale", po::value(&time_scale),
      "multiply every scenario duration, e.g. 1/500 (default: 1 on virtual, the "
      "scenario's real_time_scale on real)")(
      "redis-server", po::value(&redis_server)->default_value("redis-server"),
      "redis-server binary for --backend real");
}

RunOptions BackendOptions::ToRunOptions() const {
  RunOptions o;
  o.backend = ParseBackendOption("--backend", backend);
  if (!time_scale.empty()) {
    std::string error;
    auto scale = ParseTimeScale(time_scale, &error);
    if (!scale) throw InputError("--time-scale: " + error);
    o.time_scale = *scale;
  }
  o.redis_server = redis_server;
  return o;
}

int64_t ParseIntOption(const std::string& option, const std::string& text, int64_t lo,
                       int64_t hi) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end || v < lo || v > hi) {
    throw InputError(option + ": expected an integer from " + std::to_string(lo) + " to " +
                     std::to_string(hi) + ", got \"" + text + "\"");
  }
  return v;
}

uint64_t ParseSeedOption(const std::string& option, const std::string& text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end) {
    throw InputError(option + ": expected an integer from 0 to 18446744073709551615, got \"" +
                     text + "\"");
  }
  return v;
}

Backend ParseBackendOption(const std::string& option, const std::string& text) {
  if (text == "virtual") return Backend::kVirtual;
  if (text == "real") return Backend::kReal;
  throw InputError(option + ": expected \"virtual\" or \"real\", got \"" + text + "\"");
}

std::vector<std::string> SplitList(const std::vector<std::string>& values,
                                   const std::string& option) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    std::stringstream ss(v);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const size_t a = item.find_first_not_of(" \t");
      const size_t b = item.find_last_not_of(" \t");
      if (a == std::string::npos) throw InputError(option + ": empty name in \"" + v + "\"");
      out.push_back(item.substr(a, b - a + 1));
    }
  }
  return out;
}

}  // namespace locksim
