"""llmc inspect and llmc chat on binaries they cannot use: missing,
truncated, corrupt, compiled for a chip this build lacks, and without a
tokenizer. Each is a clear error and exit code 1, never a crash."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_common import DEMO, convert_demo, main, run_llmc, scratch_directory  # noqa: E402


def bad_binaries(good, set_chip, tmp):
    """(path, message, what) for each broken variant of `good`."""
    data = open(good, "rb").read()
    truncated = os.path.join(tmp, "truncated.llmc")
    with open(truncated, "wb") as f:
        f.write(data[:len(data) // 3])
    corrupt = os.path.join(tmp, "corrupt.llmc")
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    with open(corrupt, "wb") as f:
        f.write(flipped)
    not_llmc = os.path.join(tmp, "config.llmc")
    with open(not_llmc, "wb") as f:
        f.write(open(os.path.join(DEMO, "config.json"), "rb").read())
    other_chip = os.path.join(tmp, "other.llmc")
    subprocess.run([set_chip, good, other_chip, "npu2077"], check=True)
    return [
        (os.path.join(tmp, "none.llmc"), "none.llmc", "missing file"),
        (truncated, "truncated", "truncated file"),
        (corrupt, "checksum mismatch", "flipped bit"),
        (not_llmc, "bad magic", "not a binary"),
        (other_chip, "unknown chip 'npu2077'", "unknown chip"),
    ]


def test(options, failures):
    llmc = os.path.realpath(options["llmc"])
    tmp = scratch_directory()
    good = convert_demo(llmc, os.path.join(tmp, "good.llmc"), "-q", "W4BF16")
    for path, message, what in bad_binaries(good, os.path.realpath(options["set-chip"]), tmp):
        failures.expect_error(run_llmc(llmc, "inspect", path), message, f"inspect: {what}")
        failures.expect_error(run_llmc(llmc, "inspect", "--json", path), message,
                              f"inspect --json: {what}")
        failures.expect_error(run_llmc(llmc, "chat", "-m", path, stdin="hello\n"), message,
                              f"chat: {what}")

    # Without tokenizer.json the binary has none: inspect says so, chat
    # refuses.
    bare = os.path.join(tmp, "bare")
    os.mkdir(bare)
    for name in ("config.json", "generation_config.json", "model.safetensors"):
        os.symlink(os.path.realpath(os.path.join(DEMO, name)), os.path.join(bare, name))
    bare_binary = convert_demo(llmc, os.path.join(tmp, "bare.llmc"), checkpoint=bare)
    result = run_llmc(llmc, "inspect", bare_binary)
    failures.check(result.returncode == 0 and "tokenizer: none" in result.stdout,
                   f"inspect without a tokenizer: {result.stderr.strip()}")
    failures.expect_error(run_llmc(llmc, "chat", "-m", bare_binary, stdin="hello\n"),
                          "holds no tokenizer", "chat without a tokenizer")
    failures.expect_error(run_llmc(llmc, "chat", "-m", good, "--template", "jinja",
                                   stdin="hello\n"), "unknown template", "chat --template")


if __name__ == "__main__":
    main(test)
