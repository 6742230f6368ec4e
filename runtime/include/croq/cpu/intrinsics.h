// croq/cpu/intrinsics.h: CUDA device functions that `__device__` code and
// `__cpp__` blocks commonly call, for `--target=cpu`.
//
//   warp       __shfl_sync / __shfl_up_sync / __shfl_down_sync / __shfl_xor_sync,
//              __ballot_sync, __all_sync, __any_sync, __activemask
//              (warp-collective: every lane named by the mask must reach them)
//   atomics    atomicAdd / Sub / Exch / Min / Max / And / Or / Xor / CAS / Inc / Dec
//              (real atomics: blocks may run on several cores at once)
//   fences     __threadfence, __threadfence_block, __threadfence_system
//   math       rsqrtf, fast-math intrinsics (__expf, __fdividef, ...), rounding
//              conversions, bit operations, min / max on integers
//   memory     __ldg
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "croq/cpu/half.h"
#include "croq/cpu/launch.h"

namespace croq::cpu::detail {

// A shuffle: every participating lane publishes `value`, then reads the one
// of lane src_of(lane) (its own when that lane does not exist).
template <typename T, typename SrcOf>
T shuffle(const Site& site, unsigned mask, T value, SrcOf src_of) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kLaneBytes, "a shuffled value is at most 64 bytes");
  BlockRunner* r = active_runner;
  if (!r) return value;
  Warp& w = r->current_warp();
  const unsigned lane = r->current_lane();
  const unsigned slot = w.generation & 1;
  std::memcpy(w.in[slot][lane], &value, sizeof(T));
  r->warp_collective(site, mask, [](Warp&, unsigned) {});
  const unsigned src = src_of(lane);
  if (src >= 32 || !((w.present >> src) & 1u)) return value;
  T result;
  std::memcpy(&result, w.in[slot][src], sizeof(T));
  return result;
}

// The lanes of `mask` whose predicate is true.
inline unsigned vote(const Site& site, unsigned mask, bool predicate) {
  BlockRunner* r = active_runner;
  if (!r) return predicate ? 1u : 0u;
  Warp& w = r->current_warp();
  const unsigned lane = r->current_lane();
  const unsigned slot = w.generation & 1;
  w.in[slot][lane][0] = predicate ? 1 : 0;
  r->warp_collective(site, mask, [](Warp&, unsigned) {});
  unsigned bits = 0;
  const unsigned lanes = (mask | (1u << lane)) & w.present;
  for (unsigned l = 0; l < 32; ++l)
    if (((lanes >> l) & 1u) && w.in[slot][l][0]) bits |= 1u << l;
  return bits;
}

inline unsigned lane_of_current() { return active_runner ? active_runner->current_lane() : 0; }

}  // namespace croq::cpu::detail

// ---- warp -----------------------------------------------------------------------

template <typename T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32, const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) {
  return croq::cpu::detail::shuffle({"__shfl_sync()", file, line}, mask, var, [&](unsigned lane) {
    return (lane & ~static_cast<unsigned>(width - 1)) | (static_cast<unsigned>(src_lane) & (width - 1));
  });
}

template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  return croq::cpu::detail::shuffle({"__shfl_up_sync()", file, line}, mask, var, [&](unsigned lane) {
    return (lane & (width - 1)) < delta ? lane : lane - delta;
  });
}

template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32, const char* file = __builtin_FILE(),
                   int line = __builtin_LINE()) {
  return croq::cpu::detail::shuffle({"__shfl_down_sync()", file, line}, mask, var, [&](unsigned lane) {
    return (lane & (width - 1)) + delta >= static_cast<unsigned>(width) ? lane : lane + delta;
  });
}

template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE()) {
  return croq::cpu::detail::shuffle({"__shfl_xor_sync()", file, line}, mask, var, [&](unsigned lane) {
    const unsigned src = lane ^ static_cast<unsigned>(lane_mask);
    return src >= (lane / width + 1) * width ? lane : src;
  });
}

