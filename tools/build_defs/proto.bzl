"""C++ code from .proto files with Debian's protoc (no @com_google_protobuf)."""

load("@rules_cc//cc:defs.bzl", "cc_library")

def llmc_cc_proto_library(name, srcs, deps = [], **kwargs):
    """Runs protoc on `srcs` (paths relative to the package) and compiles the
    generated `.pb.cc` files into a cc_library linked with libprotobuf."""
    package = native.package_name()
    outs = []
    for src in srcs:
        stem = src[:-len(".proto")]
        outs += [stem + ".pb.h", stem + ".pb.cc"]
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = outs,
        tools = ["@protobuf//:protoc"],
        cmd = "$(location @protobuf//:protoc) --proto_path=. --cpp_out=$(GENDIR) " +
              " ".join(["%s/%s" % (package, src) if package else src for src in srcs]),
    )
    cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        deps = deps + ["@protobuf"],
        **kwargs
    )
