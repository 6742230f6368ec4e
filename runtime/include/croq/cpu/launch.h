// croq/cpu/launch.h: kernel launches, GPU threads and barriers for
// `--target=cpu`.
//
//   croq::cpu::launch(kernel, "kernel", grid, block, shared_bytes, args...)
//       runs `kernel(args...)` once per thread of every block of `grid`, like
//       `kernel<<<grid, block, shared_bytes>>>(args...)`, and returns when all
//       of them have finished. Blocks run one after another on each core
//       (OpenMP spreads them over the cores when the program is built with
//       -fopenmp); the threads of a block run as fibers on one core, each
//       with its own stack, switching only where they must wait for each
//       other (barriers, warp-collective operations). Launch errors are
//       those of the GPU (too many threads, too much dynamic shared memory
//       without cudaFuncSetAttribute) and are returned by cudaGetLastError().
//   threadIdx, blockIdx, blockDim, gridDim
//       the built-in variables, per fiber.
//   __syncthreads(), __syncthreads_count/and/or(pred), __syncwarp(mask)
//       block and warp barriers.
//   croq::cpu::launch_cooperative(kernel, "kernel", grid, block, shared_bytes, args...)
//       like cudaLaunchCooperativeKernel: every block runs at once, each on
//       its own OS thread, so that croq::grid_sync(), the grid-wide barrier,
//       can wait for all of them (grids of more than kMaxCooperativeBlocks
//       blocks fail with cudaErrorCooperativeLaunchTooLarge).
//   croq::cpu::dynamic_shared_memory()
//       the block's dynamic shared memory (`extern __shared__` on the GPU),
//       1024-byte aligned.
//
// A barrier that can never complete is an error, not a hang: when every
// thread of a block waits or has returned, the runtime prints which threads
// wait at which barrier (the call's file and line) or for which event, and
// which have returned, and exits with status 1. A warp whose lanes reach
// different warp-collective operations is reported the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "croq/cpu/cuda_api.h"
#include "croq/cpu/fiber.h"

// The built-in variables of the thread that is running (a fiber of the
// current block on this core).
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};

namespace croq::cpu {
namespace detail {

// Where a thread waits: the operation and the call site in the generated
// code (or the `.co` host code) that reached it.
struct Site {
  const char* what = "";
  const char* file = "";
  int line = 0;
  // A wait for an event: `what` is its name, `index` its element (-1 for a
  // single event).
  bool event = false;
  int index = -1;

  bool same(const Site& o) const {
    return line == o.line && event == o.event && index == o.index && std::strcmp(what, o.what) == 0 &&
           std::strcmp(file, o.file) == 0;
  }
  std::string describe() const {
    if (!event) return what;
    std::string s = "a wait for event `" + std::string(what);
    if (index >= 0) s += "[" + std::to_string(index) + "]";
    return s + "`";
  }
};

// One GPU thread.
struct Fiber {
  enum class State : std::uint8_t { Ready, Waiting, Done };
  Context context;
  uint3 index{0, 0, 0};
  unsigned tid = 0;  // linear thread index in the block
  State state = State::Ready;
  Site site;         // where it waits (Waiting)
};

// The alignment of dynamic shared memory: that of `extern __shared__
// __align__(1024)` in CUDA code (what swizzled tiles need).
inline constexpr std::size_t kSharedAlignment = 1024;

// Bytes each lane may contribute to (and receive from) one warp-collective
// operation.
inline constexpr std::size_t kLaneBytes = 64;

// A warp: its barrier and the scratch space through which warp-collective
// operations (mma.sync, shuffles, ballots) exchange the lanes' values. The
// scratch is double-buffered by barrier generation: a lane can reach the
// operation after next only once every lane has left the previous one.
struct Warp {
  unsigned present = 0;  // lanes that exist in this warp (a partial last warp has fewer)
  unsigned arrived = 0;
  unsigned expected = 0;
  unsigned generation = 0;
  Site site;
  unsigned waiting = 0;
  unsigned waiters[32] = {};
  alignas(64) unsigned char in[2][32][kLaneBytes];
  alignas(64) unsigned char out[2][32][kLaneBytes];
};

// The grid-wide barrier of a cooperative launch, over the OS threads that
// run its blocks: one arrival per block (its thread 0, once the whole block
// has reached the barrier). A block that returns while others wait at the
// barrier can never let them go on: that is reported, as a deadlock is.
class GridBarrier {
 public:
  explicit GridBarrier(unsigned long long blocks) : blocks_(blocks) {}
  void arrive_and_wait(const char* kernel) {
    std::unique_lock<std::mutex> lock(mutex_);
    const unsigned long long generation = generation_;
    if (++arrived_ == blocks_) {
      arrived_ = 0;
      ++generation_;
      released_.notify_all();
      return;
    }
    check(kernel);
    released_.wait(lock, [&] { return generation_ != generation; });
  }
  void block_returned(const char* kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++returned_;
    check(kernel);
  }

