"""llmc_model: a checkpoint's conversions as Bazel targets (WORKSPACE).

    load("//tools/build_defs:llmc_model.bzl", "llmc_model")
    llmc_model(
        name = "fortune",
        path = "models/demo/fortune-qwen2",
        chips = ["bm1684x"],
        modes = ["W8F16", "W4F16"],
        piece_modes = {"lm_head": "F16"},
    )

gives `@fortune//:bm1684x_w8f16` and `@fortune//:bm1684x_w4f16`, each an
llmc_binary (llmc_binary.bzl): an action per piece and a merge. The rule
reads the checkpoint's config.json when Bazel fetches the repository, to
list the pieces; README.md, "Conversion as a Bazel build", tells more.
"""

_PHASES = ["prefill", "prefill_kv", "decode"]

# Files of a checkpoint directory that are no checkpoint data: a BUILD file
# would make the copy a package of its own.
_SKIPPED = ["BUILD", "BUILD.bazel", "WORKSPACE", "README.md"]

# llm::BuildOptions' defaults and pieces::getDefaultPrefillLengths' rule,
# which decide the pieces when the flags do not.
_DEFAULT_MAX_INPUT_LENGTH = 128
_SHORTEST_DEFAULT_PREFILL_LENGTH = 16

def _flag_value(flags, name):
    """The value of `--name=V` or `--name V` in flags, the last one given."""
    value = None
    for i, flag in enumerate(flags):
        if flag.startswith("--%s=" % name):
            value = flag.partition("=")[2]
        elif flag == "--" + name and i + 1 < len(flags):
            value = flags[i + 1]
    return value

def llmc_prefill_lengths(flags):
    """The chunk lengths below L whose prefill pieces `llmc convert` compiles
    with these flags (`--max-input-length`, `--prefill-lengths`)."""
    max_input_length = int(_flag_value(flags, "max-input-length") or _DEFAULT_MAX_INPUT_LENGTH)
    value = _flag_value(flags, "prefill-lengths") or "auto"
    if value == "none":
        return []
    if value != "auto":
        return [int(length) for length in value.split(",")]
    lengths = []
    length = _SHORTEST_DEFAULT_PREFILL_LENGTH

    # Starlark has no while loop; 32 quadruplings pass any L.
    for _ in range(32):
        if length >= max_input_length:
            break
        lengths.append(length)
        length *= 4
    return lengths

def _with_chunks(base, prefill_lengths):
    return [base] + ["%s.%d" % (base, length) for length in prefill_lengths]

def llmc_piece_names(num_layers, prefill_lengths = []):
    """The pieces of a model, in the order `llmc convert` compiles them.

    The same list as llm::GraphBuilder::getPieceNames; the test of this rule
    checks the two agree (a piece missing here fails `llmc merge`'s output
    comparison).
    """
    names = _with_chunks("embed.prefill", prefill_lengths) + ["embed.decode"]
    for layer in range(num_layers):
        for phase in _PHASES:
            block = "block.%d.%s" % (layer, phase)
            names += _with_chunks(block, prefill_lengths) if phase != "decode" else [block]
    return names + ["lm_head", "greedy_head", "sample_head"]

def _fail(rctx, message):
    fail('llmc_model(name = "%s"): %s' % (rctx.name, message))

def _read_config(rctx, directory):
    """The checkpoint's config.json, decoded.

    Read through a label when the directory is a package of the main
    repository, so that Bazel generates the BUILD file again when it
    changes; otherwise `bazel sync --only=<name>` does.
    """
    path = directory.get_child("config.json")
    if not path.exists:
        _fail(rctx, "%s has no config.json (llmc_model converts Hugging Face checkpoint directories)" % directory)
    package = rctx.attr.path
    if not package.startswith("/") and not package.startswith("..") and (
        directory.get_child("BUILD.bazel").exists or directory.get_child("BUILD").exists
    ):
        path = rctx.path(Label("@//%s:config.json" % package.rstrip("/")))
    return json.decode(rctx.read(path))

