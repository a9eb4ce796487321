"""What the llmc CLI tests share: the demo checkpoint in the repository,
converting it, running llmc, and collecting failures."""

import http.client
import json
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


class Server:
    """`llmc serve` on a free loopback port, stopped on exit."""

    def __init__(self, llmc, binary, *extra):
        self.process = subprocess.Popen(
            [llmc, "serve", "-m", binary, "--port", "0", *extra],
            stderr=subprocess.PIPE, text=True)
        line = self.process.stderr.readline()
        if "listening on http://127.0.0.1:" not in line:
            self.process.kill()
            raise RuntimeError(f"llmc serve did not start: {line}")
        self.port = int(line.rsplit(":", 1)[1])

    def exchange(self, method, path, body=None, headers=None):
        """(status, reply headers, body text); safe from several threads."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        payload = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
        connection.request(method, path, body=payload, headers=headers or {})
        response = connection.getresponse()
        data = response.read().decode()
        connection.close()
        return response.status, dict(response.getheaders()), data

    def request(self, method, path, body=None, headers=None):
        status, _, data = self.exchange(method, path, body, headers)
        return status, data

    def events(self, path, body):
        """The `data:` payloads of a streamed reply, in order."""
        status, data = self.request("POST", path, body)
        return status, [line[len("data: "):] for line in data.split("\n")
                        if line.startswith("data: ")]

    def rss_kib(self):
        """The server's resident set size, from /proc."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS in /proc status")

    def stop(self):
        self.process.kill()
        self.process.wait()


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
