#include "codegen/CudaSpelling.h"

#include <llvm/Support/FormatVariadic.h>

#include "kir/KIR.h"

namespace croqc::codegen {

using namespace kir;

std::string cxxType(const Type& t) {
  std::string elem = cxxTypeName(t.scalar);
  switch (t.kind) {
    case Type::Kind::Scalar: return elem;
    case Type::Kind::Pointer: return elem + "*";
    case Type::Kind::TensorMap: return "const __grid_constant__ CUtensorMap";
    case Type::Kind::View: return llvm::formatv("const croq::spanned_view<{0}, {1}>&", elem, t.rank).str();
    case Type::Kind::Data: return llvm::formatv("croq::spanned_data<{0}, {1}>", elem, t.rank).str();
    case Type::Kind::Stream: return "cudaStream_t";
  }
  return elem;
}

std::string wrapperParamDecl(const WrapperParam& p) { return cxxType(p.type) + " " + p.name; }

std::string eventAddress(const Stmt& s) {
  // A single event: index 0 (an arrival) or -1 (a wait: parity bit 0).
  if (s.index->isConst(0) || s.index->isConst(-1)) return s.buffer->name;
  return s.buffer->name + " + (" + printExpr(s.index) + ")";
}

std::string tilePointer(const Tile& t) {
  std::string off = printExpr(t.offset);
  return off == "0" ? t.buffer->name : t.buffer->name + " + " + off;
}

std::string validExtent(const Tile& t, std::size_t d) {
  std::string v = t.valid[d] ? printExpr(t.valid[d]) : std::to_string(t.extents[d]);
  if (d == 0 && t.inside) v = "(" + printExpr(t.inside) + " ? " + v + " : 0)";
  return v;
}

std::string bufferShapeText(const Buffer& b) {
  std::string s = tokenKindSpelling(b.elem).str() + " ";
  for (std::int64_t a : b.arrayDims) s += "[" + std::to_string(a) + "]";
  s += "[";
  for (size_t i = 0; i < b.shape.size(); ++i) s += (i ? ", " : "") + printExpr(b.shape[i]);
  s += "]";
  if (b.shape.size() >= 2 && b.shape.back()->isConst() && b.rowStride != b.shape.back()->intValue)
    s += ", rows padded to " + std::to_string(b.rowStride);
  return s;
}

std::string fragmentType(const Fragment& f) {
  std::string atom = f.defaultAtom() ? "" : llvm::formatv("_t<{0}, {1}>", f.atomM, f.atomKBytes).str();
  switch (f.role) {
    case FragRole::A: return "croq::mma::frag_a" + atom;
    case FragRole::B: return "croq::mma::frag_b" + atom;
    case FragRole::E: return "std::uint32_t";
    case FragRole::C: {
      std::string acc = f.accType == TokenKind::ty_f16   ? "croq::f16"
                        : f.accType == TokenKind::ty_s32 ? "croq::s32"
                                                         : "float";
      std::int64_t e = f.accElements();
      return "croq::mma::frag_c<" + acc + (e == 4 ? "" : ", " + std::to_string(e)) + ">";
    }
  }
  return "";
}

std::string fenceCall(FenceKind f) {
  switch (f) {
    case FenceKind::Device: return "__threadfence();";
    case FenceKind::Block: return "__threadfence_block();";
    case FenceKind::ProxyAsyncShared: return "croq::fence_proxy_async_shared();";
    case FenceKind::MbarrierInit: return "croq::fence_mbarrier_init();";
  }
  return "";
}

std::string elementCount(const Buffer& b) {
  std::string n;
  for (const Expr* d : b.shape) n += (n.empty() ? "static_cast<std::size_t>(" : " * static_cast<std::size_t>(") + printExpr(d) + ")";
  return n.empty() ? "1" : n;
}

}  // namespace croqc::codegen
