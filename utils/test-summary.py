#!/usr/bin/env python3
"""Sums the results of every test suite into one line for `make test`.

  utils/test-summary.py RESULTS_DIR SUITE...

Each suite writes RESULTS_DIR/SUITE.xml in JUnit form (ctest --output-junit,
lit --xunit-xml-output, Catch2 -r junit, ...). A test case is failed if it has
a <failure> or <error> child, skipped if it has a <skipped> child, and passed
otherwise. A suite without a result file counts as one failed test (it did not
run, or crashed before writing its results). Prints

  test: N passed, M failed, K skipped

and exits 1 if anything failed. Only the Python 3 standard library is used.
"""
import os
import sys
import xml.etree.ElementTree as ET


def count(path):
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            failed += 1
        elif "skipped" in tags:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    results, suites = sys.argv[1], sys.argv[2:]
    passed = failed = skipped = 0
    for suite in suites:
        path = os.path.join(results, suite + ".xml")
        try:
            p, f, s = count(path)
        except (OSError, ET.ParseError) as e:
            print(f"test: suite `{suite}` left no readable results ({e})", file=sys.stderr)
            p, f, s = 0, 1, 0
        passed, failed, skipped = passed + p, failed + f, skipped + s
    print(f"test: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
