// How KIR values are spelled in the generated CUDA C++: pointers into tiles
// and their valid extents, fragment types, fences, buffer shapes. Pure
// functions of the KIR node, shared by the parts of the emitter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace croqc::kir {
struct Buffer;
struct Fragment;
struct Stmt;
struct Tile;
struct Type;
struct WrapperParam;
enum class FenceKind : std::uint8_t;
}  // namespace croqc::kir

namespace croqc::codegen {

/// The C++ type of a kernel parameter, buffer pointer or wrapper signature:
/// `croq::f16*`, `int`, `const __grid_constant__ CUtensorMap`,
/// `const croq::spanned_view<croq::f16, 2>&`, `croq::spanned_data<float, 1>`,
/// `cudaStream_t`.
std::string cxxType(const kir::Type& t);
/// A wrapper parameter's declaration: `const croq::spanned_view<croq::f16, 2>& lhs`.
std::string wrapperParamDecl(const kir::WrapperParam& p);
/// The mbarrier an event arrival or wait is on: `bar` or `bar + (i)`.
std::string eventAddress(const kir::Stmt& s);
/// A pointer to the tile's first element: `buf` or `buf + offset`.
std::string tilePointer(const kir::Tile& t);
/// How many elements of dimension `d` of the tile lie inside its buffer (the
/// constant extent when all of them do; 0 for the first dimension when the
/// whole tile lies outside).
std::string validExtent(const kir::Tile& t, std::size_t d);
/// The buffer's element type and shape, for a comment: `f16 [2][64, 64],
/// rows padded to 72`.
std::string bufferShapeText(const kir::Buffer& b);
/// The C++ type of one atom of a warp fragment (`croq::mma::frag_c<float>`).
std::string fragmentType(const kir::Fragment& f);
/// The statement a fence is (`__threadfence();`).
std::string fenceCall(kir::FenceKind f);
/// The number of elements of a global buffer, a `std::size_t` expression.
std::string elementCount(const kir::Buffer& b);

}  // namespace croqc::codegen