 private:
  void check(const char* kernel) const {
    if (arrived_ == 0 || arrived_ + returned_ < blocks_) return;
    std::fflush(stdout);
    std::fprintf(stderr,
                 "croq cpu runtime: deadlock in kernel `%s`: %llu of %llu blocks wait at croq::grid_sync() and the "
                 "other %llu have returned; every block of a cooperative grid must reach the grid barrier\n",
                 kernel, arrived_, blocks_, returned_);
    std::fflush(stderr);
    std::_Exit(EXIT_FAILURE);
  }
  std::mutex mutex_;
  std::condition_variable released_;
  const unsigned long long blocks_;
  unsigned long long arrived_ = 0, returned_ = 0, generation_ = 0;
};

struct LaunchInfo {
  const char* kernel;
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes;
  void (*invoke)(const void* closure);
  const void* closure;
  // Cooperative launches only.
  GridBarrier* grid_barrier = nullptr;
};

class BlockRunner;
inline thread_local BlockRunner* active_runner = nullptr;

[[noreturn]] inline void fiber_main() noexcept;

// Runs blocks on one core: the fibers of one block at a time, a run queue of
// the fibers that can continue, the block barrier and the warps.
class BlockRunner {
 public:
  void run(const LaunchInfo& launch, unsigned long long block) {
    launch_ = &launch;
    const dim3 b = launch.block;
    const dim3 g = launch.grid;
    n_ = b.x * b.y * b.z;
    blockIdx = {static_cast<unsigned>(block % g.x), static_cast<unsigned>(block / g.x % g.y),
                static_cast<unsigned>(block / (static_cast<unsigned long long>(g.x) * g.y))};
    blockDim = b;
    gridDim = g;

    if (fibers_.size() < n_) fibers_.resize(n_);
    while (stacks_.size() < n_) stacks_.emplace_back(fiber_stack_bytes());
    for (unsigned i = 0; i < n_; ++i) {
      Fiber& f = fibers_[i];
      f.index = {i % b.x, i / b.x % b.y, i / (b.x * b.y)};
      f.tid = i;
      f.state = Fiber::State::Ready;
      start_context(f.context, stacks_[i].lo(), stacks_[i].size(), fiber_main);
    }
    const unsigned warps = (n_ + 31) / 32;
    while (warps_.size() < warps) warps_.push_back(std::make_unique<Warp>());
    for (unsigned w = 0; w < warps; ++w) {
      Warp& warp = *warps_[w];
      const unsigned lanes = n_ - 32 * w < 32 ? n_ - 32 * w : 32;
      warp.present = lanes == 32 ? ~0u : (1u << lanes) - 1;
      warp.arrived = warp.generation = warp.waiting = 0;
    }
    cta_arrived_ = 0;
    cta_generation_ = 0;
    cta_waiters_.clear();
    cta_waiters_.reserve(n_);
    for (NamedBarrier& nb : named_) nb = NamedBarrier{};
    event_waiters_.clear();
    if (shared_capacity_ < launch.shared_bytes) {
      shared_capacity_ = launch.shared_bytes;
      // Poisoned like fresh GPU memory often is, so a read before a write is
      // unlikely to look right.
      shared_.reset(static_cast<unsigned char*>(
          std::aligned_alloc(kSharedAlignment, (shared_capacity_ + kSharedAlignment - 1) / kSharedAlignment * kSharedAlignment)));
      std::memset(shared_.get(), 0xFF, shared_capacity_);
    }
    queue_.resize(n_);
    head_ = 0;
    queued_ = 0;
    for (unsigned i = 0; i < n_; ++i) push(i);
    done_ = 0;

    BlockRunner* outer = active_runner;
    active_runner = this;
    Fiber& first = fibers_[pop()];
    enter(first);
    switch_context(scheduler_, first.context);
    active_runner = outer;
  }

