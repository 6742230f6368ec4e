// The library interface of a `.co` file: the header and the `extern "C"`
// entries (LibraryInterface.h). Both are printed from one description of
// each entry, made from sema's view of the parameters; the C++ declarations
// are the wrapper's own signature as lowering made it, so header and
// definition cannot disagree.
#include "codegen/LibraryInterface.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/Support/Casting.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <optional>
#include <vector>

#include "codegen/CudaSpelling.h"
#include "kir/KIR.h"
#include "lex/Token.h"
#include "sema/SemaTypes.h"
#include "target/ElementTypes.h"

namespace croqc::codegen {
namespace {

/// One parameter of an entry: its C declaration, and how the entry passes it
/// to the wrapper.
struct EntryParam {
  std::string cDecl;     // `void* a`, `int M`
  std::string argument;  // what the wrapper receives (empty: not passed)
  std::string doc;       // for the header comment
};

struct Entry {
  const kir::Function* function = nullptr;
  std::string name;
  std::vector<EntryParam> params;
  /// The wrapper returns data that the entry copies to `result`.
  bool returnsData = false;
  /// The C type of the scalar the wrapper returns and the entry stores to
  /// `*result` (empty: none).
  std::string returnsScalar;
  std::string resultDoc;
  /// The caller's stream is a parameter of the function itself.
  bool ownStream = false;
};

/// The C type an element scalar is passed as: itself when C has it, float
/// for the narrow floats (converted on entry).
std::string cScalarType(TokenKind elem) {
  switch (elem) {
    case TokenKind::ty_f64: return "double";
    case TokenKind::ty_s8: return "int8_t";
    case TokenKind::ty_u8: return "uint8_t";
    case TokenKind::ty_s16: return "int16_t";
    case TokenKind::ty_u16: return "uint16_t";
    case TokenKind::ty_s32: return "int32_t";
    case TokenKind::ty_u32: return "uint32_t";
    case TokenKind::ty_s64: return "int64_t";
    case TokenKind::ty_u64: return "uint64_t";
    default: return "float";
  }
}

/// The C type a scalar parameter or result is passed as: an element's
/// (cScalarType), bool, or int for the other integers.
std::string cScalarType(const sema::Type& t) {
  if (t.kind == sema::TypeKind::Element) return cScalarType(t.elem);
  return t.kind == sema::TypeKind::Bool ? "bool" : "int";
}

/// `f16 [M, 64] in device memory`.
std::string describeData(const sema::Type& t, llvm::ArrayRef<std::string> dims) {
  std::string out = tokenKindSpelling(t.elem).str() + " [";
  for (size_t d = 0; d < dims.size(); ++d) out += (d ? ", " : "") + dims[d];
  return out + "]";
}

/// The entry of one function, or nullopt when a parameter's shape is not
/// made of constants and shape symbols (`problem` says which).
std::optional<Entry> describeEntry(const kir::Function& f, const sema::FunctionInfo& info, LibraryProblem& problem) {
  Entry e;
  e.function = &f;
  e.name = "croq_" + f.name;
  std::vector<EntryParam> dimParams;
  std::vector<std::string> seenDims;
  std::vector<std::string> wrapperArgs;
  const auto& params = info.decl->params;
  for (size_t i = 0; i < params.size(); ++i) {
    const sema::Symbol* s = nullptr;
    for (const sema::Symbol* q : info.params)
      if (q->paramIndex == static_cast<int>(i)) s = q;
    std::string name = params[i].name.empty() ? "unnamed_" + std::to_string(i) : params[i].name.str();
    if (!s || s->type.kind == sema::TypeKind::Int) {
      e.params.push_back({"int " + name, name, ""});
      continue;
    }
    const sema::Type& t = s->type;
    switch (t.kind) {
      case sema::TypeKind::Data: {
        std::vector<std::string> dims;
        for (size_t d = 0; d < t.shape.size(); ++d) {
          const sym::SymExpr* dim = t.shape[d];
          if (const auto* c = llvm::dyn_cast<sym::ConstantExpr>(dim)) {
            dims.push_back(std::to_string(c->value()));
          } else if (const auto* se = llvm::dyn_cast<sym::SymbolExpr>(dim)) {
            std::string var = se->freshId() ? llvm::formatv("{0}_dim{1}", name, d).str() : se->name().str();
            dims.push_back(var);
            if (!llvm::is_contained(seenDims, var)) {
              seenDims.push_back(var);
              dimParams.push_back({"int " + var, "", ""});
            }
          } else {
            problem = {f.name, name};
            return std::nullopt;
          }
        }
        std::string elem = kir::cxxElementType(t.elem);
        std::string shape;
        for (size_t d = 0; d < dims.size(); ++d) shape += (d ? ", " : "") + dims[d];
        std::string arg = llvm::formatv("croq::make_spanview<{0}, {1}>(static_cast<{0}*>({2}), {{{3}})", elem,
                                        dims.size(), name, shape)
                              .str();
        std::string where = t.hostParam ? "host memory" : "device memory";
        e.params.push_back({"void* " + name, arg, name + ": " + describeData(t, dims) + ", " + where});
        break;
      }
      case sema::TypeKind::Element: {
        std::string c = cScalarType(t.elem);
        std::string arg = c == "float" && t.elem != TokenKind::ty_f32
                              ? llvm::formatv("croq::utils::from_f32<{0}>({1})", kir::cxxElementType(t.elem), name).str()
                              : name;
        e.params.push_back({c + " " + name, arg, name + ": " + tokenKindSpelling(t.elem).str()});
        break;
      }
      case sema::TypeKind::Bool: e.params.push_back({cScalarType(t) + " " + name, name, ""}); break;
      case sema::TypeKind::Stream:
        e.ownStream = true;
        e.params.push_back({"cudaStream_t " + name, name, name + ": the stream the kernels run on"});
        break;
      default: e.params.push_back({cScalarType(t) + " " + name, name, ""}); break;
    }
  }
  const sema::Type& rt = info.returnType;
  if (rt.kind == sema::TypeKind::Data) {
    std::vector<std::string> dims;
    for (const sym::SymExpr* d : rt.shape) dims.push_back(sym::print(d));
    e.returnsData = true;
    e.resultDoc = "result: " + describeData(rt, dims) + ", host memory the caller allocates";
    e.params.push_back({"void* result", "", e.resultDoc});
  } else if (rt.kind == sema::TypeKind::Element || rt.kind == sema::TypeKind::Int ||
             rt.kind == sema::TypeKind::Bool) {
    std::string c = cScalarType(rt);
    e.returnsScalar = c;
    e.resultDoc = "result: the returned " + (rt.kind == sema::TypeKind::Element ? tokenKindSpelling(rt.elem).str() : c);
    e.params.push_back({c + "* result", "", e.resultDoc});
  }
  for (EntryParam& p : dimParams) e.params.push_back(std::move(p));
  if (!e.ownStream)
    e.params.push_back({"cudaStream_t stream", "stream",
                        "stream: the kernels run on it, after the work already queued on it"});
  return e;
}

/// Every function's entry, in file order. C has no overloading: the
/// overloads of a name get `croq_NAME_1`, `croq_NAME_2`, ... in file order,
/// skipping the entry names of other functions (a function `NAME_1`).
std::optional<std::vector<Entry>> describeEntries(const kir::Module& module, const sema::SemaResult& sema,
                                                  LibraryProblem& problem) {
  std::vector<Entry> entries;
  llvm::StringMap<unsigned> overloads;
  for (const auto& f : module.functions) ++overloads[f->name];
  llvm::StringSet<> taken;
  for (const auto& f : module.functions)
    if (overloads[f->name] == 1) taken.insert("croq_" + f->name);
  for (const auto& f : module.functions) {
    const sema::FunctionInfo* info = nullptr;
    for (const sema::FunctionInfo& fi : sema.functions)
      if (fi.decl && fi.decl->name == f->name && fi.decl->loc() == f->loc) info = &fi;
    if (!info) continue;
    std::optional<Entry> e = describeEntry(*f, *info, problem);
    if (!e) return std::nullopt;
    if (overloads[f->name] > 1) {
      const std::string base = e->name;
      unsigned k = 0;
      do e->name = base + "_" + std::to_string(++k);
      while (!taken.insert(e->name).second);
    }
    entries.push_back(std::move(*e));
  }
  return entries;
}

std::string entryDeclaration(const Entry& e) {
  std::string params;
  for (size_t i = 0; i < e.params.size(); ++i) params += (i ? ", " : "") + e.params[i].cDecl;
  return "void " + e.name + "(" + params + ")";
}

std::string wrapperDeclaration(const kir::Function& f) {
  std::string params;
  for (const kir::WrapperParam& p : f.params) params += wrapperParamDecl(p) + ", ";
  // The wrapper's own stream, its last parameter (kir::Function::stream).
  params += "cudaStream_t " + f.stream + " = nullptr";
  return cxxType(f.returnType) + " " + f.name + "(" + params + ")";
}

}  // namespace

bool emitLibraryHeader(const kir::Module& module, const sema::SemaResult& sema, const LibraryOptions& options,
                       llvm::raw_ostream& os, LibraryProblem& problem) {
  std::optional<std::vector<Entry>> entries = describeEntries(module, sema, problem);
  if (!entries) return false;
  llvm::StringRef file = llvm::sys::path::filename(options.sourceName);
  os << "// Generated by croqc " << options.version << " from " << file << ". Do not edit: edit the .co file.\n"
     << "// The `__co__` functions of " << file << ": the C++ host wrappers (croq:: span types) and\n"
     << "// their `extern \"C\"` entries (raw pointers, shape sizes, a stream). docs/guide.md, library mode.\n"
     << "// Define CROQ_C_ENTRIES_ONLY before including it to get only the entries, without croq/croq.h\n"
     << "// (e.g. in a PyTorch extension).\n"
     << "#pragma once\n\n"
     << "#if defined(__cplusplus) && !defined(CROQ_C_ENTRIES_ONLY)\n"
     << "#include \"croq/croq.h\"\n\n";
  for (const Entry& e : *entries) os << wrapperDeclaration(*e.function) << ";\n";
  os << "#endif\n\n"
     << "#ifdef __cplusplus\n"
     << "extern \"C\" {\n"
     << "#else\n"
     << "#include <stdbool.h>\n"
     << "#endif\n"
     << "#include <stdint.h>\n"
     << "typedef struct CUstream_st* cudaStream_t;\n";
  for (const Entry& e : *entries) {
    os << "\n// `" << e.function->name << "`:\n";
    for (const EntryParam& p : e.params)
      if (!p.doc.empty()) os << "//   " << p.doc << "\n";
    os << entryDeclaration(e) << ";\n";
  }
  os << "\n#ifdef __cplusplus\n"
     << "}  // extern \"C\"\n"
     << "#endif\n";
  return true;
}

bool emitLibraryEntries(const kir::Module& module, const sema::SemaResult& sema, const LibraryOptions& options,
                        llvm::raw_ostream& os, LibraryProblem& problem) {
  std::optional<std::vector<Entry>> entries = describeEntries(module, sema, problem);
  if (!entries) return false;
  if (!entries->empty()) os << "\n#include <cstring>\n";
  for (const Entry& e : *entries) {
    os << "\n// `extern \"C\"` entry of `" << e.function->name << "` (library mode)\n"
       << "extern \"C\" " << entryDeclaration(e) << " {\n";
    // The caller's stream is the wrapper's own stream (its last argument),
    // unless the function takes a `stream` parameter.
    std::string args;
    for (const EntryParam& p : e.params)
      if (!p.argument.empty()) args += (args.empty() ? "" : ", ") + p.argument;
    if (e.returnsData) {
      os << "  auto result_ = " << e.function->name << "(" << args << ");\n"
         << "  std::memcpy(result, result_.data(), result_.bytes());\n";
    } else if (!e.returnsScalar.empty()) {
      // Narrow floats reach C as float (cScalarType).
      std::string call = e.function->name + "(" + args + ")";
      os << "  *result = "
         << (e.returnsScalar == "float" ? "croq::to_f32(" + call + ")" : "static_cast<" + e.returnsScalar + ">(" + call + ")")
         << ";\n";
    } else {
      os << "  " << e.function->name << "(" << args << ");\n";
    }
    os << "}\n";
  }
  return true;
}

}  // namespace croqc::codegen
