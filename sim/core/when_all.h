// WhenAll: awaits several Task<T> concurrently on the single-threaded event
// loop and yields all their results, in the order the tasks were given.
//
// Every child is started at once (each runs until its first suspension)
// before the awaiting coroutine suspends; a countdown latch hands control
// back to the awaiter, by symmetric transfer, when the last child finishes.
// So N Calls to N nodes cost one round trip, not N (cppcoro's when_all,
// reduced to what locksim needs). If children throw, the first one's
// exception (in argument order) is rethrown once all have finished.
//
// As everywhere in locksim, tasks are lazy: the children must not refer to
// anything that dies before the WhenAll task is awaited.
#ifndef LOCKSIM_SIM_CORE_WHEN_ALL_H_
#define LOCKSIM_SIM_CORE_WHEN_ALL_H_

#include <coroutine>
#include <cstddef>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

#include "sim/core/task.h"

namespace locksim {
namespace when_all_internal {

struct Latch {
  size_t count = 0;  // children still running, +1 while they are being started
  std::coroutine_handle<> awaiting;
};

// The coroutine that runs one child and counts down when it is done.
class Child {
 public:
  struct promise_type {
    Latch* latch = nullptr;

    Child get_return_object() noexcept {
      return Child(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct FinalAwaiter {
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        Latch* latch = h.promise().latch;
        if (--latch->count == 0) return latch->awaiting;
        return std::noop_coroutine();
      }
      void await_resume() noexcept {}
    };
    FinalAwaiter final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    // The body catches everything itself.
    void unhandled_exception() noexcept { std::terminate(); }
  };
  using Handle = std::coroutine_handle<promise_type>;

  explicit Child(Handle h) noexcept : handle_(h) {}
  Child(Child&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Child& operator=(Child&&) = delete;
  Child(const Child&) = delete;
  ~Child() {
    if (handle_) handle_.destroy();
  }
  void Start(Latch* latch) {
    handle_.promise().latch = latch;
    handle_.resume();
  }

 private:
  Handle handle_;
};

template <typename T>
Child RunChild(Task<T> task, std::optional<T>* out, std::exception_ptr* error) {
  try {
    out->emplace(co_await std::move(task));
  } catch (...) {
    *error = std::current_exception();
  }
}

// Starts every child, then suspends the awaiter until the last one is done
// (or does not suspend at all if all finished synchronously).
struct StartAll {
  Latch* latch;
  std::vector<Child>* children;

  bool await_ready() noexcept { return children->empty(); }
  bool await_suspend(std::coroutine_handle<> awaiting) noexcept {
    latch->awaiting = awaiting;
    latch->count = children->size() + 1;
    for (Child& c : *children) c.Start(latch);
    return --latch->count != 0;  // false: all done already, resume at once
  }
  void await_resume() noexcept {}
};

}  // namespace when_all_internal

template <typename T>
Task<std::vector<T>> WhenAll(std::vector<Task<T>> tasks) {
  std::vector<std::optional<T>> results(tasks.size());
  std::vector<std::exception_ptr> errors(tasks.size());
  {
    when_all_internal::Latch latch;
    std::vector<when_all_internal::Child> children;
    children.reserve(tasks.size());
    for (size_t i = 0; i < tasks.size(); ++i) {
      children.push_back(when_all_internal::RunChild<T>(std::move(tasks[i]), &results[i], &errors[i]));
    }
    // A named awaiter: g++ 12 mishandles prvalue awaiters in co_await.
    when_all_internal::StartAll start{&latch, &children};
    co_await start;
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  std::vector<T> out;
  out.reserve(results.size());
  for (std::optional<T>& r : results) out.push_back(std::move(*r));
  co_return out;
}

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_WHEN_ALL_H_
