// croq/narrow_types.h: the element types of spec 4.2 that CUDA has no type
// for (or none that every toolkit and the CPU target share): the sub-byte
// integers `u1 bin1 s2 u2 s4 u4 s6 u6`, the 6- and 4-bit floats `f6_e3m2
// f6_e2m3 f4_e2m1`, the unsigned scale formats `f8_ue4m3 f8_ue8m0`, and
// `tf32`. One header for the GPU (host and device code) and the CPU target:
// the conversions are integer bit manipulation, so both give the same bits.
//
// Storage: one element per byte (`sizeof == 1`, the value in the low bits),
// `tf32` in 32 bits (an f32 whose low 13 mantissa bits are zero), as croqc
// lays out buffers (elementBytes: whole bytes, rounded up).
//
// Conversions, as Croqtile's runtime and CUDA's own narrow types do them:
//   sub-byte integers  from an integer: the low bits (wraps around, like a C++
//                      conversion to a narrower integer); from a floating value:
//                      truncated toward zero and saturated to the range; to
//                      `int` implicitly (sign-extended for s2/s4/s6); `++` and
//                      `--` wrap around the same way
//   fp6, fp4, ue4m3    from f32: round to nearest even, saturate to the largest
//                      finite value (`__NV_SATFINITE`); fp6/fp4 have no NaN, a
//                      NaN becomes the positive maximum; ue4m3 (e4m3 without a
//                      sign) takes negative values to 0 and NaN to 0x7F
//   ue8m0              2^(e - 127): from f32 the magnitude rounded up to a power
//                      of two (CUDA's `cudaRoundPosInf`), saturated to 2^127;
//                      0xFF is NaN
//   tf32               from f32: round to nearest, ties away from zero
//                      (`cvt.rna.tf32.f32`)
// Every type converts to float implicitly, so arithmetic is done in f32 (or
// in int for the integers) and host code can print and compare values.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "croq/config.h"

namespace croq {

namespace narrow {

CROQ_HOST_DEVICE std::uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

CROQ_HOST_DEVICE float bits_f32(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// 2^k as f32 for -149 <= k <= 127 (subnormal below -126).
CROQ_HOST_DEVICE float pow2(int k) {
  return k >= -126 ? bits_f32(static_cast<std::uint32_t>(k + 127) << 23) : bits_f32(1u << (k + 149));
}

// How a format spends its all-ones codes.
enum class Specials : std::uint8_t {
  FiniteOnly,  // fp6, fp4: every code is a number
  NanAllOnes,  // e4m3-like: only S.1111.111 is NaN, no infinity
};

// A float format with E exponent bits, M mantissa bits and a sign bit when
// Signed (bias 2^(E-1) - 1, subnormals when the exponent field is 0).
template <int E, int M, bool Signed, Specials S>
struct minifloat_format {
  static constexpr int bias = (1 << (E - 1)) - 1;
  static constexpr int emin = 1 - bias;  // exponent of the smallest normal
  static constexpr std::uint32_t magnitude_mask = (1u << (E + M)) - 1u;
  static constexpr std::uint32_t sign_bit = Signed ? 1u << (E + M) : 0u;
  static constexpr std::uint32_t nan_code = S == Specials::NanAllOnes ? magnitude_mask : 0u;
  static constexpr std::uint32_t max_code = S == Specials::NanAllOnes ? magnitude_mask - 1u : magnitude_mask;

  CROQ_HOST_DEVICE static float decode(std::uint8_t code) {
    const std::uint32_t c = code;
    const std::uint32_t mag = c & magnitude_mask;
    if (S == Specials::NanAllOnes && mag == nan_code) return bits_f32(0x7FC00000u);
    const int e = static_cast<int>(mag >> M);
    const int m = static_cast<int>(mag & ((1u << M) - 1u));
    const float v = e == 0 ? static_cast<float>(m) * pow2(emin - M)
                           : static_cast<float>(m + (1 << M)) * pow2(e - bias - M);
    return (c & sign_bit) ? -v : v;
  }

  // Round to nearest even, saturate to the largest finite value.
  CROQ_HOST_DEVICE static std::uint8_t encode(float f) {
    const std::uint32_t x = f32_bits(f);
    const std::uint32_t abs = x & 0x7FFFFFFFu;
    const bool negative = (x >> 31) != 0;
    if (abs > 0x7F800000u) return static_cast<std::uint8_t>(S == Specials::NanAllOnes ? nan_code : max_code);
    if (negative && !Signed) return 0;
    const std::uint32_t sign = negative ? sign_bit : 0u;
    if (abs >= f32_bits(decode(static_cast<std::uint8_t>(max_code))))
      return static_cast<std::uint8_t>(sign | max_code);
    const int fexp = static_cast<int>(abs >> 23);
    if (fexp == 0) return static_cast<std::uint8_t>(sign);  // f32 subnormals are far below every format here
    const int ex = fexp - 127;
    const std::uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
    int eq = ex < emin ? emin : ex;
    const int shift = 23 - M + (eq - ex);
    if (shift > 31) return static_cast<std::uint8_t>(sign);
    std::uint32_t q = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    if (q == (2u << M)) {  // rounded up into the next binade
      q >>= 1;
      ++eq;
    }
    std::uint32_t code = q < (1u << M) ? q : (static_cast<std::uint32_t>(eq + bias) << M) | (q - (1u << M));
    if (code > max_code) code = max_code;
    return static_cast<std::uint8_t>(sign | code);
  }
};

// The storage and conversions of a narrow float of format Format.
template <typename Format>
struct minifloat {
  std::uint8_t __x;

  minifloat() = default;
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  CROQ_HOST_DEVICE explicit minifloat(T v) : __x(Format::encode(static_cast<float>(v))) {}
  CROQ_HOST_DEVICE operator float() const { return Format::decode(__x); }

  CROQ_HOST_DEVICE static minifloat from_bits(std::uint8_t bits) {
    minifloat r;
    r.__x = bits;
    return r;
  }
  CROQ_HOST_DEVICE std::uint8_t bits() const { return __x; }
};

// An integer of Bits bits (1 <= Bits < 8) in one byte.
template <int Bits, bool Signed>
struct subbyte_int {
  static constexpr std::uint32_t mask = (1u << Bits) - 1u;
  static constexpr int max_value = Signed ? (1 << (Bits - 1)) - 1 : (1 << Bits) - 1;
  static constexpr int min_value = Signed ? -(1 << (Bits - 1)) : 0;

  std::uint8_t __x;

  subbyte_int() = default;
  // From an integer: its low Bits bits (wraps around).
  template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  CROQ_HOST_DEVICE subbyte_int(T v) : __x(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) & mask)) {}
  // From a floating value: truncated toward zero, saturated to the range.
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  CROQ_HOST_DEVICE explicit subbyte_int(T v) : subbyte_int(saturate(static_cast<float>(v))) {}

