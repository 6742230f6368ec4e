// croq/cpu/fiber.h: the execution contexts that the CPU emulation runs GPU
// threads on. Every thread of a CTA is a fiber: its own stack and saved
// registers, switched to and from cooperatively (croq/cpu/launch.h decides
// when: at barriers and warp-collective operations).
//
//   Context          the saved state of a fiber, or of the scheduler that runs them
//   Stack            an mmap'ed fiber stack with a guard page below it
//   start_context    prepares a Context to run entry() on a Stack
//   switch_context   saves the running context into `from` and resumes `to`
//
// On x86-64 a switch saves the callee-saved registers, the SSE and x87
// control words and the stack pointer, and costs a few nanoseconds; other
// platforms use ucontext (swapcontext), which is correct but slower.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace croq::cpu::detail {

#if defined(__x86_64__)

struct Context {
  void* sp = nullptr;
};

// switch_context(from, to): pushes the callee-saved registers and the
// MXCSR / x87 control words on the current stack, stores the stack pointer
// in from->sp, loads to->sp and pops the same frame there.
[[gnu::naked, gnu::noinline]] inline void switch_stack(void** /*save_sp*/, void* /*load_sp*/) {
  asm volatile(
      "pushq %rbp\n\t"
      "pushq %rbx\n\t"
      "pushq %r12\n\t"
      "pushq %r13\n\t"
      "pushq %r14\n\t"
      "pushq %r15\n\t"
      "subq $8, %rsp\n\t"
      "stmxcsr (%rsp)\n\t"
      "fnstcw 4(%rsp)\n\t"
      "movq %rsp, (%rdi)\n\t"
      "movq %rsi, %rsp\n\t"
      "ldmxcsr (%rsp)\n\t"
      "fldcw 4(%rsp)\n\t"
      "addq $8, %rsp\n\t"
      "popq %r15\n\t"
      "popq %r14\n\t"
      "popq %r13\n\t"
      "popq %r12\n\t"
      "popq %rbx\n\t"
      "popq %rbp\n\t"
      "ret\n\t");
}

inline void switch_context(Context& from, Context& to) { switch_stack(&from.sp, to.sp); }

// Lays out the frame switch_stack pops so that its `ret` enters `entry` as if
// it had been called (stack 16-byte aligned at the call, a null return
// address above it: entry must never return).
inline void start_context(Context& c, char* stack_lo, std::size_t size, void (*entry)()) {
  auto top = reinterpret_cast<std::uintptr_t>(stack_lo + size) & ~std::uintptr_t(15);
  auto* slot = reinterpret_cast<std::uint64_t*>(top);
  *--slot = 0;                                          // return address of entry (none)
  *--slot = reinterpret_cast<std::uint64_t>(entry);     // popped by `ret`
  for (int i = 0; i < 6; ++i) *--slot = 0;              // rbp rbx r12 r13 r14 r15
  std::uint32_t mxcsr;
  std::uint16_t fpucw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpucw));
  *--slot = static_cast<std::uint64_t>(mxcsr) | (static_cast<std::uint64_t>(fpucw) << 32);
  c.sp = slot;
}

#else

struct Context {
  ucontext_t uc;
};

inline void switch_context(Context& from, Context& to) { swapcontext(&from.uc, &to.uc); }

inline void start_context(Context& c, char* stack_lo, std::size_t size, void (*entry)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack_lo;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}

#endif

// A fiber stack: `size` usable bytes above one inaccessible guard page, so
// that an overflow faults instead of corrupting a neighbour. Pages are
// committed only when touched.
class Stack {
 public:
  Stack() = default;
  explicit Stack(std::size_t size) {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    size_ = (size + page_ - 1) / page_ * page_;
    void* p = mmap(nullptr, size_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                   0);
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "croq cpu runtime: cannot allocate a %zu-byte thread stack\n", size_);
      std::exit(EXIT_FAILURE);
    }
    mprotect(p, page_, PROT_NONE);
    base_ = static_cast<char*>(p);
  }
  ~Stack() {
    if (base_) munmap(base_, size_ + page_);
  }
  Stack(Stack&& o) noexcept : base_(o.base_), size_(o.size_), page_(o.page_) { o.base_ = nullptr; }
  Stack& operator=(Stack&& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(size_, o.size_);
    std::swap(page_, o.page_);
    return *this;
  }
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;

  char* lo() const { return base_ + page_; }
  std::size_t size() const { return size_; }

 private:
  char* base_ = nullptr;
  std::size_t size_ = 0;
  std::size_t page_ = 0;
};

// Bytes of stack per GPU thread: $CROQ_CPU_STACK_KB kilobytes, default 256.
inline std::size_t fiber_stack_bytes() {
  static const std::size_t bytes = [] {
    const char* env = std::getenv("CROQ_CPU_STACK_KB");
    long kb = env ? std::strtol(env, nullptr, 10) : 0;
    return static_cast<std::size_t>(kb > 16 ? kb : 256) * 1024;
  }();
  return bytes;
}

}  // namespace croq::cpu::detail
