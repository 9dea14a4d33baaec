// The no-fault contention scenario every variant must pass, on both
// backends: shared by the unit (virtual) and real variant tests.
#ifndef LOCKSIM_TESTS_TESTING_CONTENTION_H_
#define LOCKSIM_TESTS_TESTING_CONTENTION_H_

namespace locksim {

// Three clients, five acquisitions each, short critical sections, a lease
// far longer than the work, and patience enough for everyone.
constexpr char kContention[] = R"({
  "duration": "5m",
  "algorithm": "set-nx-px",
  "real_time_scale": "1/5",
  "lock": {"ttl": "5s", "retry_delay": "10ms", "acquire_timeout": "2m", "tries": 100000},
  "clients": [
    {"name": "A", "hold": "50ms", "think": "20ms", "iterations": 5},
    {"name": "B", "start": "5ms", "hold": "50ms", "think": "20ms", "iterations": 5},
    {"name": "C", "start": "10ms", "hold": "50ms", "think": "20ms", "iterations": 5}
  ]
})";

}  // namespace locksim

#endif  // LOCKSIM_TESTS_TESTING_CONTENTION_H_