  // `++` and `--` wrap around, as the conversion from an integer does.
  CROQ_HOST_DEVICE subbyte_int& operator++() {
    __x = static_cast<std::uint8_t>((__x + 1u) & mask);
    return *this;
  }
  CROQ_HOST_DEVICE subbyte_int& operator--() {
    __x = static_cast<std::uint8_t>((__x - 1u) & mask);
    return *this;
  }
  CROQ_HOST_DEVICE subbyte_int operator++(int) {
    subbyte_int old = *this;
    ++*this;
    return old;
  }
  CROQ_HOST_DEVICE subbyte_int operator--(int) {
    subbyte_int old = *this;
    --*this;
    return old;
  }

  CROQ_HOST_DEVICE operator int() const {
    const int v = static_cast<int>(__x & mask);
    return Signed && (v & (1 << (Bits - 1))) ? v - (1 << Bits) : v;
  }

  CROQ_HOST_DEVICE static subbyte_int from_bits(std::uint8_t bits) {
    subbyte_int r;
    r.__x = static_cast<std::uint8_t>(bits & mask);
    return r;
  }
  CROQ_HOST_DEVICE std::uint8_t bits() const { return __x; }

 private:
  CROQ_HOST_DEVICE static int saturate(float f) {
    if (!(f == f)) return 0;
    if (f <= static_cast<float>(min_value)) return min_value;
    if (f >= static_cast<float>(max_value)) return max_value;
    return static_cast<int>(f);
  }
};

}  // namespace narrow

// The DSL's types. Each is its own C++ type (bin1 and u1 hold the same values
// but are different element types), so overloads and type_name() tell them
// apart.
#define CROQ_SUBBYTE_INT(Name, Bits, Signed)                    \
  struct Name : narrow::subbyte_int<Bits, Signed> {             \
    using narrow::subbyte_int<Bits, Signed>::subbyte_int;       \
    Name() = default;                                           \
    CROQ_HOST_DEVICE Name(narrow::subbyte_int<Bits, Signed> v) {  \
      this->__x = v.__x;                                        \
    }                                                           \
  };
