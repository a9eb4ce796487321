#!/usr/bin/python3
"""Tests count_tests.py on build events and JUnit XML written here."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import count_tests  # noqa: E402

PASSED_AND_SKIPPED = """<testsuites><testsuite name="S">
<testcase name="Runs" classname="S" status="run" result="completed"/>
<testcase name="NeedsAvx2" classname="S" status="run" result="skipped">
<skipped message="this machine has no AVX2"/></testcase>
</testsuite></testsuites>"""

ONE_FAILURE = """<testsuites><testsuite name="T">
<testcase name="Good" classname="T" status="run" result="completed"/>
<testcase name="Bad" classname="T" status="run" result="completed">
<failure message="expected 1"/></testcase>
</testsuite></testsuites>"""


class CountTestsTest(unittest.TestCase):
    def run_counter(self, targets, exit_code=0):
        """targets: label -> (status, XML text or None). Returns (rc, out, err)."""
        with tempfile.TemporaryDirectory() as root:
            events = os.path.join(root, "events.json")
            with open(events, "w") as stream:
                for index, (label, (status, xml)) in enumerate(targets.items()):
                    outputs = []
                    if xml is not None:
                        path = os.path.join(root, f"{index}.xml")
                        with open(path, "w") as f:
                            f.write(xml)
                        outputs.append({"name": "test.xml", "uri": "file://" + path})
                    stream.write(json.dumps({
                        "id": {"targetCompleted": {"label": label}},
                        "children": [{"testSummary": {"label": label}}]}) + "\n")
                    stream.write(json.dumps({
                        "id": {"testResult": {"label": label}},
                        "testResult": {"status": status,
                                       "testActionOutput": outputs}}) + "\n")
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = count_tests.main(["count_tests.py", events, str(exit_code)])
            return rc, out.getvalue(), err.getvalue()

    def test_skipped_cases_are_counted_apart_with_their_reason(self):
        rc, out, err = self.run_counter({"//a:test": ("PASSED", PASSED_AND_SKIPPED)})
        self.assertEqual(rc, 0)
        self.assertEqual(out.strip(), "1 passed, 0 failed, 1 skipped")
        self.assertIn("SKIPPED: //a:test S.NeedsAvx2: this machine has no AVX2", err)

    def test_no_skipped_suffix_when_nothing_skipped(self):
        rc, out, _ = self.run_counter({"//b:test": ("PASSED", None)})
        self.assertEqual((rc, out.strip()), (0, "1 passed, 0 failed"))

    def test_failed_cases_fail_the_run(self):
        rc, out, err = self.run_counter({"//a:test": ("PASSED", PASSED_AND_SKIPPED),
                                         "//c:test": ("FAILED", ONE_FAILURE)})
        self.assertEqual(rc, 1)
        self.assertEqual(out.strip(), "2 passed, 1 failed, 1 skipped")
        self.assertIn("FAILED: //c:test", err)

    def test_a_target_without_result_is_a_failure(self):
        rc, out, _ = self.run_counter({"//d:test": ("NO_STATUS", None)})
        self.assertEqual((rc, out.strip()), (1, "0 passed, 1 failed"))

    def test_a_broken_build_never_reads_green(self):
        rc, out, _ = self.run_counter({"//b:test": ("PASSED", None)}, exit_code=1)
        self.assertEqual((rc, out.strip()), (1, "1 passed, 1 failed"))


if __name__ == "__main__":
    unittest.main()
