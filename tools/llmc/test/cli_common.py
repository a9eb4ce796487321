"""What the llmc CLI tests share: the demo checkpoint in the repository,
converting it, running llmc, and collecting failures."""

import os
import subprocess
import sys
import tempfile

# The demo checkpoint, as a runfile (the tests run from the runfiles root).
DEMO = os.path.join("models", "demo", "fortune-qwen2")


def runfile(path):
    """`path` as $(location) spells it, in the test's runfiles: another
    repository's files are beside the main repository's, not under it."""
    prefix = "external/"
    return os.path.join("..", path[len(prefix):]) if path.startswith(prefix) else path


def scratch_directory():
    return tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))


def convert_demo(llmc, output, *extra, checkpoint=DEMO):
    """Compiles the demo (F32 unless `extra` says -q) for bm1684x."""
    mode = [] if "-q" in extra else ["-q", "F32"]
    subprocess.run([llmc, "convert", "-m", checkpoint, "-c", "bm1684x", "-o", output,
                    "--quiet", *mode, *extra], check=True, capture_output=True)
    return output


def run_llmc(llmc, *args, stdin=None):
    return subprocess.run([llmc, *args], input=stdin, capture_output=True, text=True)


class Failures:
    """Collects what went wrong and reports it as the test's result."""

    def __init__(self):
        self.messages = []

    def check(self, condition, message):
        if not condition:
            self.messages.append(message)
        return condition

    def expect_error(self, result, message, what):
        """`result` exited 1 with `message` on stderr, and did not crash."""
        self.check(result.returncode == 1 and message in result.stderr,
                   f"{what}: expected exit 1 with '{message}', got rc={result.returncode} "
                   f"{result.stderr.strip()}")

    def finish(self):
        for message in self.messages:
            print("FAIL:", message)
        print(f"{len(self.messages)} failures")
        return 1 if self.messages else 0


def main(test):
    """Runs `test(llmc, failures)` with --llmc from the command line."""
    if len(sys.argv) < 2 or not sys.argv[1].startswith("--llmc="):
        sys.exit("usage: TEST.py --llmc=PATH [--set-chip=PATH]")
    options = dict(arg[2:].split("=", 1) for arg in sys.argv[1:])
    failures = Failures()
    test(options, failures)
    sys.exit(failures.finish())
