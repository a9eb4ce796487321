"""A test that compares an llmc command's output with ../shared/refdata."""

load(":measured_bounds.bzl", "MEASURED_BOUNDS")

def parity_test(name, model, refs, cases, command, max_abs = None, extra_args = [], convert_args = [], onnx = None, onnx_args = [], vlm = None, max_abs_vision = None, families = False, **kwargs):
    """The cosine and near-tie bounds of a target whose outputs are not
    exact come from MEASURED_BOUNDS; every other target must meet max_abs.
    `families`: the model and references are the repository's own
    (tests/families) rather than ../shared/refdata's."""
    min_cosine, near_tie = MEASURED_BOUNDS.get(name, (None, None))
    if not min_cosine and not max_abs:
        fail("parity_test %s: neither max_abs nor a measured bound in measured_bounds.bzl" % name)
    args = [
        "--llmc=$(location //tools/llmc)",
        "--command=" + command,
        "--model=" + model,
        "--refs=" + refs,
        "--cases=" + cases,
    ]
    if max_abs:
        args.append("--max-abs=" + max_abs)
    # A vision-language model's references: each case is an image, given as
    # the file (vlm = "image") or the reference pixel values.
    if vlm:
        args.append("--vlm=" + vlm)
    if max_abs_vision:
        args.append("--max-abs-vision=" + max_abs_vision)
    if min_cosine:
        args.append("--min-cosine=" + min_cosine)
    if near_tie:
        args.append("--near-tie=" + near_tie)
    data = ["//tests/parity:parity.py", "//tools/llmc"]
    if families:
        args.append("--data-root=families")
        data.append("//tests/families:data")
    # Export the Hugging Face `model` to ONNX in layout `onnx` (pieces or
    # decoder), with the exporter arguments `onnx_args`, and run that.
    if onnx:
        args.append("--export-onnx=$(location //tools/onnx:export_onnx.py)")
        args.append("--onnx-layout=" + onnx)
        args += ["--onnx-export-arg=" + arg for arg in onnx_args]
        data += ["//tools/onnx:export_onnx.py", "//tools/onnx:onnx_eval.py"]
    # `llmc convert` arguments: the command then runs on the compiled binary.
    args += ["--convert=" + arg for arg in convert_args]
    if extra_args:
        args += ["--"] + extra_args
    native.sh_test(
        name = name,
        srcs = ["//tests/parity:run_parity.sh"],
        args = args,
        data = data,
        # The reference data lives outside the workspace, where Bazel cannot
        # see it change: never serve these results from the cache.
        tags = ["external"],
        size = "medium",
        **kwargs
    )