  Fiber& current() { return *current_; }
  unsigned char* shared_memory() { return shared_.get(); }
  const LaunchInfo& launch() const { return *launch_; }

  // The block barrier; with `value`, also sums `value` over the block and
  // returns the sum to every thread (for __syncthreads_count and friends).
  int sync_block(const Site& site, int value = 0) {
    const unsigned slot = cta_generation_ & 1;
    if (cta_arrived_ == 0) {
      cta_site_ = site;
      cta_sum_[slot] = 0;
    }
    cta_sum_[slot] += value;
    if (++cta_arrived_ == n_) {
      cta_arrived_ = 0;
      ++cta_generation_;
      for (unsigned t : cta_waiters_) make_ready(t);
      cta_waiters_.clear();
      return cta_sum_[slot];
    }
    cta_waiters_.push_back(current_->tid);
    wait_here(site);
    return cta_sum_[slot];
  }

  // Named barrier `id` (bar.sync id, count): returns once `count` threads
  // have reached it.
  void sync_named(unsigned id, unsigned count, const Site& site) {
    if (arrive_named(id, count)) return;
    named_[id % kNamedBarriers].waiters.push_back(current_->tid);
    wait_here(site);
  }

  // bar.arrive id, count: counts toward the named barrier without waiting.
  // Returns true when this arrival completed it (the waiters go on).
  bool arrive_named(unsigned id, unsigned count) {
    NamedBarrier& b = named_[id % kNamedBarriers];
    if (b.arrived == 0) b.expected = count;
    if (++b.arrived < b.expected) return false;
    b.arrived = 0;
    for (unsigned t : b.waiters) make_ready(t);
    b.waiters.clear();
    return true;
  }

  // Blocks the running thread until `done()` holds; `key` (an event's
  // mbarrier) names what it waits for, and wake(key) lets it look again.
  template <typename F>
  void wait_until(const void* key, const Site& site, F&& done) {
    while (!done()) {
      event_waiters_.push_back({current_->tid, key});
      wait_here(site);
    }
  }
  void wake(const void* key) {
    std::size_t kept = 0;
    for (const EventWaiter& w : event_waiters_) {
      if (w.key == key) make_ready(w.tid);
      else event_waiters_[kept++] = w;
    }
    event_waiters_.resize(kept);
  }

  Warp& current_warp() { return *warps_[current_->tid / 32]; }
  unsigned current_lane() const { return current_->tid % 32; }
  unsigned current_warp_index() const { return current_->tid / 32; }

  // A warp-collective operation: returns once every lane of `mask` (that
  // exists) has reached an operation of the same kind (`site.what`). The
  // last lane to arrive calls on_complete(warp, slot) first, which can read
  // every lane's `in[slot]` and write their `out[slot]`.
  template <typename F>
  void warp_collective(const Site& site, unsigned mask, F&& on_complete) {
    Warp& w = current_warp();
    const unsigned lane = current_lane();
    if (w.arrived == 0) {
      w.site = site;
      w.expected = static_cast<unsigned>(__builtin_popcount((mask | (1u << lane)) & w.present));
    } else if (w.site.what != site.what && std::strcmp(w.site.what, site.what) != 0) {
      diverged(site);
    }
    if (++w.arrived == w.expected) {
      on_complete(w, w.generation & 1);
      w.arrived = 0;
      ++w.generation;
      for (unsigned i = 0; i < w.waiting; ++i) make_ready(w.waiters[i]);
      w.waiting = 0;
      return;
    }
    w.waiters[w.waiting++] = current_->tid;
    wait_here(site);
  }

