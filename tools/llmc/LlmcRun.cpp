//===- LlmcRun.cpp - llmc-run, the runtime's command line -----------------===//
//
// What a deployed device needs of llmc's command line, linked against the
// runtime alone (no frontend, dialect or backend of the compiler):
//   llmc-run run -m <model.llmc> --input-ids 1,2,3 | -p "text" [...]
//   llmc-run chat -m <model.llmc> [--system "..."] [...]
//   llmc-run serve -m <model.llmc> [--port N] [...]
//   llmc-run inspect <model.llmc> [--json]
//   llmc-run template --template-file T.jinja --context C.json [--date D]
// Each subcommand takes the options `llmc` gives it.
//
//===----------------------------------------------------------------------===//

#include "tools/llmc/CommandSupport.h"
#include "tools/llmc/RuntimeCommands.h"

int main(int argc, char **argv) {
  if (absl::Status status = llmc::enterInvocationDirectory(); !status.ok())
    return llmc::reportError(status);
  return llmc::runRuntimeCommandLine(argc, argv, "llmc-run");
}
