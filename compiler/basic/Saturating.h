// Integer arithmetic that clamps instead of wrapping, for sizes computed from
// user-written constants (a buffer's element count, its bytes): a product too
// large for int64 becomes INT64_MAX, which every capacity check then rejects
// with the value it was given.
#pragma once

#include <cstdint>
#include <limits>

namespace croqc {

/// a * b, clamped to the int64 range.
inline std::int64_t saturatingMul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return ((a < 0) != (b < 0)) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

/// a + b, clamped to the int64 range.
inline std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b < 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

}  // namespace croqc
