// croq/scalar.h: scalar helpers the generated code calls in host and device
// code alike: integer cdiv/min/max for index arithmetic, conversions between
// element types (`cvt<To>(x)`, through f32 for 16-bit and 8-bit floats), and
// infinity for `inf` literals.
#pragma once

#include <limits>
#include <cmath>
#include <type_traits>

#include "croq/types.h"

namespace croq {

// ceil(a / b) for a >= 0, b > 0 (spec 6.3).
CROQ_HOST_DEVICE constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }
CROQ_HOST_DEVICE constexpr int imin(int a, int b) { return a < b ? a : b; }
CROQ_HOST_DEVICE constexpr int imax(int a, int b) { return a > b ? a : b; }

CROQ_HOST_DEVICE float infinity() { return __builtin_huge_valf(); }

// Math builtins of spec 15.2 that are not plain C functions.
CROQ_HOST_DEVICE float rsqrt(float x) {
#if defined(__CUDA_ARCH__)
  return rsqrtf(x);
#else
  return 1.0f / sqrtf(x);
#endif
}
CROQ_HOST_DEVICE float rcp(float x) { return 1.0f / x; }
CROQ_HOST_DEVICE float sign(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }
CROQ_HOST_DEVICE float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
CROQ_HOST_DEVICE float softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }
// tanh approximation of GELU.
CROQ_HOST_DEVICE float gelu(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}
CROQ_HOST_DEVICE bool is_finite(float x) { return x - x == 0.0f; }
CROQ_HOST_DEVICE constexpr int alignup(int x, int a) { return (x + a - 1) / a * a; }
CROQ_HOST_DEVICE constexpr int aligndown(int x, int a) { return x / a * a; }

// Converts between element types and C++ arithmetic types. 16-bit and
// narrower floats go through f32 (round to nearest even on the way down);
// sub-byte integers convert as int (to them: the low bits of an integer, a
// floating value saturated).
template <typename To, typename From>
CROQ_HOST_DEVICE To cvt(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (is_subbyte_int_v<From>) {
    return cvt<To>(static_cast<int>(x));
  } else if constexpr (is_subbyte_int_v<To> && std::is_integral_v<From>) {
    return To(x);
  } else if constexpr (std::is_arithmetic_v<To> && std::is_arithmetic_v<From>) {
    return static_cast<To>(x);
  } else if constexpr (std::is_arithmetic_v<From>) {
    return utils::from_f32<To>(static_cast<float>(x));
  } else {
    return cvt<To>(to_f32(x));
  }
}

}  // namespace croq
