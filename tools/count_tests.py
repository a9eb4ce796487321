#!/usr/bin/python3
"""Counts the passed and failed test cases of one `bazel test` run.

  count_tests.py <build event JSON file> <bazel exit code>

Reads the run's build events: every test target that ran contributes the
test cases of its JUnit XML (`test.xml`); a target that did not run, or ran
without XML, counts as one failed case. A skipped case is neither passed nor
failed: it is listed with its reason on stderr and counted apart. Prints
`N passed, N failed` (with `, N skipped` when any was) and exits non-zero
when anything failed. A broken build (non-zero bazel exit code with
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


def skip_reason(case):
    """Why a JUnit test case was skipped, or None when it ran."""
    skipped = case.find("skipped")
    if skipped is not None:
        return skipped.get("message") or (skipped.text or "").strip() or "no reason given"
    if case.get("result") == "skipped" or case.get("status") == "notrun":
        return "no reason given"
    return None


def count_cases(label, xml_uri):
    """Returns (passed, failed, skipped) of one JUnit XML file and prints
    each skipped case with its reason."""
    path = urllib.parse.unquote(urllib.parse.urlparse(xml_uri).path)
    root = ET.parse(path).getroot()
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            continue
        reason = skip_reason(case)
        if reason is None:
            passed += 1
            continue
        skipped += 1
        name = ".".join(filter(None, [case.get("classname"), case.get("name")]))
        print(f"SKIPPED: {label} {name}: {reason}", file=sys.stderr)
    return passed, failed, skipped


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
    passed = failed = skipped = 0
    for label in sorted(expected | set(results)):
        status, xml_uri = results.get(label, (None, None))
        cases = None
        if xml_uri:
            try:
                cases = count_cases(label, xml_uri)
            except (OSError, ET.ParseError):
                cases = None
        if cases is None or sum(cases) == 0:
            cases = (1, 0, 0) if status == "PASSED" else (0, 1, 0)
        elif status != "PASSED" and cases[1] == 0:
            cases = (cases[0], 1, cases[2])
        if cases[1]:
            print(f"FAILED: {label}", file=sys.stderr)
        passed += cases[0]
        failed += cases[1]
        skipped += cases[2]
    if failed == 0 and (int(argv[2]) != 0 or not (expected | set(results))):
        print("the build failed or ran no test", file=sys.stderr)
        failed = 1
    summary = f"{passed} passed, {failed} failed"
    if skipped:
        summary += f", {skipped} skipped"
    print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
