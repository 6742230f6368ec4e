// croq/device/mma_layout.h: the register layout of a warp's `mma.sync`
// operands as data and index functions that compile for host and device, so
// that the GPU wrappers (croq/device/mma_tile.h) and the CPU emulation
// (croq/cpu/device.h) hold the same elements in the same registers: the
// fragment types, the coordinates of each element, and the element-wise,
// bounds-checked loads of A, B and C atoms.
//
// An atom is mMn8kK, named here by M (16 or 8) and KBytes, the bytes of K in
// one row of A: 32 (m16n8k16 f16/bf16, m16n8k32 s8/u8/e4m3/e5m2, m16n8k8
// tf32), 16 (m16n8k8 f16/bf16, m16n8k16 s8/u8, m16n8k4 tf32, m8n8k16 s8/u8)
// or 8 (m8n8k4 f16). Each row is from the PTX ISA's tables ("Matrix Fragments
// for mma.m16n8k16", "mma.m16n8k8", "mma.m16n8k32", "mma.m8n8k16",
// "mma.m8n8k4"). With g = lane / 4 (groupID), t = lane % 4
// (threadID_in_group), P = 4 / sizeof(T) elements per 32-bit register and
// R = M / 8 row blocks, for KBytes 16 and 32 lane `lane` holds
//
//   A element e (register r = e / P, lowest bits first; M / 8 * KBytes / 16
//   registers):
//     row = g + 8 * (r % R),   col = P * t + e % P + 4P * (r / R)
//   B element e (register r = e / P; KBytes / 16 registers):
//     row (k) = P * t + e % P + 4P * r,   col (n) = g
//   C/D element e (M / 4 of them; f32 / s32: r[e]; f16: register e / 2, low
//   half = even e):
//     row = g + 8 * (e / 2),   col = 2 * t + e % 2
//
// For 16-bit operands of m16n8k16 (P = 2) A element e is at row
// g + 8 * ((e / 2) % 2), column 2t + e % 2 + 8 * (e / 4); for tf32 (P = 1) of
// m16n8k8, row g + 8 * (e % 2), column t + 4 * (e / 2).
//
// m8n8k4 (KBytes 8, f16 only) is four independent 8x8x4 products, one per
// quad pair (lanes 4q..4q+3 and 4q+16..4q+19); croq gives every quad pair the
// same operands. With q = lane % 4 + 4 * (lane / 16), the row of the quad
// pair this lane holds (A `.row`, B `.col`, as the instruction is issued):
//   A element e (0..3, 2 registers): row = q, col = e
//   B element e (0..3, 2 registers): row (k) = e, col (n) = q
//   C/D f16 element e (0..7, 4 registers): row = q, col = e
//   C/D f32 element e (0..7): row = (lane & 1) + (e & 2) + 4 * (lane / 16),
//                             col = (e & 4) + (lane & 2) + (e & 1)
//
// 2:4 sparse atoms (mma.sp.sync) are named by the bytes of K in a row of the
// dense A and of B: 32 (m16n8k16 f16/bf16) or 64 (m16n8k32 f16/bf16,
// m16n8k64 e4m3/e5m2). A holds the packed [16, K/2] rows (two kept elements
// per group of four, in order) in the layout of the dense atom of half the
// bytes, frag_a_t<16, KBytes / 2>; B is the dense K x 8, frag_b_t<16, KBytes>
// (the formula above, 4 registers for 64 bytes). The metadata is one u32 per
// lane, eight nibbles, nibble n of lane (g, t) describing group `group` of row
// `row` (sp_meta_nibble): bits 0-1 the column in the group of the first kept
// element, bits 2-3 of the second.
//   m16n8k16:  row = g + 8 * (n / 4), group = n % 4; the instruction reads
//              lane t = 0 of each quad (sparsity selector 0)
//   m16n8k32:  row = g + 8 * (n / 4), group = 4t + n % 4; lanes t = 0, 1
//   m16n8k64:  row = g + 8 * (t % 2), group = 8 * (t / 2) + n; every lane
// In memory (the u32 words `SparsePolicy` / `SparsePolicyK32` write) group q
// of a row is nibble q % 8 of word q / 8 of the atom's columns.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "croq/types.h"

