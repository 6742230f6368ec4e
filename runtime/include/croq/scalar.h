// croq/scalar.h: scalar helpers the generated code calls in host and device
// code alike: integer cdiv/min/max for index arithmetic, conversions between
// element types (`cvt<To>(x)`, through f32 for 16-bit and 8-bit floats), and
// infinity for `inf` literals.
#pragma once

#include <limits>
#include <type_traits>

#include "croq/types.h"

namespace croq {

// ceil(a / b) for a >= 0, b > 0 (spec 6.3).
CROQ_HOST_DEVICE constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }
CROQ_HOST_DEVICE constexpr int imin(int a, int b) { return a < b ? a : b; }
CROQ_HOST_DEVICE constexpr int imax(int a, int b) { return a > b ? a : b; }

CROQ_HOST_DEVICE float infinity() { return __builtin_huge_valf(); }

// Converts between element types and C++ arithmetic types. 16-bit and 8-bit
// floats go through f32 (round to nearest even on the way down).
template <typename To, typename From>
CROQ_HOST_DEVICE To cvt(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_arithmetic_v<To> && std::is_arithmetic_v<From>) {
    return static_cast<To>(x);
  } else if constexpr (std::is_arithmetic_v<From>) {
    return utils::from_f32<To>(static_cast<float>(x));
  } else {
    return cvt<To>(to_f32(x));
  }
}

}  // namespace croq
