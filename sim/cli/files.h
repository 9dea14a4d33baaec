// Files named on the command line: read, written (or "-" for stdout), and
// output folders. Every failure is an InputError naming the path and the
// option it came from.
#ifndef LOCKSIM_SIM_CLI_FILES_H_
#define LOCKSIM_SIM_CLI_FILES_H_

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace locksim {

// The whole file. Throws "PATH: cannot read".
std::string ReadFile(const std::filesystem::path& path);
// Writes `text` to `path`, or to stdout when `path` is "-". Throws
// "OPTION: cannot write PATH".
void WriteFile(const std::filesystem::path& path, const std::string& text,
               const std::string& option);
// The same, of what `write` puts on the stream (a document written as it is
// made, never whole in memory).
void WriteFile(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write,
               const std::string& option);
// Creates the folder `dir` (and its parents) if it is missing. Throws
// "OPTION: cannot create folder DIR".
std::filesystem::path EnsureFolder(const std::string& dir, const std::string& option);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CLI_FILES_H_
