#!/usr/bin/python3
"""Counts the passed and failed test cases of one `bazel test` run.

  count_tests.py <build event JSON file> <bazel exit code>

Reads the run's build events: every test target that ran contributes the
test cases of its JUnit XML (`test.xml`); a target that did not run, or ran
without XML, counts as one failed case. Prints `N passed, N failed` and exits
non-zero when anything failed. A broken build (non-zero bazel exit code with
no failed test case) counts as one failed case, so it can never read as green.
"""
import json
import sys
import urllib.parse
import xml.etree.ElementTree as ET


def read_events(path):
    with open(path) as stream:
        for line in stream:
            if line.strip():
                yield json.loads(line)


def count_cases(xml_uri):
    """Returns (passed, failed) of one JUnit XML file."""
    path = urllib.parse.unquote(urllib.parse.urlparse(xml_uri).path)
    root = ET.parse(path).getroot()
    passed = failed = 0
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        else:
            passed += 1
    return passed, failed


def main(argv):
    expected, results = set(), {}
    for event in read_events(argv[1]):
        ident = event.get("id", {})
        if "targetCompleted" in ident and "testSummary" not in ident:
            for child in event.get("children", []):
                if "testResult" in child or "testSummary" in child:
                    expected.add(ident["targetCompleted"]["label"])
        if "testResult" in ident:
            label = ident["testResult"]["label"]
            payload = event.get("testResult", {})
            outputs = {o["name"]: o.get("uri") for o in payload.get("testActionOutput", [])}
            results[label] = (payload.get("status"), outputs.get("test.xml"))
    passed = failed = 0
    for label in sorted(expected | set(results)):
        status, xml_uri = results.get(label, (None, None))
        cases = None
        if xml_uri:
            try:
                cases = count_cases(xml_uri)
            except (OSError, ET.ParseError):
                cases = None
        if cases is None or sum(cases) == 0:
            cases = (1, 0) if status == "PASSED" else (0, 1)
        elif status != "PASSED" and cases[1] == 0:
            cases = (cases[0], 1)
        if cases[1]:
            print(f"FAILED: {label}", file=sys.stderr)
        passed += cases[0]
        failed += cases[1]
    if failed == 0 and (int(argv[2]) != 0 or not (expected | set(results))):
        print("the build failed or ran no test", file=sys.stderr)
        failed = 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
