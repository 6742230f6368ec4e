// croq/cpu/half.h: the 16-bit and 8-bit floating-point types of CUDA
// (`__half`, `__nv_bfloat16`, `__nv_fp8_e4m3`, `__nv_fp8_e5m2`) for host code
// compiled by g++ or clang++, with the conversions the croq runtime and
// `.co` host code use. It stands in for <cuda_fp16.h>, <cuda_bf16.h> and
// <cuda_fp8.h> when croqc builds for `--target=cpu`, so no CUDA toolkit is
// needed there.
//
// Conversions round like the GPU: f32 -> f16 and f32 -> bf16 round to nearest
// even (`__float2half_rn`, `__float2bfloat16_rn`; NaN becomes the canonical
// 0x7FFF), f32 -> fp8 rounds to nearest even and saturates to the largest
// finite value (`__NV_SATFINITE`, what the fp8 constructors do). Arithmetic
// on `__half` and `__nv_bfloat16` is done in f32 and rounded back, as the GPU
// does for a single operation.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace croq::cpu::detail {

inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// binary32 -> binary16, round to nearest even, subnormals kept.
inline std::uint16_t float_to_half_bits(float f) {
  const std::uint32_t x = float_bits(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return 0x7FFFu;                 // NaN
  if (abs >= 0x477FF000u) return sign | 0x7C00u;         // >= 65520 (or inf): inf
  if (abs < 0x38800000u) {                               // below 2^-14: subnormal or zero
    if (abs < 0x33000000u) return static_cast<std::uint16_t>(sign);  // below 2^-25: zero
    const std::uint32_t e = abs >> 23;
    const std::uint32_t m = (abs & 0x7FFFFFu) | 0x800000u;
    const std::uint32_t shift = 126u - e;                // 14 .. 24
    std::uint32_t r = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return static_cast<std::uint16_t>(sign | r);
  }
  std::uint32_t r = (abs - 0x38000000u) >> 13;           // rebias 127 -> 15
  const std::uint32_t rem = abs & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return static_cast<std::uint16_t>(sign | r);
}

inline float half_bits_to_float_slow(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1Fu;
  const std::uint32_t m = h & 0x3FFu;
  if (e == 0) {
    const float v = static_cast<float>(m) * 5.9604644775390625e-08f;  // m * 2^-24
    return sign ? -v : v;
  }
  if (e == 31) return bits_float(sign | 0x7F800000u | (m << 13));
  return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

// Every f16 value as f32, built once (the MMA emulation converts a lot).
inline const float* half_table() {
  static const float* table = [] {
    static float t[65536];
    for (std::uint32_t i = 0; i < 65536; ++i) t[i] = half_bits_to_float_slow(static_cast<std::uint16_t>(i));
    return t;
  }();
  return table;
}

inline float half_bits_to_float(std::uint16_t h) { return half_table()[h]; }

// binary32 -> bfloat16, round to nearest even.
inline std::uint16_t float_to_bf16_bits(float f) {
  const std::uint32_t x = float_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFFu;
  return static_cast<std::uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

inline float bf16_bits_to_float(std::uint16_t b) { return bits_float(static_cast<std::uint32_t>(b) << 16); }

// fp8 with E exponent bits and M mantissa bits (e4m3: no infinities, NaN is
// S.1111.111; e5m2: IEEE-like). Round to nearest even, saturate to the
// largest finite value, NaN to 0x7F.
template <int E, int M>
inline std::uint8_t float_to_fp8_bits(float f) {
  constexpr int bias = (1 << (E - 1)) - 1;
  constexpr double max_finite = E == 4 ? 448.0 : 57344.0;
  if (std::isnan(f)) return 0x7F;
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  double a = std::fabs(static_cast<double>(f));
  if (a >= max_finite) a = max_finite;
  if (a == 0.0) return sign;
  int exp = std::ilogb(a);
  if (exp < 1 - bias) exp = 1 - bias;                       // subnormal range
  const double quantum = std::ldexp(1.0, exp - M);
  double q = std::nearbyint(a / quantum);                   // round to nearest even
  if (q * quantum > max_finite) q = max_finite / quantum;
  if (q >= static_cast<double>(2 << M)) {                   // rounded up into the next binade
    ++exp;
    q /= 2;
  }
  const int qi = static_cast<int>(q);
  if (qi < (1 << M)) return static_cast<std::uint8_t>(sign | qi);  // subnormal (exp == 1 - bias)
  return static_cast<std::uint8_t>(sign | ((exp + bias) << M) | (qi - (1 << M)));
}

template <int E, int M>
inline float fp8_bits_to_float(std::uint8_t v) {
  constexpr int bias = (1 << (E - 1)) - 1;
  const bool neg = (v & 0x80) != 0;
  const int e = (v >> M) & ((1 << E) - 1);
  const int m = v & ((1 << M) - 1);
  float r;
  if (E == 4 && e == 15 && m == 7) return std::nanf("");
  if (E == 5 && e == 31) {
    if (m != 0) return std::nanf("");
    r = INFINITY;
  } else if (e == 0) {
    r = std::ldexp(static_cast<float>(m), 1 - bias - M);
  } else {
    r = std::ldexp(static_cast<float>(m + (1 << M)), e - bias - M);
  }
  return neg ? -r : r;
}

}  // namespace croq::cpu::detail

// ---- __half ---------------------------------------------------------------

struct __half_raw {
  unsigned short x;
};

struct __half {
  unsigned short __x;

  __half() = default;
  constexpr __half(__half_raw r) : __x(r.x) {}
  __half(float f) : __x(croq::cpu::detail::float_to_half_bits(f)) {}
  __half(double d) : __half(static_cast<float>(d)) {}
  __half(int i) : __half(static_cast<float>(i)) {}
  __half(unsigned i) : __half(static_cast<float>(i)) {}
  __half(long long i) : __half(static_cast<float>(i)) {}
  __half(unsigned long long i) : __half(static_cast<float>(i)) {}
  __half(short i) : __half(static_cast<float>(i)) {}
  __half(unsigned short i) : __half(static_cast<float>(i)) {}
  operator float() const { return croq::cpu::detail::half_bits_to_float(__x); }
  operator __half_raw() const { return {__x}; }
};

struct __half2 {
  __half x, y;
};

// The names without underscores that <cuda_fp16.h> gives them.
using half = __half;
using half2 = __half2;
using nv_half = __half;
using nv_half2 = __half2;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __double2half(double d) { return __half(static_cast<float>(d)); }
inline float __half2float(__half h) { return static_cast<float>(h); }
inline __half __int2half_rn(int i) { return __half(static_cast<float>(i)); }
inline int __half2int_rz(__half h) { return static_cast<int>(static_cast<float>(h)); }
inline __half __ushort_as_half(unsigned short u) { return __half_raw{u}; }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline __half2 __halves2half2(__half a, __half b) { return {a, b}; }
inline float __low2float(__half2 h) { return static_cast<float>(h.x); }
inline float __high2float(__half2 h) { return static_cast<float>(h.y); }

inline __half __hadd(__half a, __half b) { return __half(static_cast<float>(a) + static_cast<float>(b)); }
inline __half __hsub(__half a, __half b) { return __half(static_cast<float>(a) - static_cast<float>(b)); }
inline __half __hmul(__half a, __half b) { return __half(static_cast<float>(a) * static_cast<float>(b)); }
inline __half __hdiv(__half a, __half b) { return __half(static_cast<float>(a) / static_cast<float>(b)); }
inline __half __hneg(__half a) { return __half_raw{static_cast<unsigned short>(a.__x ^ 0x8000u)}; }
inline __half __habs(__half a) { return __half_raw{static_cast<unsigned short>(a.__x & 0x7FFFu)}; }
inline __half __hfma(__half a, __half b, __half c) {
  return __half(std::fma(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c)));
}
inline bool __hisnan(__half a) { return (a.__x & 0x7FFFu) > 0x7C00u; }

// ---- __nv_bfloat16 ----------------------------------------------------------

struct __nv_bfloat16_raw {
  unsigned short x;
};

struct __nv_bfloat16 {
  unsigned short __x;

  __nv_bfloat16() = default;
  constexpr __nv_bfloat16(__nv_bfloat16_raw r) : __x(r.x) {}
  __nv_bfloat16(float f) : __x(croq::cpu::detail::float_to_bf16_bits(f)) {}
  __nv_bfloat16(double d) : __nv_bfloat16(static_cast<float>(d)) {}
  __nv_bfloat16(int i) : __nv_bfloat16(static_cast<float>(i)) {}
  __nv_bfloat16(unsigned i) : __nv_bfloat16(static_cast<float>(i)) {}
  __nv_bfloat16(long long i) : __nv_bfloat16(static_cast<float>(i)) {}
  __nv_bfloat16(unsigned long long i) : __nv_bfloat16(static_cast<float>(i)) {}
  __nv_bfloat16(short i) : __nv_bfloat16(static_cast<float>(i)) {}
  __nv_bfloat16(unsigned short i) : __nv_bfloat16(static_cast<float>(i)) {}
  operator float() const { return croq::cpu::detail::bf16_bits_to_float(__x); }
  operator __nv_bfloat16_raw() const { return {__x}; }
};

struct __nv_bfloat162 {
  __nv_bfloat16 x, y;
};

// The names without underscores that <cuda_bf16.h> gives them.
using nv_bfloat16 = __nv_bfloat16;
using nv_bfloat162 = __nv_bfloat162;

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(static_cast<float>(d)); }
inline float __bfloat162float(__nv_bfloat16 b) { return static_cast<float>(b); }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __nv_bfloat16_raw{u}; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __nv_bfloat16(static_cast<float>(a) + static_cast<float>(b));
}
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __nv_bfloat16(static_cast<float>(a) * static_cast<float>(b));
}