inline unsigned __ballot_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  return croq::cpu::detail::vote({"__ballot_sync()", file, line}, mask, predicate != 0);
}

inline int __any_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return croq::cpu::detail::vote({"__any_sync()", file, line}, mask, predicate != 0) != 0;
}

inline int __all_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  auto* r = croq::cpu::detail::active_runner;
  const unsigned lanes = r ? (mask | (1u << r->current_lane())) & r->current_warp().present : 1u;
  return croq::cpu::detail::vote({"__all_sync()", file, line}, mask, predicate != 0) == lanes;
}

inline unsigned __activemask() {
  auto* r = croq::cpu::detail::active_runner;
  return r ? r->current_warp().present : 1u;
}

// ---- fences ---------------------------------------------------------------------

inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// ---- atomics ----------------------------------------------------------------------

#define CROQ_CPU_ATOMIC_INT(T)                                                                             \
  inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }                    \
  inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }                    \
  inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }                  \
  inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }                    \
  inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }                      \
  inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }                    \
  inline T atomicCAS(T* p, T expected, T desired) {                                                       \
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
    return expected;                                                                                      \
  }                                                                                                       \
  inline T atomicMin(T* p, T v) {                                                                         \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                         \
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) \
      ;                                                                                                   \
    return old;                                                                                           \
  }                                                                                                       \
  inline T atomicMax(T* p, T v) {                                                                         \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                         \
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) \
      ;                                                                                                   \
    return old;                                                                                           \
  }
CROQ_CPU_ATOMIC_INT(int)
CROQ_CPU_ATOMIC_INT(unsigned)
CROQ_CPU_ATOMIC_INT(long long)
CROQ_CPU_ATOMIC_INT(unsigned long long)
#undef CROQ_CPU_ATOMIC_INT

#define CROQ_CPU_ATOMIC_FLOAT(T)                                                                     \
  inline T atomicAdd(T* p, T v) {                                                                   \
    T old, desired;                                                                                 \
    __atomic_load(p, &old, __ATOMIC_SEQ_CST);                                                       \
    do {                                                                                            \
      desired = old + v;                                                                            \
    } while (!__atomic_compare_exchange(p, &old, &desired, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)); \
    return old;                                                                                     \
  }                                                                                                 \
  inline T atomicExch(T* p, T v) {                                                                  \
    T old;                                                                                          \
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);                                               \
    return old;                                                                                     \
  }
CROQ_CPU_ATOMIC_FLOAT(float)
CROQ_CPU_ATOMIC_FLOAT(double)
#undef CROQ_CPU_ATOMIC_FLOAT

// atomicInc / atomicDec: wrap at `limit` as on the GPU.
inline unsigned atomicInc(unsigned* p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1, true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST))
    ;
  return old;
}
inline unsigned atomicDec(unsigned* p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(p, &old, (old == 0 || old > limit) ? limit : old - 1, true,
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
    ;
  return old;
}

// ---- math -------------------------------------------------------------------------

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fmaf_rn(float x, float y, float z) { return std::fma(x, y, z); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline unsigned __float_as_uint(float x) { return croq::cpu::detail::float_bits(x); }
inline float __uint_as_float(unsigned x) { return croq::cpu::detail::bits_float(x); }
inline int __float_as_int(float x) { return static_cast<int>(croq::cpu::detail::float_bits(x)); }
inline float __int_as_float(int x) { return croq::cpu::detail::bits_float(static_cast<unsigned>(x)); }

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}

// CUDA's global integer min / max (device code calls them unqualified).
#define CROQ_CPU_MINMAX(T)                          \
  inline T min(T a, T b) { return b < a ? b : a; } \
  inline T max(T a, T b) { return a < b ? b : a; }
CROQ_CPU_MINMAX(int)
CROQ_CPU_MINMAX(unsigned)
CROQ_CPU_MINMAX(long long)
CROQ_CPU_MINMAX(unsigned long long)
#undef CROQ_CPU_MINMAX

template <typename T>
T __ldg(const T* p) {
  return *p;
}
