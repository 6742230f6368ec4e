// croq/types.h: the element types of the Croqtile language as C++ types, and
// conversions between them and f32.
//
// The names match the DSL (spec 4.2), all 29 of them: `croq::f16` is `__half`,
// `croq::bf16` is `__nv_bfloat16`, `f8_e4m3` / `f8_e5m2` come from
// <cuda_fp8.h> (`f8` is `f8_e4m3`), and the types CUDA lacks (sub-byte
// integers, fp6, fp4, the scale formats, tf32) from croq/narrow_types.h.
// Everything here is usable from host code compiled by g++ as well as from
// device code.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

#include "croq/config.h"
#include "croq/narrow_types.h"

namespace croq {

using s8 = std::int8_t;
using s16 = std::int16_t;
using s32 = std::int32_t;
using s64 = std::int64_t;
using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using f16 = __half;
using bf16 = __nv_bfloat16;
using f32 = float;
using f64 = double;
using f8_e4m3 = __nv_fp8_e4m3;
using f8_e5m2 = __nv_fp8_e5m2;
using f8 = f8_e4m3;

// True for the floating-point element types, including the ones that are not
// C++ arithmetic types (f16, bf16, fp8, fp6, fp4, the scale formats, tf32).
template <typename T>
inline constexpr bool is_floating_v =
    std::is_floating_point_v<T> || std::is_same_v<T, f16> || std::is_same_v<T, bf16> ||
    std::is_same_v<T, f8_e4m3> || std::is_same_v<T, f8_e5m2> || is_narrow_float_v<T>;

// True for the integer element types, the sub-byte ones included.
template <typename T>
inline constexpr bool is_integer_v = std::is_integral_v<T> || is_subbyte_int_v<T>;

// True for every element type.
template <typename T>
inline constexpr bool is_element_v = is_floating_v<T> || is_integer_v<T>;

// The DSL spelling of an element type ("f16", "s32", ...), for messages.
template <typename T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, s8>)
    return "s8";
  else if constexpr (std::is_same_v<T, s16>)
    return "s16";
  else if constexpr (std::is_same_v<T, s32>)
    return "s32";
  else if constexpr (std::is_same_v<T, s64>)
    return "s64";
  else if constexpr (std::is_same_v<T, u8>)
    return "u8";
  else if constexpr (std::is_same_v<T, u16>)
    return "u16";
  else if constexpr (std::is_same_v<T, u32>)
    return "u32";
  else if constexpr (std::is_same_v<T, u64>)
    return "u64";
  else if constexpr (std::is_same_v<T, f16>)
    return "f16";
  else if constexpr (std::is_same_v<T, bf16>)
    return "bf16";
  else if constexpr (std::is_same_v<T, f32>)
    return "f32";
  else if constexpr (std::is_same_v<T, f64>)
    return "f64";
  else if constexpr (std::is_same_v<T, f8_e4m3>)
    return "f8_e4m3";
  else if constexpr (std::is_same_v<T, f8_e5m2>)
    return "f8_e5m2";
  else if constexpr (std::is_same_v<T, u1>)
    return "u1";
  else if constexpr (std::is_same_v<T, bin1>)
    return "bin1";
  else if constexpr (std::is_same_v<T, s2>)
    return "s2";
  else if constexpr (std::is_same_v<T, u2>)
    return "u2";
  else if constexpr (std::is_same_v<T, s4>)
    return "s4";
  else if constexpr (std::is_same_v<T, u4>)
    return "u4";
  else if constexpr (std::is_same_v<T, s6>)
    return "s6";
  else if constexpr (std::is_same_v<T, u6>)
    return "u6";
  else if constexpr (std::is_same_v<T, tf32>)
    return "tf32";
  else if constexpr (std::is_same_v<T, f8_ue4m3>)
    return "f8_ue4m3";
  else if constexpr (std::is_same_v<T, f8_ue8m0>)
    return "f8_ue8m0";
  else if constexpr (std::is_same_v<T, f6_e3m2>)
    return "f6_e3m2";
  else if constexpr (std::is_same_v<T, f6_e2m3>)
    return "f6_e2m3";
  else if constexpr (std::is_same_v<T, f4_e2m1>)
    return "f4_e2m1";
  else if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else
    return "unknown";
}

// Converts any element type to f32 (integers by value, f64 rounded).
template <typename T>
CROQ_HOST_DEVICE float to_f32(T x) {
  if constexpr (std::is_same_v<T, f16>)
    return __half2float(x);
  else if constexpr (std::is_same_v<T, bf16>)
    return __bfloat162float(x);
  else if constexpr (is_subbyte_int_v<T>)
    return static_cast<float>(static_cast<int>(x));
  else
    return static_cast<float>(x);
}

namespace utils {

// Converts an f32 to any element type: round-to-nearest-even for f16/bf16,
// saturating round-to-nearest for fp8, fp6, fp4 and ue4m3, as
// croq/narrow_types.h says for ue8m0 and tf32, C++ conversion (truncation
// toward zero) for integers, saturating for the sub-byte ones.
template <typename T>
CROQ_HOST_DEVICE T from_f32(float f) {
  if constexpr (std::is_same_v<T, f16>)
    return __float2half_rn(f);
  else if constexpr (std::is_same_v<T, bf16>)
    return __float2bfloat16_rn(f);
  else if constexpr (std::is_same_v<T, f8_e4m3> || std::is_same_v<T, f8_e5m2> || is_narrow_float_v<T> ||
                     is_subbyte_int_v<T>)
    return T(f);
  else
    return static_cast<T>(f);
}

}  // namespace utils

// The K of one tensor-core instruction (an mma.sync atom or a wgmma) whose
// operands are T: 32 bytes of an operand row (k16 for 16-bit types, k32 for
// 8-bit ones). The compiler's target::mmaInstructionK is the same rule.
template <typename T>
inline constexpr int mma_instruction_k_v = 32 / static_cast<int>(sizeof(T));

// Croqtile's names of the 16-bit conversions.
CROQ_HOST_DEVICE float f16_to_f32(f16 x) { return __half2float(x); }
CROQ_HOST_DEVICE f16 f32_to_f16(float x) { return __float2half_rn(x); }
CROQ_HOST_DEVICE float bf16_to_f32(bf16 x) { return __bfloat162float(x); }
CROQ_HOST_DEVICE bf16 f32_to_bf16(float x) { return __float2bfloat16_rn(x); }

}  // namespace croq

// The runtime answers to both names (spec 3.6).
namespace choreo = croq;