  // The running fiber has returned from the kernel.
  [[noreturn]] void finish_current() {
    Fiber& f = *current_;
    f.state = Fiber::State::Done;
    ++done_;
    switch_away(f);
    __builtin_unreachable();
  }

 private:
  void push(unsigned t) {
    queue_[(head_ + queued_++) % n_] = t;
  }
  unsigned pop() {
    const unsigned t = queue_[head_];
    head_ = (head_ + 1) % n_;
    --queued_;
    return t;
  }
  void make_ready(unsigned t) {
    fibers_[t].state = Fiber::State::Ready;
    push(t);
  }
  void enter(Fiber& f) {
    current_ = &f;
    threadIdx = f.index;
  }
  void wait_here(const Site& site) {
    Fiber& f = *current_;
    f.state = Fiber::State::Waiting;
    f.site = site;
    switch_away(f);
  }
  // Resumes the next fiber that can run; back to the launch once all have
  // returned; a deadlock when none can run but some have not returned.
  void switch_away(Fiber& from) {
    if (queued_ == 0) {
      if (done_ == n_) {
        switch_context(from.context, scheduler_);
        return;
      }
      deadlock();
    }
    Fiber& next = fibers_[pop()];
    enter(next);
    switch_context(from.context, next.context);
  }

  void header(const char* problem) const {
    std::fflush(stdout);
    std::fprintf(stderr, "croq cpu runtime: %s in kernel `%s`, block (%u, %u, %u) of (%u, %u, %u)\n", problem,
                 launch_->kernel, blockIdx.x, blockIdx.y, blockIdx.z, launch_->grid.x, launch_->grid.y,
                 launch_->grid.z);
  }

  // "0-31, 64, 96-127": thread indices in ascending order as ranges.
  static std::string ranges(const std::vector<unsigned>& tids) {
    std::string s;
    for (std::size_t i = 0; i < tids.size();) {
      std::size_t j = i;
      while (j + 1 < tids.size() && tids[j + 1] == tids[j] + 1) ++j;
      if (!s.empty()) s += ", ";
      s += std::to_string(tids[i]);
      if (j > i) s += "-" + std::to_string(tids[j]);
      i = j + 1;
    }
    return s;
  }

  [[noreturn]] void deadlock() const {
    header("deadlock");
    std::fprintf(stderr, "  no thread of the block can continue:\n");
    std::vector<Site> sites;
    for (unsigned t = 0; t < n_; ++t) {
      const Fiber& f = fibers_[t];
      if (f.state != Fiber::State::Waiting) continue;
      bool seen = false;
      for (const Site& s : sites) seen = seen || s.same(f.site);
      if (!seen) sites.push_back(f.site);
    }
    for (const Site& s : sites) {
      std::vector<unsigned> tids;
      for (unsigned t = 0; t < n_; ++t) {
        const Fiber& f = fibers_[t];
        if (f.state == Fiber::State::Waiting && f.site.same(s)) tids.push_back(t);
      }
      std::fprintf(stderr, "  %zu of %u threads wait at %s (%s:%d): threads %s\n", tids.size(), n_,
                   s.describe().c_str(), s.file, s.line, ranges(tids).c_str());
    }
    std::vector<unsigned> returned;
    for (unsigned t = 0; t < n_; ++t)
      if (fibers_[t].state == Fiber::State::Done) returned.push_back(t);
    if (!returned.empty())
      std::fprintf(stderr, "  %zu of %u threads have returned from the kernel: threads %s\n", returned.size(), n_,
                   ranges(returned).c_str());
    bool anyEvent = false;
    for (const Site& s : sites) anyEvent = anyEvent || s.event;
    if (anyEvent)
      std::fprintf(stderr,
                   "  an event's phase completes when every thread that triggers it has arrived (a missing "
                   "`trigger`, or a consumer that never seeds `empty`, spec 14.3); on a GPU this is a hang\n");
    std::fprintf(stderr,
                 "  a barrier completes when every thread of the block (of the warp, for warp operations; of "
                 "the `inthreads` region, for its barriers) reaches it; on a GPU this is a hang or undefined "
                 "behaviour\n");
    for (const Site& s : sites) {
      if (std::strstr(s.file, "croqc-generated") != nullptr) {
        std::fprintf(stderr,
                     "  %s is the code croqc generated: `croqc FILE.co --target=cpu --emit=cuda` prints it, "
                     "each statement under a comment naming its .co line\n",
                     s.file);
        break;
      }
    }
    std::fflush(stderr);
    std::_Exit(EXIT_FAILURE);
  }

