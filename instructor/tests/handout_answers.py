#!/usr/bin/env python3
"""Looks for the solutions' code in a handout: handout_answers.py SOURCE_DIR HANDOUT_DIR.

A region's code lines are the code lines, of 20 characters or more (shorter ones, `}` or
`__syncthreads();`, are in every kernel), of an `// EXERCISE:` ... `// END EXERCISE` region of
SOURCE_DIR's solution/ headers. A text file of HANDOUT_DIR that holds two or more of one region's
holds the answer, or most of it; one alone may be an idiom any CUDA code has (the grid-stride index).
"""
import glob
import os
import re
import sys


def code_line(line):
    return re.sub(r"\s*//.*$", "", line).strip()


def regions(source_dir):
    """(header, line of its EXERCISE marker, set of code lines) for every exercise region."""
    found = []
    for path in sorted(glob.glob(os.path.join(source_dir, "[0-9][0-9]_*", "solution", "*"))):
        with open(path, encoding="utf-8") as f:
            start = None
            for number, line in enumerate(f, 1):
                stripped = line.strip()
                if stripped.startswith("// EXERCISE:"):
                    start, lines = number, set()
                elif stripped.startswith("// END EXERCISE"):
                    found.append((os.path.relpath(path, source_dir), start, lines))
                    start = None
                elif start and not stripped.startswith("//") and len(code_line(line)) >= 20:
                    lines.add(code_line(line))
    return found


def main():
    source_dir, handout_dir = sys.argv[1], sys.argv[2]
    found = regions(source_dir)
    if not found:
        sys.exit("no exercise region found under %s: is it the repository?" % source_dir)
    problems = 0
    for root, dirs, files in os.walk(handout_dir):
        dirs[:] = [d for d in dirs if d not in (".git", "build")]
        for path in (os.path.join(root, name) for name in files):
            try:
                with open(path, encoding="utf-8") as f:
                    lines = {code_line(line) for line in f}
            except (UnicodeDecodeError, OSError):
                continue  # not a text file
            for header, start, code in found:
                shown = sorted(code & lines)
                if len(shown) >= 2:
                    problems += 1
                    print("%s holds %d code lines of the exercise at %s:%d:" %
                          (os.path.relpath(path, handout_dir), len(shown), header, start))
                    print("".join("    %s\n" % line for line in shown), end="")
    print("%d exercise regions looked for; %s" % (len(found), "%d times a file holds the code of one" % problems
                                                  if problems else "no file of the handout holds their code"))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
