// The comparison matrix for a terminal: a row per variant, a column per
// scenario (headed by the scenario name's first part, "f01", "w05", when
// those are unique), then a key to the columns. ANSI colour only when asked
// (the caller decides: a TTY and no NO_COLOR).
#ifndef LOCKSIM_REPORTS_TERMINAL_TABLE_H_
#define LOCKSIM_REPORTS_TERMINAL_TABLE_H_

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

std::string RenderTerminalTable(const nlohmann::ordered_json& results, bool colour);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_TERMINAL_TABLE_H_