  [[noreturn]] void diverged(const Site& site) const {
    const Warp& w = *warps_[current_->tid / 32];
    header("warp divergence");
    std::fprintf(stderr,
                 "  in warp %u, thread %u reached %s (%s:%d) while other lanes wait at %s (%s:%d); every lane of "
                 "a warp must reach the same warp-collective operation\n",
                 current_->tid / 32, current_->tid, site.what, site.file, site.line, w.site.what, w.site.file,
                 w.site.line);
    std::fflush(stderr);
    std::_Exit(EXIT_FAILURE);
  }

  const LaunchInfo* launch_ = nullptr;
  unsigned n_ = 0;
  std::vector<Fiber> fibers_;
  std::vector<Stack> stacks_;
  std::vector<std::unique_ptr<Warp>> warps_;
  std::vector<unsigned> queue_;
  unsigned head_ = 0;
  unsigned queued_ = 0;
  unsigned done_ = 0;
  Fiber* current_ = nullptr;
  Context scheduler_;
  unsigned cta_arrived_ = 0;
  unsigned cta_generation_ = 0;
  int cta_sum_[2] = {0, 0};
  Site cta_site_;
  std::vector<unsigned> cta_waiters_;
  static constexpr unsigned kNamedBarriers = 16;
  struct NamedBarrier {
    unsigned arrived = 0;
    unsigned expected = 0;
    std::vector<unsigned> waiters;
  };
  NamedBarrier named_[kNamedBarriers];
  struct EventWaiter {
    unsigned tid;
    const void* key;
  };
  std::vector<EventWaiter> event_waiters_;
  struct FreeDeleter {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char[], FreeDeleter> shared_;
  std::size_t shared_capacity_ = 0;
};

[[noreturn]] inline void fiber_main() noexcept {
  BlockRunner* runner = active_runner;
  runner->launch().invoke(runner->launch().closure);
  runner->finish_current();
}

inline BlockRunner& this_core_runner() {
  static thread_local BlockRunner runner;
  return runner;
}

inline void run_grid(const LaunchInfo& info) {
  const long long blocks = static_cast<long long>(info.grid.x) * info.grid.y * info.grid.z;
  if (info.grid_barrier) {
    // Cooperative: all blocks at once, one OS thread each.
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(blocks));
    for (long long b = 0; b < blocks; ++b)
      threads.emplace_back([&info, b] {
        this_core_runner().run(info, static_cast<unsigned long long>(b));
        info.grid_barrier->block_returned(info.kernel);
      });
    for (std::thread& t : threads) t.join();
    return;
  }
#pragma omp parallel for schedule(dynamic, 1) if (blocks > 1)
  for (long long b = 0; b < blocks; ++b) this_core_runner().run(info, static_cast<unsigned long long>(b));
}

}  // namespace detail

// The most blocks of a cooperative launch (each is an OS thread at once).
inline constexpr unsigned long long kMaxCooperativeBlocks = 1024;

// kernel<<<grid, block, shared_bytes>>>(args...), run on the CPU; with
// `cooperative`, as cudaLaunchCooperativeKernel runs it.
template <typename... P, typename... A>
void launch_with(bool cooperative, void (*kernel)(P...), const char* name, dim3 grid, dim3 block,
                 std::size_t shared_bytes, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "a kernel launch passes one argument per kernel parameter");
  const unsigned long long threads = static_cast<unsigned long long>(block.x) * block.y * block.z;
  if (threads == 0 || threads > kMaxThreadsPerBlock || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
      grid.y > 65535 || grid.z > 65535) {
    detail::fail(cudaErrorInvalidConfiguration);
    return;
  }
  if (shared_bytes > detail::max_dynamic_shared(reinterpret_cast<const void*>(kernel))) {
    detail::fail(cudaErrorInvalidValue);
    return;
  }
  struct Closure {
    void (*kernel)(P...);
    std::tuple<std::decay_t<P>...> args;
  };
  const Closure closure{kernel, std::tuple<std::decay_t<P>...>(static_cast<P>(std::forward<A>(args))...)};
  const unsigned long long blocks = static_cast<unsigned long long>(grid.x) * grid.y * grid.z;
  if (cooperative && blocks > kMaxCooperativeBlocks) {
    detail::fail(cudaErrorCooperativeLaunchTooLarge);
    return;
  }
  detail::GridBarrier barrier(blocks);
  const detail::LaunchInfo info{name, grid, block, shared_bytes,
                                [](const void* c) {
                                  const auto* self = static_cast<const Closure*>(c);
                                  std::apply(self->kernel, self->args);
                                },
                                &closure, cooperative ? &barrier : nullptr};
  detail::run_grid(info);
}

