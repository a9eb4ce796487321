//===- NpyFile.h - NumPy .npy files of interpreter tensors -----*- C++ -*-===//
//
// Reads and writes tensors in NumPy's .npy format (version 1.0, C order,
// little endian), so reference logits and test inputs move between llmc and
// Python without a conversion step. Files are written byte for byte as
// `numpy.save` writes them.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TOP_INTERPRETER_NPYFILE_H
#define LLMC_DIALECTS_TOP_INTERPRETER_NPYFILE_H

#include "dialects/top/Interpreter/Tensor.h"

#include "support/Status.h"

#include <string>
#include <string_view>

namespace llmc::top {

/// Parses the contents of a .npy file of version 1, 2 or 3. `<f4` becomes an
/// F32 tensor, `<i4` an I32 tensor, and `<i8` (NumPy's default integer) an
/// I32 tensor when every value fits in 32 bits. Fortran order, big-endian
/// data and other element types are errors.
absl::StatusOr<Tensor> parseNpy(std::string_view contents);

/// Reads the .npy file at `path`.
absl::StatusOr<Tensor> readNpyFile(const std::string &path);

/// The .npy encoding of `tensor` (`<f4` or `<i4`).
std::string serializeNpy(const Tensor &tensor);

/// Writes `tensor` to `path`, replacing the file atomically.
absl::Status writeNpyFile(const std::string &path, const Tensor &tensor);

} // namespace llmc::top

#endif // LLMC_DIALECTS_TOP_INTERPRETER_NPYFILE_H