// Operators in the spirit of cuda_fp16.hpp / cuda_bf16.hpp: compute in f32,
// round the result back to the 16-bit type.
#define CROQ_CPU_HALF_OPERATORS(T)                                                                   \
  inline T operator+(T a, T b) { return T(static_cast<float>(a) + static_cast<float>(b)); }          \
  inline T operator-(T a, T b) { return T(static_cast<float>(a) - static_cast<float>(b)); }          \
  inline T operator*(T a, T b) { return T(static_cast<float>(a) * static_cast<float>(b)); }          \
  inline T operator/(T a, T b) { return T(static_cast<float>(a) / static_cast<float>(b)); }          \
  inline T operator-(T a) { return T(-static_cast<float>(a)); }                                     \
  inline T& operator+=(T& a, T b) { return a = a + b; }                                             \
  inline T& operator-=(T& a, T b) { return a = a - b; }                                             \
  inline T& operator*=(T& a, T b) { return a = a * b; }                                             \
  inline T& operator/=(T& a, T b) { return a = a / b; }                                             \
  inline bool operator==(T a, T b) { return static_cast<float>(a) == static_cast<float>(b); }       \
  inline bool operator!=(T a, T b) { return static_cast<float>(a) != static_cast<float>(b); }       \
  inline bool operator<(T a, T b) { return static_cast<float>(a) < static_cast<float>(b); }         \
  inline bool operator<=(T a, T b) { return static_cast<float>(a) <= static_cast<float>(b); }       \
  inline bool operator>(T a, T b) { return static_cast<float>(a) > static_cast<float>(b); }         \
  inline bool operator>=(T a, T b) { return static_cast<float>(a) >= static_cast<float>(b); }
