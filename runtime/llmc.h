//===- llmc.h - the C++ API for applications --------------------*- C++ -*-===//
//
// Everything an application needs to run a compiled `.llmc` binary: link
// `//runtime:llmc` and include this header.
//
//   Model         a binary opened on the device of its chip, with its
//                 tokenizer, chat template and generation defaults;
//                 generate() runs one prompt in a fresh context.
//   Conversation  turns of token ids whose history stays in the KV cache.
//   ChatSession   turns of text rendered by the chat template, on a
//                 Conversation.
//   GenerateOptions, GenerateResult, TokenCallback: what a turn takes and
//                 gives back, with host and modelled-chip timings.
//
// Errors are absl::Status values (absl::StatusOr<T> for results) whose
// message() is written for the user; nothing throws. A turn that outgrows
// the KV cache fails with ResourceExhausted, and session::getCacheCapacity
// gives its sizes. The API speaks the standard library and Abseil only: an
// application needs neither LLVM nor MLIR to build against it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_LLMC_H
#define LLMC_RUNTIME_LLMC_H

#include "runtime/api/ChatSession.h"
#include "runtime/api/Conversation.h"
#include "runtime/api/Generate.h"
#include "runtime/api/Model.h"

#endif // LLMC_RUNTIME_LLMC_H