CROQ_SUBBYTE_INT(u1, 1, false)
CROQ_SUBBYTE_INT(bin1, 1, false)
CROQ_SUBBYTE_INT(s2, 2, true)
CROQ_SUBBYTE_INT(u2, 2, false)
CROQ_SUBBYTE_INT(s4, 4, true)
CROQ_SUBBYTE_INT(u4, 4, false)
CROQ_SUBBYTE_INT(s6, 6, true)
CROQ_SUBBYTE_INT(u6, 6, false)
#undef CROQ_SUBBYTE_INT

#define CROQ_MINIFLOAT(Name, E, M, Signed, Specials)                                 \
  struct Name : narrow::minifloat<narrow::minifloat_format<E, M, Signed, Specials>> { \
    using format = narrow::minifloat_format<E, M, Signed, Specials>;                 \
    using narrow::minifloat<format>::minifloat;                                      \
    Name() = default;                                                                \
    CROQ_HOST_DEVICE Name(narrow::minifloat<format> v) { this->__x = v.__x; }         \
  };
CROQ_MINIFLOAT(f6_e3m2, 3, 2, true, narrow::Specials::FiniteOnly)
CROQ_MINIFLOAT(f6_e2m3, 2, 3, true, narrow::Specials::FiniteOnly)
CROQ_MINIFLOAT(f4_e2m1, 2, 1, true, narrow::Specials::FiniteOnly)
CROQ_MINIFLOAT(f8_ue4m3, 4, 3, false, narrow::Specials::NanAllOnes)
#undef CROQ_MINIFLOAT

// The unsigned power-of-two scale format of MX block scaling.
struct f8_ue8m0 {
  std::uint8_t __x;

  f8_ue8m0() = default;
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  CROQ_HOST_DEVICE explicit f8_ue8m0(T v) : __x(encode(static_cast<float>(v))) {}
  CROQ_HOST_DEVICE operator float() const { return __x == 0xFF ? narrow::bits_f32(0x7FC00000u) : narrow::pow2(__x - 127); }

  CROQ_HOST_DEVICE static f8_ue8m0 from_bits(std::uint8_t bits) {
    f8_ue8m0 r;
    r.__x = bits;
    return r;
  }
  CROQ_HOST_DEVICE std::uint8_t bits() const { return __x; }

 private:
  // |f| rounded up to a power of two, saturated to 2^127; 0 and values below
  // 2^-127 become 2^-127 (code 0).
  CROQ_HOST_DEVICE static std::uint8_t encode(float f) {
    const std::uint32_t abs = narrow::f32_bits(f) & 0x7FFFFFFFu;
    if (abs > 0x7F800000u) return 0xFF;
    if (abs >= 0x7F000000u) return 0xFE;  // >= 2^127 or infinity
    std::uint32_t e = abs >> 23;
    if (e == 0) return 0;  // below 2^-126 (f32 subnormal): 2^-127 is the nearest code at or above
    if ((abs & 0x7FFFFFu) != 0) ++e;
    return static_cast<std::uint8_t>(e);
  }
};

// TensorFloat-32: an f32 with 10 mantissa bits.
struct tf32 {
  float __v;

  tf32() = default;
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  CROQ_HOST_DEVICE tf32(T v) : __v(round(static_cast<float>(v))) {}
  CROQ_HOST_DEVICE operator float() const { return __v; }

 private:
  CROQ_HOST_DEVICE static float round(float f) {
    const std::uint32_t x = narrow::f32_bits(f);
    if ((x & 0x7F800000u) == 0x7F800000u) return f;  // infinity and NaN unchanged
    return narrow::bits_f32((x + 0x1000u) & 0xFFFFE000u);
  }
};

template <typename T>
inline constexpr bool is_subbyte_int_v =
    std::is_same_v<T, u1> || std::is_same_v<T, bin1> || std::is_same_v<T, s2> || std::is_same_v<T, u2> ||
    std::is_same_v<T, s4> || std::is_same_v<T, u4> || std::is_same_v<T, s6> || std::is_same_v<T, u6>;

template <typename T>
inline constexpr bool is_narrow_float_v = std::is_same_v<T, f6_e3m2> || std::is_same_v<T, f6_e2m3> ||
                                          std::is_same_v<T, f4_e2m1> || std::is_same_v<T, f8_ue4m3> ||
                                          std::is_same_v<T, f8_ue8m0> || std::is_same_v<T, tf32>;

}  // namespace croq
