"""`bazel build @fortune//:bm1684x_w8f16` (llmc_model in WORKSPACE) writes
the binary `llmc convert` writes with the same options, byte for byte.

  llmc_model_parity_test.py --llmc=PATH --binary=PATH
"""

import filecmp
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..",
                                "llmc", "test"))
from cli_common import convert_demo, main, runfile, scratch_directory  # noqa: E402


def test(options, failures):
    binary = runfile(options["binary"])
    whole = convert_demo(options["llmc"], os.path.join(scratch_directory(), "whole.llmc"),
                         "-q", "W8F16")
    failures.check(filecmp.cmp(binary, whole, shallow=False),
                   f"{binary} differs from llmc convert's {whole}")


if __name__ == "__main__":
    main(test)
