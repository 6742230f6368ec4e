// The `.co` builtins that generated code calls by their Croqtile names, for
// the GPU (nvcc) and the CPU runtime alike: atomics on a data element
// (spec 15.3: `__atomic_add(c.at(i), v)` returns the old value) and named
// barriers (spec 10.4: `__bar_sync(id, n)`, `__bar_arrive(id, n)`); and the
// allocation of a thread's local buffer of run-time size (spec 5.4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#if !defined(__CUDACC__)
#include <alloca.h>
#endif

#if defined(__CUDACC__)
#define CROQ_BUILTIN __device__ __forceinline__
#else
#define CROQ_BUILTIN inline
#endif

namespace croq::detail {

/// The type CUDA's atomic functions take for an element of type T: the
/// fixed-width integers by size (CUDA has `int`, `unsigned`, `long long` and
/// `unsigned long long` overloads), floating types as they are.
template <typename T>
using atomic_word_t = std::conditional_t<
    std::is_integral_v<T>,
    std::conditional_t<sizeof(T) == 8, std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>,
                       std::conditional_t<std::is_signed_v<T>, int, unsigned>>,
    T>;

template <typename T>
CROQ_BUILTIN atomic_word_t<T>* atomic_word(T& target) {
  static_assert(sizeof(atomic_word_t<T>) == sizeof(T), "no atomic of this element type");
  return reinterpret_cast<atomic_word_t<T>*>(&target);
}

}  // namespace croq::detail

// One function per builtin; `value` converts to the element's type first.
#define CROQ_ATOMIC_BUILTIN(NAME, CUDA_FN)                                                   \
  template <typename T, typename V>                                                         \
  CROQ_BUILTIN T NAME(T& target, V value) {                                                 \
    using W = croq::detail::atomic_word_t<T>;                                               \
    return static_cast<T>(CUDA_FN(croq::detail::atomic_word(target), static_cast<W>(value))); \
  }
CROQ_ATOMIC_BUILTIN(__atomic_add, atomicAdd)
CROQ_ATOMIC_BUILTIN(__atomic_sub, atomicSub)
CROQ_ATOMIC_BUILTIN(__atomic_exch, atomicExch)
CROQ_ATOMIC_BUILTIN(__atomic_min, atomicMin)
CROQ_ATOMIC_BUILTIN(__atomic_max, atomicMax)
CROQ_ATOMIC_BUILTIN(__atomic_and, atomicAnd)
CROQ_ATOMIC_BUILTIN(__atomic_or, atomicOr)
CROQ_ATOMIC_BUILTIN(__atomic_xor, atomicXor)
#undef CROQ_ATOMIC_BUILTIN

template <typename T, typename C, typename V>
CROQ_BUILTIN T __atomic_cas(T& target, C compare, V value) {
  using W = croq::detail::atomic_word_t<T>;
  return static_cast<T>(atomicCAS(croq::detail::atomic_word(target), static_cast<W>(compare), static_cast<W>(value)));
}

// Named barriers: `bar.sync id, n` waits until n threads (a multiple of 32)
// reached barrier id; `bar.arrive id, n` counts toward it without waiting.
CROQ_BUILTIN void __bar_sync(std::uint32_t id, std::uint32_t thread_count) {
  croq::named_barrier_sync(id, thread_count);
}
CROQ_BUILTIN void __bar_arrive(std::uint32_t id, std::uint32_t thread_count) {
  croq::named_barrier_arrive(id, thread_count);
}

namespace croq::detail {

/// The bytes to allocate for `count` elements of `size` bytes, 16-byte
/// aligned (none for a count that is not positive).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline std::size_t runtime_local_bytes(std::size_t size, long long count) {
  return (count > 0 ? static_cast<std::size_t>(count) * size : 0) + 15;
}

}  // namespace croq::detail

namespace croq {

// After the message of a `.co` `assert` whose condition is false at run time
// (spec 15.5): the program exits with status 1; a GPU thread traps,
// which fails the launch (the wrapper's next CUDA check reports it). Typed
// as an int for the generated expression statement; it does not return.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline int assertion_failed() {
#if defined(__CUDA_ARCH__)
  __trap();
#elif defined(CROQ_CPU_RUNTIME)
  // A CPU-target thread runs on a fiber, under which the exit handlers and
  // destructors of std::exit cannot run: flush and leave at once.
  std::fflush(nullptr);
  std::_Exit(EXIT_FAILURE);
#else
  std::fflush(stdout);
  std::exit(EXIT_FAILURE);
#endif
  return 0;
}

}  // namespace croq

// A thread's local buffer of `count` elements of T, `count` known only when
// the kernel starts: on the thread's stack, 16-byte aligned, until the kernel
// returns. Generated kernels allocate such buffers at their top, once per
// thread; the host wrapper has made the stack large enough
// (croq::reserve_thread_stack).
#define CROQ_RUNTIME_LOCAL(T, count)                                                                     \
  reinterpret_cast<T*>(                                                                                  \
      (reinterpret_cast<std::uintptr_t>(alloca(croq::detail::runtime_local_bytes(sizeof(T), (count)))) + \
       15) &                                                                                             \
      ~std::uintptr_t(15))

#undef CROQ_BUILTIN