def _link_checkpoint(rctx, directory):
    """Links the checkpoint's files into checkpoint/ and returns their names."""
    listing = rctx.execute(["find", "-L", str(directory), "-maxdepth", "1", "-type", "f"])
    if listing.return_code != 0:
        _fail(rctx, "cannot list %s: %s" % (directory, listing.stderr))
    names = []
    for line in sorted(listing.stdout.splitlines()):
        name = line.rpartition("/")[2]
        if name in _SKIPPED or name.startswith("."):
            continue
        rctx.symlink(directory.get_child(name), "checkpoint/" + name)
        names.append(name)
    return names

def _llmc_model_impl(rctx):
    path = rctx.attr.path
    if not path.startswith("/"):
        path = "%s/%s" % (rctx.path(Label("@//:WORKSPACE")).dirname, path)
    directory = rctx.path(path)
    if not directory.exists:
        _fail(rctx, "no checkpoint at %s" % directory)
    config = _read_config(rctx, directory)
    layers = config.get("num_hidden_layers")
    if type(layers) != "int" or layers < 1:
        _fail(rctx, "%s/config.json has no positive num_hidden_layers" % directory)
    pieces = llmc_piece_names(layers, llmc_prefill_lengths(rctx.attr.flags))
    for piece in rctx.attr.piece_modes:
        if piece not in pieces:
            _fail(rctx, "piece_modes names '%s', which is no piece of this model (%s)" %
                        (piece, ", ".join(pieces)))
    files = _link_checkpoint(rctx, directory)

    piece_flags = {
        piece: ["--piece-quantize=%s=%s" % (piece, mode)]
        for piece, mode in rctx.attr.piece_modes.items()
    }
    targets = []
    for chip in rctx.attr.chips:
        for mode in rctx.attr.modes:
            targets.append("""
llmc_binary(
    name = "{name}",
    checkpoint = [":checkpoint/{files}"],
    config = ":checkpoint/config.json",
    chip = "{chip}",
    mode = "{mode}",
    pieces = {pieces},
    flags = {flags},
    piece_flags = {piece_flags},
)

[llmc_command(
    name = "{name}_" + command,
    binary = ":{name}",
    command = command,
) for command in ["run", "chat"]]
""".format(
                name = "%s_%s" % (chip, mode.lower()),
                files = '", ":checkpoint/'.join(files),
                chip = chip,
                mode = mode,
                pieces = repr(pieces),
                flags = repr(rctx.attr.flags),
                piece_flags = repr(piece_flags),
            ))
    rctx.file("BUILD.bazel", """# Generated by llmc_model (tools/build_defs/llmc_model.bzl) from
# {directory}: {layers} layers, {count} pieces.
load("@//tools/build_defs:llmc_binary.bzl", "llmc_binary", "llmc_command")

package(default_visibility = ["//visibility:public"])

exports_files(glob(["checkpoint/*"]))
{targets}""".format(
        directory = directory,
        layers = layers,
        count = len(pieces),
        targets = "".join(targets),
    ))
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)

llmc_model = repository_rule(
    implementation = _llmc_model_impl,
    doc = "Targets <chip>_<mode> (lower case) that convert a checkpoint, " +
          "and <chip>_<mode>_run and _chat that `bazel run` llmc " +
          "on the binary.",
    attrs = {
        "path": attr.string(
            mandatory = True,
            doc = "The Hugging Face checkpoint directory, absolute or " +
                  "relative to the main workspace.",
        ),
        "chips": attr.string_list(default = ["bm1684x"]),
        "modes": attr.string_list(default = ["W8F16"]),
        "flags": attr.string_list(
            doc = "More `llmc convert` options for every piece, e.g. " +
                  "--seq-length=256.",
        ),
        "piece_modes": attr.string_dict(
            doc = "Piece name to mode (`--piece-quantize`), passed to that " +
                  "piece's action only.",
        ),
    },
)
