// Persistence: what a Redis node keeps across a crash (redis.conf
// appendonly / appendfsync / save). A vocabulary type shared by the
// scenario (which parses it), the worlds (which configure their nodes by
// it) and the virtual Redis (which models it); it depends on nothing.
#ifndef LOCKSIM_SIM_CORE_PERSISTENCE_H_
#define LOCKSIM_SIM_CORE_PERSISTENCE_H_

#include <optional>
#include <string_view>

namespace locksim {

enum class Persistence {
  kNone,         // no AOF, no RDB: a restart starts empty
  kAofAlways,    // appendfsync always: every acknowledged write survives
  kAofEverySec,  // appendfsync everysec: writes since the last fsync are lost
  kRdb,          // snapshots every rdb_interval: writes since the last one are lost
};

// The scenario's names: "none", "aof-always", "aof-everysec", "rdb".
inline std::string_view PersistenceName(Persistence p) {
  switch (p) {
    case Persistence::kNone: return "none";
    case Persistence::kAofAlways: return "aof-always";
    case Persistence::kAofEverySec: return "aof-everysec";
    case Persistence::kRdb: return "rdb";
  }
  return "?";
}

// nullopt for a name that is none of them.
inline std::optional<Persistence> ParsePersistence(std::string_view name) {
  for (Persistence p : {Persistence::kNone, Persistence::kAofAlways, Persistence::kAofEverySec,
                        Persistence::kRdb}) {
    if (PersistenceName(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_PERSISTENCE_H_
