// The locksim binary run as a user runs it, for the CLI tests: its exit
// code and what it printed, each stream kept in a file of the test's folder.
#ifndef LOCKSIM_TESTS_TESTING_RUN_LOCKSIM_H_
#define LOCKSIM_TESTS_TESTING_RUN_LOCKSIM_H_

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace locksim {

struct Outcome {
  int exit_code;
  std::string out;
  std::string err;
};

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `binary args`, its output in dir/stdout and dir/stderr (a signal's death
// as 128 + its number, as a shell reports it).
inline Outcome RunLocksim(const std::string& binary, const std::filesystem::path& dir,
                          const std::string& args) {
  const std::string cmd = binary + " " + args + " >" + (dir / "stdout").string() + " 2>" +
                          (dir / "stderr").string();
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
          Slurp(dir / "stdout"), Slurp(dir / "stderr")};
}

}  // namespace locksim

#endif  // LOCKSIM_TESTS_TESTING_RUN_LOCKSIM_H_
