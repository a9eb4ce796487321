"""Wrapper macros that keep llmc's BUILD files short."""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")

def llmc_cc_library(name, **kwargs):
    """A cc_library visible to the whole repository."""
    kwargs.setdefault("visibility", ["//visibility:public"])
    cc_library(name = name, **kwargs)

def llmc_cc_binary(name, **kwargs):
    kwargs.setdefault("visibility", ["//visibility:public"])
    cc_binary(name = name, **kwargs)

def llmc_cc_test(name, deps = [], **kwargs):
    """A GoogleTest test linked with gtest_main."""
    cc_test(
        name = name,
        deps = deps + ["//tests:gtest_main"],
        **kwargs
    )

def llmc_lit_tests(name, srcs, tools = ["//tools/llmc-opt"], data = [], **kwargs):
    """One lit test target per file of `srcs`, plus a test_suite `name`.

    `srcs` must list every `.mlir` file of the package: a test file that is
    present but not listed (or listed but absent) is a build error, so no test
    is silently skipped.
    """
    present = native.glob(["*.mlir"])
    if sorted(present) != sorted(srcs):
        fail("llmc_lit_tests(%s): srcs must list exactly the .mlir files of %s; " %
             (name, native.package_name()) +
             "unlisted: %s, missing: %s" %
             ([f for f in present if f not in srcs], [f for f in srcs if f not in present]))
    tests = []
    for src in srcs:
        test_name = "%s_%s" % (name, src.replace("/", "_").replace(".", "_"))
        native.sh_test(
            name = test_name,
            srcs = ["//tests/lit:run_lit.sh"],
            args = ["$(location %s)" % src] + ["$(location %s)" % t for t in tools],
            data = [
                src,
                "//tests/lit:lit.cfg.py",
                "@llvm//:lit",
                "@llvm//:FileCheck",
                "@llvm//:not",
            ] + tools + data,
            **kwargs
        )
        tests.append(":" + test_name)
    native.test_suite(name = name, tests = tests)
