// libFuzzer target: every input must go through preprocess, lex, parse and
// sema (for sm_90a) without crashing, hanging or tripping a sanitizer.
// `utils/run-fuzzer` builds and runs it.
#include "FuzzFrontEnd.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  croqc::fuzz::FrontEnd frontEnd(data, size);
  croqc::fuzz::FrontEnd::Checked checked = frontEnd.check("sm_90a");
  checked.diags->finish();
  return 0;
}
