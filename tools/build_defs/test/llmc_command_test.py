"""The runnable targets llmc_model generates beside a binary:
<chip>_<mode>_run and _chat run llmc on it with the arguments given, from
the runfiles tree as `bazel run` starts them.

  llmc_command_test.py --llmc=PATH --run=PATH --chat=PATH
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..",
                                "llmc", "test"))
from cli_common import main, runfile  # noqa: E402


def test(options, failures):
    run = subprocess.run([runfile(options["run"]), "-p", "A computer is like", "--max-new-tokens", "4"],
                         capture_output=True, text=True)
    failures.check(run.returncode == 0 and run.stdout.strip(),
                   f"_run: rc={run.returncode} {run.stdout!r} {run.stderr.strip()}")
    chat = subprocess.run([runfile(options["chat"]), "--max-new-tokens", "4"], input="Hello\n",
                          capture_output=True, text=True)
    failures.check(chat.returncode == 0 and "> Hello" in chat.stdout,
                   f"_chat: rc={chat.returncode} {chat.stdout!r} {chat.stderr.strip()}")


if __name__ == "__main__":
    main(test)
