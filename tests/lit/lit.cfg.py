# lit configuration for llmc's FileCheck tests; see run_lit.sh.
import os

import lit.formats

config.name = "llmc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.environment["PATH"] = os.pathsep.join(
    [lit_config.params["tool_path"], config.environment.get("PATH", "/usr/bin:/bin")]
)

# %refdata: the reference models and outputs (../shared/refdata).
config.substitutions.append(("%refdata", lit_config.params["refdata"]))

# %runfiles: the test's Bazel runfiles, where data from other packages
# (scripts such as tools/onnx/export_onnx.py) sits at its workspace path.
config.substitutions.append(("%runfiles", lit_config.params["runfiles"]))

# %python: Debian's interpreter, which has the pinned python3-numpy,
# python3-onnx and python3-torch (not whatever python3 PATH finds first).
config.substitutions.append(("%python", "/usr/bin/python3"))