namespace croq {
namespace mma {

// ---- atom geometry ------------------------------------------------------------

template <int M, int KBytes>
struct atom_shape {
  static_assert((M == 16 && (KBytes == 16 || KBytes == 32 || KBytes == 64)) ||
                    (M == 8 && (KBytes == 8 || KBytes == 16)),
                "mma.sync atoms are m16 with 16 or 32 bytes of K (64: the B of a sparse atom), m8n8k16 (8-bit) "
                "or m8n8k4 (f16)");
  // m8n8k4: four quad pairs, each its own 8x8x4 product.
  static constexpr bool quad_pair = KBytes == 8;
  static constexpr int a_regs = quad_pair ? 2 : M / 8 * (KBytes / 16);
  static constexpr int b_regs = quad_pair ? 2 : KBytes / 16;
  static constexpr int c_elems = quad_pair ? 8 : M / 4;
};

// Whether mma<InT> has an instruction for these operand, accumulator and atom
// types (the static_assert of mma and of the CPU emulation).
template <typename InT, typename AccT, int M, int KB>
inline constexpr bool has_instruction_v =
    KB == 8    ? std::is_same_v<InT, f16> && (std::is_same_v<AccT, f16> || std::is_same_v<AccT, float>)
    : std::is_same_v<AccT, s32> ? (std::is_same_v<InT, s8> || std::is_same_v<InT, u8>)
    : M != 16  ? false
    : std::is_same_v<AccT, f16> ? std::is_same_v<InT, f16>
    : std::is_same_v<AccT, float>
        ? (std::is_same_v<InT, f16> || std::is_same_v<InT, bf16> || std::is_same_v<InT, float> ||
           (KB == 32 && (std::is_same_v<InT, f8_e4m3> || std::is_same_v<InT, f8_e5m2>)))
        : false;

// Whether mma_sp<InT> has a sparse instruction (m16n8k16 / m16n8k32 on f16 and
// bf16, m16n8k64 on e4m3 / e5m2: KB = 32 or 64 bytes of dense K).
template <typename InT, typename AccT, int KB>
inline constexpr bool has_sparse_instruction_v =
    (KB == 32 || KB == 64) &&
    (std::is_same_v<InT, f16> ? (std::is_same_v<AccT, float> || std::is_same_v<AccT, f16>)
     : std::is_same_v<InT, bf16> ? std::is_same_v<AccT, float>
                                 : KB == 64 && (std::is_same_v<InT, f8_e4m3> || std::is_same_v<InT, f8_e5m2>) &&
                                       std::is_same_v<AccT, float>);

// ---- fragments --------------------------------------------------------------

// Operand A (M x K, row-major view).
template <int M = 16, int KBytes = 32>
struct frag_a_t {
  std::uint32_t r[atom_shape<M, KBytes>::a_regs];
};
// Operand B (K x 8, column-major view).
template <int M = 16, int KBytes = 32>
struct frag_b_t {
  std::uint32_t r[atom_shape<M, KBytes>::b_regs];
};
// The m16n8 atoms of 32 bytes of K (the ldmatrix and WGMMA RS forms).
using frag_a = frag_a_t<>;
using frag_b = frag_b_t<>;

// Accumulator C/D of E elements (M x 8: E = M / 4; m8n8k4: 8): f32 or s32
// values, or f16 pairs packed in u32.
template <typename AccT, int E = 4>
struct frag_c;
template <int E>
struct frag_c<float, E> {
  static constexpr int elems = E;
  float r[E];
};
template <int E>
struct frag_c<f16, E> {
  static constexpr int elems = E;
  std::uint32_t r[E / 2];
};
template <int E>
struct frag_c<s32, E> {
  static constexpr int elems = E;
  std::int32_t r[E];
};

// The K of the m16n8 atom of 32 bytes for operands of type T.
template <typename T>
inline constexpr int atom_k_v = mma_instruction_k_v<T>;

// ---- coordinates (Bytes: the operand size, 4, 2 or 1) -------------------------

// m8n8k4: the lane's row within its quad pair's 8 x 8 product.
CROQ_HOST_DEVICE constexpr int quad_pair_row(int lane) { return lane % 4 + 4 * ((lane / 16) & 1); }

template <int Bytes = 2, int M = 16, int KBytes = 32>
CROQ_HOST_DEVICE constexpr int a_row(int lane, int e) {
  if constexpr (atom_shape<M, KBytes>::quad_pair) {
    return quad_pair_row(lane);
  } else {
    constexpr int P = 4 / Bytes;
    return lane / 4 + 8 * ((e / P) % (M / 8));
  }
}
template <int Bytes = 2, int M = 16, int KBytes = 32>
CROQ_HOST_DEVICE constexpr int a_col(int lane, int e) {
  if constexpr (atom_shape<M, KBytes>::quad_pair) {
    return e;
  } else {
    constexpr int P = 4 / Bytes;
    return P * (lane % 4) + e % P + 4 * P * ((e / P) / (M / 8));
  }
}
template <int Bytes = 2, int M = 16, int KBytes = 32>
CROQ_HOST_DEVICE constexpr int b_row(int lane, int e) {
  if constexpr (atom_shape<M, KBytes>::quad_pair) {
    return e;
  } else {
    constexpr int P = 4 / Bytes;
    return P * (lane % 4) + e % P + 4 * P * (e / P);
  }
}
template <int M = 16, int KBytes = 32>
CROQ_HOST_DEVICE constexpr int b_col(int lane, int /*e*/) {
  if constexpr (atom_shape<M, KBytes>::quad_pair) return quad_pair_row(lane);
  return lane / 4;
}
// Accumulator coordinates of a frag_c<AccT, E>.
template <typename AccT = float, int E = 4>
CROQ_HOST_DEVICE constexpr int c_row(int lane, int e) {
  if constexpr (E == 8) {
    if constexpr (sizeof(AccT) == 2) return quad_pair_row(lane);
    return (lane & 1) + (e & 2) + 4 * ((lane / 16) & 1);
  }
  return lane / 4 + 8 * (e / 2);
}
template <typename AccT = float, int E = 4>
CROQ_HOST_DEVICE constexpr int c_col(int lane, int e) {
  if constexpr (E == 8) {
    if constexpr (sizeof(AccT) == 2) return e;
    return (e & 4) + (lane & 2) + (e & 1);
  }
  return 2 * (lane % 4) + (e % 2);
}

// ---- packing ----------------------------------------------------------------

// Two 16-bit values in one register, `lo` in the low half.
template <typename T>
CROQ_HOST_DEVICE std::uint32_t pack2(T lo, T hi) {
  static_assert(sizeof(T) == 2, "operands are 16-bit");
  std::uint16_t a, b;
  std::memcpy(&a, &lo, 2);
  std::memcpy(&b, &hi, 2);
  return static_cast<std::uint32_t>(a) | (static_cast<std::uint32_t>(b) << 16);
}

// An f32 rounded to tf32 (10 mantissa bits, to nearest, ties away from zero:
// cvt.rna.tf32.f32), as the bits the tensor core reads.
CROQ_HOST_DEVICE std::uint32_t tf32_bits(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits += 0x1000u;
  return bits & 0xffffe000u;
}

// The 4 / sizeof(T) values v[0..] in one register, v[0] in the lowest bits;
// f32 operands (tf32 MMAs) are rounded to tf32.
template <typename T>
CROQ_HOST_DEVICE std::uint32_t pack_register(const T* v) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "operands are 32-, 16- or 8-bit");
  if constexpr (sizeof(T) == 4) {
    return tf32_bits(static_cast<float>(v[0]));
  } else {
    std::uint32_t r;
    std::memcpy(&r, v, 4);
    return r;
  }
}

