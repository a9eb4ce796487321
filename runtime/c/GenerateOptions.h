//===- GenerateOptions.h - the C options as the C++ API's -------*- C++ -*-===//
//
// llmc_generate_options (llmc_c.h) in the C++ API's terms, for the C API
// and the bindings that take the same fields (runtime/python).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_C_GENERATEOPTIONS_H
#define LLMC_RUNTIME_C_GENERATEOPTIONS_H

#include "runtime/api/Generate.h"
#include "runtime/c/llmc_c.h"

namespace llmc {

/// The C++ options `options` (null: the defaults of
/// llmc_generate_options_init) stand for: a temperature of 0 decodes
/// greedily on the device, any other samples on the host.
GenerateOptions toGenerateOptions(const llmc_generate_options *options);

} // namespace llmc

#endif // LLMC_RUNTIME_C_GENERATEOPTIONS_H