template <typename... P, typename... A>
void launch(void (*kernel)(P...), const char* name, dim3 grid, dim3 block, std::size_t shared_bytes,
            A&&... args) {
  launch_with(false, kernel, name, grid, block, shared_bytes, std::forward<A>(args)...);
}

template <typename... P, typename... A>
void launch_cooperative(void (*kernel)(P...), const char* name, dim3 grid, dim3 block, std::size_t shared_bytes,
                        A&&... args) {
  launch_with(true, kernel, name, grid, block, shared_bytes, std::forward<A>(args)...);
}

// The running block's dynamic shared memory.
inline unsigned char* dynamic_shared_memory() {
  return detail::active_runner ? detail::active_runner->shared_memory() : nullptr;
}

}  // namespace croq::cpu

// ---- barriers -----------------------------------------------------------------
// The call site (file and line, after #line) names the barrier in deadlock
// reports. Outside a kernel they do nothing.

inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (auto* r = croq::cpu::detail::active_runner) r->sync_block({"__syncthreads()", file, line});
}

inline int __syncthreads_count(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  auto* r = croq::cpu::detail::active_runner;
  return r ? r->sync_block({"__syncthreads_count()", file, line}, predicate != 0) : predicate != 0;
}

inline int __syncthreads_and(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  auto* r = croq::cpu::detail::active_runner;
  if (!r) return predicate != 0;
  return r->sync_block({"__syncthreads_and()", file, line}, predicate == 0) == 0;
}

inline int __syncthreads_or(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  auto* r = croq::cpu::detail::active_runner;
  return r ? r->sync_block({"__syncthreads_or()", file, line}, predicate != 0) != 0 : predicate != 0;
}

namespace croq {
// The grid-wide barrier of a cooperative launch (croq/device/fence.h): the
// block meets, its thread 0 waits for every other block, and the block
// meets again before it goes on.
inline void grid_sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  auto* r = cpu::detail::active_runner;
  if (!r) return;
  const cpu::detail::Site site{"croq::grid_sync()", file, line};
  cpu::detail::GridBarrier* grid = r->launch().grid_barrier;
  if (!grid) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "croq cpu runtime: croq::grid_sync() (%s:%d) in kernel `%s`, which was not launched cooperatively "
                 "(cudaLaunchCooperativeKernel)\n",
                 file, line, r->launch().kernel);
    std::_Exit(EXIT_FAILURE);
  }
  r->sync_block(site);
  if (r->current().tid == 0) grid->arrive_and_wait(r->launch().kernel);
  r->sync_block(site);
}
}  // namespace croq

inline void __syncwarp(unsigned mask = 0xFFFFFFFFu, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  if (auto* r = croq::cpu::detail::active_runner)
    r->warp_collective({"__syncwarp()", file, line}, mask, [](croq::cpu::detail::Warp&, unsigned) {});
}