// ---- element loads (any memory, with bounds) ----------------------------------
//
// Element (i, j) of an atom lives at p[i * s0 + j * s1]: A atoms are indexed
// (m, k), B atoms (n, k), C atoms (m, n); the first v0 rows and v1 columns
// are valid, the rest read as zero. `lane` is the caller's lane in its warp.

template <typename T>
CROQ_HOST_DEVICE T load_or_zero(const T* p, int i, int j, int s0, int s1, int v0, int v1) {
  return (i < v0 && j < v1) ? p[i * s0 + j * s1] : utils::from_f32<T>(0.0f);
}

template <typename T, int M, int KB>
CROQ_HOST_DEVICE void load_a_lane(frag_a_t<M, KB>& a, int lane, const T* p, int s0, int s1, int v0, int v1) {
  constexpr int B = static_cast<int>(sizeof(T)), P = 4 / B;
  for (int reg = 0; reg < atom_shape<M, KB>::a_regs; ++reg) {
    T v[P];
    for (int x = 0; x < P; ++x) {
      const int e = reg * P + x;
      v[x] = load_or_zero(p, a_row<B, M, KB>(lane, e), a_col<B, M, KB>(lane, e), s0, s1, v0, v1);
    }
    a.r[reg] = pack_register(v);
  }
}

template <typename T, int M, int KB>
CROQ_HOST_DEVICE void load_b_lane(frag_b_t<M, KB>& b, int lane, const T* p, int s0, int s1, int v0, int v1) {
  constexpr int B = static_cast<int>(sizeof(T)), P = 4 / B;
  for (int reg = 0; reg < atom_shape<M, KB>::b_regs; ++reg) {
    T v[P];
    for (int x = 0; x < P; ++x) {
      const int e = reg * P + x;
      v[x] = load_or_zero(p, b_col<M, KB>(lane, e), b_row<B, M, KB>(lane, e), s0, s1, v0, v1);
    }
    b.r[reg] = pack_register(v);
  }
}

// ---- accumulator values ---------------------------------------------------------

template <int E>
CROQ_HOST_DEVICE float acc_value(const frag_c<float, E>& c, int e) {
  return c.r[e];
}
template <int E>
CROQ_HOST_DEVICE s32 acc_value(const frag_c<s32, E>& c, int e) {
  return c.r[e];
}
template <int E>
CROQ_HOST_DEVICE float acc_value(const frag_c<f16, E>& c, int e) {
  const auto bits = static_cast<std::uint16_t>(c.r[e / 2] >> ((e % 2) * 16));
  f16 h;
  std::memcpy(&h, &bits, 2);
  return to_f32(h);
}

