//===- ConvertReport.h - llmc convert --report ------------------*- C++ -*-===//
//
// After convert has written a binary, --report runs it on its chip's cmodel
// beside the top interpreter on the checkpoint's F32 weights and prints how
// close each piece computes (ConversionReport.h) and, with --report-text,
// the perplexity of both on a text file.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_CONVERTREPORT_H
#define LLMC_TOOLS_LLMC_CONVERTREPORT_H

#include "frontends/llm/ModelLoading.h"
#include "plugins/Plugin.h"

namespace llmc {

/// Whether convert was asked for a report.
bool isReportRequested();
/// Checks the report's options before anything is compiled.
llvm::Error validateReportOptions();

/// Prints the report on the binary at `binaryPath`, converted from `model`
/// with `build` for `backend`'s chip in mode `mode`.
llvm::Error printConversionReport(const LoadedModel &model,
                                  const llm::BuildOptions &build,
                                  const plugins::BackendPlugin &backend,
                                  llvm::StringRef mode,
                                  llvm::StringRef binaryPath);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_CONVERTREPORT_H