CROQ_CPU_HALF_OPERATORS(__half)
CROQ_CPU_HALF_OPERATORS(__nv_bfloat16)
#undef CROQ_CPU_HALF_OPERATORS

// ---- fp8 --------------------------------------------------------------------

using __nv_fp8_storage_t = unsigned char;

enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE };
enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 };

template <int E, int M>
struct croq_cpu_fp8 {
  __nv_fp8_storage_t __x;

  croq_cpu_fp8() = default;
  explicit croq_cpu_fp8(float f) : __x(croq::cpu::detail::float_to_fp8_bits<E, M>(f)) {}
  explicit croq_cpu_fp8(double d) : croq_cpu_fp8(static_cast<float>(d)) {}
  explicit croq_cpu_fp8(__half h) : croq_cpu_fp8(static_cast<float>(h)) {}
  explicit croq_cpu_fp8(__nv_bfloat16 b) : croq_cpu_fp8(static_cast<float>(b)) {}
  explicit croq_cpu_fp8(int i) : croq_cpu_fp8(static_cast<float>(i)) {}
  explicit operator float() const { return croq::cpu::detail::fp8_bits_to_float<E, M>(__x); }
  explicit operator double() const { return static_cast<float>(*this); }
  explicit operator __half() const { return __half(static_cast<float>(*this)); }
  explicit operator __nv_bfloat16() const { return __nv_bfloat16(static_cast<float>(*this)); }
};

using __nv_fp8_e4m3 = croq_cpu_fp8<4, 3>;
using __nv_fp8_e5m2 = croq_cpu_fp8<5, 2>;

inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float f, __nv_saturation_t, __nv_fp8_interpretation_t kind) {
  return kind == __NV_E4M3 ? croq::cpu::detail::float_to_fp8_bits<4, 3>(f)
                           : croq::cpu::detail::float_to_fp8_bits<5, 2>(f);
}