template <int E>
CROQ_HOST_DEVICE void set_acc_value(frag_c<float, E>& c, int e, float v) {
  c.r[e] = v;
}
template <int E>
CROQ_HOST_DEVICE void set_acc_value(frag_c<s32, E>& c, int e, s32 v) {
  c.r[e] = v;
}
template <int E>
CROQ_HOST_DEVICE void set_acc_value(frag_c<f16, E>& c, int e, float v) {
  const f16 h = utils::from_f32<f16>(v);
  std::uint16_t bits;
  std::memcpy(&bits, &h, 2);
  const int shift = (e % 2) * 16;
  c.r[e / 2] = (c.r[e / 2] & ~(0xffffu << shift)) | (static_cast<std::uint32_t>(bits) << shift);
}

// ---- fill and element-wise update --------------------------------------------

template <typename AccT, int E>
CROQ_HOST_DEVICE void fill_atom(frag_c<AccT, E>& c, float v) {
  for (int e = 0; e < E; ++e) set_acc_value(c, e, static_cast<decltype(acc_value(c, 0))>(v));
}
template <typename F, int R, int C>
CROQ_HOST_DEVICE void fill(F (&frags)[R][C], float v) {
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) fill_atom(frags[i][j], v);
}

// x = f(x) for every accumulator element the lane holds (`acc += v;`).
template <typename F, int R, int C, typename Fn>
CROQ_HOST_DEVICE void update(F (&frags)[R][C], Fn f) {
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      for (int e = 0; e < F::elems; ++e)
        set_acc_value(frags[i][j], e, static_cast<decltype(acc_value(frags[i][j], 0))>(f(acc_value(frags[i][j], e))));
}

// C atom (m, n) from memory, converted to the accumulator type; zero outside.
template <typename AccT, int E, typename T>
CROQ_HOST_DEVICE void load_c_lane(frag_c<AccT, E>& c, int lane, const T* p, int s0, int s1, int v0, int v1) {
  for (int e = 0; e < E; ++e) {
    const int i = c_row<AccT, E>(lane, e), j = c_col<AccT, E>(lane, e);
    if constexpr (std::is_same_v<AccT, s32>)
      set_acc_value(c, e, (i < v0 && j < v1) ? static_cast<s32>(p[i * s0 + j * s1]) : 0);
    else
      set_acc_value(c, e, (i < v0 && j < v1) ? to_f32(p[i * s0 + j * s1]) : 0.0f);
  }
}

// ---- 2:4 sparse metadata ----------------------------------------------------------

// Where nibble n of `lane`'s metadata word comes from: row and group of the
// atom's A; `held`: the lane holds the word; `read`: the instruction reads it.
struct sp_nibble {
  int row, group;
  bool held, read;
};
template <int Bytes, int KBytes>
CROQ_HOST_DEVICE constexpr sp_nibble sp_meta_nibble(int lane, int n) {
  static_assert(KBytes == 32 || KBytes == 64, "sparse atoms have 32 or 64 bytes of dense K");
  const int g = lane / 4, t = lane % 4;
  if constexpr (Bytes == 1) {
    return {g + 8 * (t % 2), 8 * (t / 2) + n, true, true};
  } else if constexpr (KBytes == 64) {
    return {g + 8 * (n / 4), 4 * t + n % 4, t < 2, t < 2};
  } else {
    return {g + 8 * (n / 4), n % 4, true, t == 0};
  }
}

// The nibble of a group whose A is all zero: elements 0 and 1 kept (0b0100;
// a nibble naming one element twice is not a legal pattern).
inline constexpr std::uint32_t sp_zero_nibble = 0x4u;

// The metadata word of `lane` from the atom's u32 words: word w of row r at
// p[r * s0 + w * s1], the first v0 rows and v1 words valid.
template <int Bytes, int KBytes>
CROQ_HOST_DEVICE std::uint32_t load_e_lane(int lane, const std::uint32_t* p, int s0, int s1, int v0, int v1) {
  std::uint32_t word = 0;
  for (int n = 0; n < 8; ++n) {
    const sp_nibble at = sp_meta_nibble<Bytes, KBytes>(lane, n);
    if (!at.held) return 0;
    const int w = at.group / 8;
    const std::uint32_t nibble =
        at.row < v0 && w < v1 ? (p[at.row * s0 + w * s1] >> (4 * (at.group % 8))) & 0xfu : sp_zero_nibble;
    word |= nibble << (4 * n);
  }
  return word;
}

}  // namespace mma
}  // namespace croq
