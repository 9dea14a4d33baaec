// Task<T>: the one coroutine type of locksim. Lazy (nothing runs until it is
// awaited or started), single-threaded, with symmetric transfer back to the
// awaiting coroutine so that deep chains of co_await do not grow the stack.
// Modelled on cppcoro's task and simcpp20's process, in about 150 lines.
//
// A Task is owned by exactly one object. Awaiting it runs it to completion and
// yields its value; an exception that escapes the coroutine is rethrown to the
// awaiter. A top-level task (a client's workload) is started with Start() by
// the event loop that owns it, and polled with done().
#ifndef LOCKSIM_SIM_CORE_TASK_H_
#define LOCKSIM_SIM_CORE_TASK_H_

#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <optional>
#include <utility>
#include <vector>

namespace locksim {

template <typename T>
class Task;

namespace task_internal {

// Where coroutine frames come from. A virtual run makes and ends frames
// for every acquisition and release of a lock (thousands per simulated
// minute), and Redlock one for every call it gathers with WhenAll;
// keeping freed frames on a free list per size class (64-byte steps up to
// 1 KiB) takes malloc and free off that path. Per thread, because explore
// runs worlds on several threads; a frame is freed on the thread that made
// it (a world never leaves its thread). The sanitizer build uses plain
// new/delete so that AddressSanitizer still sees a frame used after free.
class FramePool {
 public:
  static void* Allocate(std::size_t size) {
#ifndef LOCKSIM_SANITIZE
    const std::size_t c = ClassOf(size);
    if (c < kClasses) {
      std::vector<void*>& free = Lists().free[c];
      if (!free.empty()) {
        void* p = free.back();
        free.pop_back();
        return p;
      }
      return ::operator new((c + 1) * kStep);
    }
#endif
    return ::operator new(size);
  }
  static void Free(void* p, std::size_t size) noexcept {
#ifndef LOCKSIM_SANITIZE
    const std::size_t c = ClassOf(size);
    if (c < kClasses) {
      Lists().free[c].push_back(p);
      return;
    }
#endif
    ::operator delete(p);
  }

 private:
  static constexpr std::size_t kStep = 64;
  static constexpr std::size_t kClasses = 16;
  static std::size_t ClassOf(std::size_t size) { return (size + kStep - 1) / kStep - 1; }
  struct FreeLists {
    std::vector<void*> free[kClasses];
    ~FreeLists() {
      for (std::vector<void*>& list : free) {
        for (void* p : list) ::operator delete(p);
      }
    }
  };
  static FreeLists& Lists() {
    thread_local FreeLists lists;
    return lists;
  }
};

struct PromiseBase {
  static void* operator new(std::size_t size) { return FramePool::Allocate(size); }
  static void operator delete(void* p, std::size_t size) noexcept { FramePool::Free(p, size); }

  std::coroutine_handle<> continuation;
  std::exception_ptr exception;

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename Promise>
    std::coroutine_handle<> await_suspend(
        std::coroutine_handle<Promise> h) noexcept {
      // Symmetric transfer: hand control straight to whoever awaited us, or
      // back to the event loop (noop) for a top-level task.
      std::coroutine_handle<> next = h.promise().continuation;
      return next ? next : std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }
};

template <typename T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <typename U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T Take() {
    if (exception) std::rethrow_exception(exception);
    return std::move(*value);
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void Take() {
    if (exception) std::rethrow_exception(exception);
  }
};

}  // namespace task_internal

template <typename T = void>
class [[nodiscard]] Task {
 public:
  using promise_type = task_internal::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) noexcept : handle_(h) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      Destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { Destroy(); }

  bool valid() const { return static_cast<bool>(handle_); }
  bool done() const { return handle_ && handle_.done(); }

  // Starts a top-level task: runs it until its first suspension. Only for
  // tasks nobody awaits; the event loop keeps the Task alive until done().
  void Start() { handle_.resume(); }

  // For a finished top-level task: its value, or the exception it threw.
  decltype(auto) Result() { return handle_.promise().Take(); }

  auto operator co_await() && noexcept {
    struct Awaiter {
      Handle handle;
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(
          std::coroutine_handle<> awaiting) noexcept {
        handle.promise().continuation = awaiting;
        return handle;  // start the lazy task now
      }
      decltype(auto) await_resume() { return handle.promise().Take(); }
    };
    return Awaiter{handle_};
  }

 private:
  void Destroy() {
    if (handle_) handle_.destroy();
    handle_ = {};
  }
  Handle handle_;
};

namespace task_internal {
template <typename T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace task_internal

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_TASK_H_
