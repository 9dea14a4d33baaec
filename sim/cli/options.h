// The command line's one module: what every command shares in reading its
// options. Each command describes its options to a CommandLine, which does
// the parse every command needs (Boost.Program_options' store and notify,
// --help); the value parsers below check a value and name the option when
// it is wrong (InputError: exit 2).
#ifndef LOCKSIM_SIM_CLI_OPTIONS_H_
#define LOCKSIM_SIM_CLI_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "sim/run/runner.h"

namespace locksim {

namespace po = boost::program_options;

class CommandLine {
 public:
  // `usage`: the first lines of the help ("locksim run PATH... [options]",
  // what the command does, its exit codes).
  explicit CommandLine(const std::string& usage);

  // d.add_options() of Boost, with --help already there.
  po::options_description_easy_init Add() { return options_.add_options(); }
  // Positional arguments go to option `name` (`max`: how many, -1: any).
  void Positional(const char* name, int max) { positional_.add(name, max); }

  // Parses `args`. Returns false when --help was asked for: the help has
  // been printed to stdout and the command ends with exit 0. Throws
  // po::error (exit 2, naming the option) for an unknown option or a
  // missing value.
  bool Parse(const std::vector<std::string>& args);

 private:
  po::options_description options_;
  po::positional_options_description positional_;
  bool help_ = false;
};

// The options of the commands that run scenarios (run, check, compare):
// the backend, the time scale, the redis-server binary.
struct BackendOptions {
  std::string backend = "virtual";
  std::string time_scale;
  std::string redis_server = "redis-server";

  void AddTo(CommandLine& cl);
  // Throws InputError naming the option.
  RunOptions ToRunOptions() const;
};

// A decimal integer within [lo, hi].
int64_t ParseIntOption(const std::string& option, const std::string& text, int64_t lo,
                       int64_t hi);
// A seed: a decimal integer from 0 to 2^64 - 1.
uint64_t ParseSeedOption(const std::string& option, const std::string& text);
// "virtual" or "real".
Backend ParseBackendOption(const std::string& option, const std::string& text);
// Values given as "a,b" or as several words, trimmed; an empty name is an
// error.
std::vector<std::string> SplitList(const std::vector<std::string>& values,
                                   const std::string& option);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CLI_OPTIONS_H_
