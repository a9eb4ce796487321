"""Runs mlir-tblgen from Bazel, in the style of upstream's gentbl_cc_library."""

def _tblgen_impl(ctx):
    td_file = ctx.file.td_file
    include_dirs = ["external/llvm/include", ".", ctx.bin_dir.path]
    for src in ctx.files.td_srcs:
        if src.owner.workspace_root:
            include_dirs.append(src.owner.workspace_root)
    args = ctx.actions.args()
    args.add_all(ctx.attr.opts)
    for d in depset(include_dirs).to_list():
        args.add("-I", d)
    args.add(td_file)
    args.add("-o", ctx.outputs.out)
    ctx.actions.run(
        executable = ctx.executable._tblgen,
        arguments = [args],
        inputs = depset([td_file], transitive = [depset(ctx.files.td_srcs)]),
        outputs = [ctx.outputs.out],
        mnemonic = "MlirTblgen",
        progress_message = "mlir-tblgen %s %s" % (" ".join(ctx.attr.opts), ctx.outputs.out.short_path),
    )
    return [DefaultInfo(files = depset([ctx.outputs.out]))]

_tblgen = rule(
    implementation = _tblgen_impl,
    attrs = {
        "td_file": attr.label(allow_single_file = [".td"], mandatory = True),
        "td_srcs": attr.label_list(allow_files = [".td"]),
        "opts": attr.string_list(),
        "out": attr.output(mandatory = True),
        "_tblgen": attr.label(
            default = "@llvm//:mlir-tblgen",
            executable = True,
            cfg = "exec",
            allow_single_file = True,
        ),
    },
)

def gentbl_filegroup(name, td_file, tbl_outs, td_srcs = [], **kwargs):
    """Runs mlir-tblgen once per (opts, output) pair of `tbl_outs`."""
    outs = []
    for i, (opts, out) in enumerate(tbl_outs):
        rule_name = "%s_%d_gen" % (name, i)
        _tblgen(
            name = rule_name,
            td_file = td_file,
            td_srcs = td_srcs + ["@llvm//:td_files"],
            opts = opts,
            out = out,
            **kwargs
        )
        outs.append(":" + rule_name)
    native.filegroup(name = name, srcs = outs, **kwargs)

def gentbl_cc_library(name, td_file, tbl_outs, td_srcs = [], deps = [], **kwargs):
    """A header-only cc_library of the `.inc` files tablegen makes from `td_file`."""
    gentbl_filegroup(
        name = name + "_files",
        td_file = td_file,
        tbl_outs = tbl_outs,
        td_srcs = td_srcs,
    )
    native.cc_library(
        name = name,
        textual_hdrs = [":" + name + "_files"],
        deps = deps,
        **kwargs
    )

def td_library(name, srcs, deps = [], **kwargs):
    """Groups `.td` files (with the ones they include) for gentbl rules."""
    native.filegroup(name = name, srcs = srcs + deps, **kwargs)
