#!/usr/bin/env python3
"""Looks for the solutions' code in a handout: handout_answers.py SOURCE_DIR HANDOUT_DIR.

The code a student writes is what each `// EXERCISE:` ... `// END EXERCISE` region of a chapter's
solution/ headers holds (in SOURCE_DIR). A region's code lines are its lines that are not comments,
compared without their indentation and trailing comment, and only those of 20 characters or more
(shorter ones, `}` or `__syncthreads();`, are in every kernel). A handout file (any text file of
HANDOUT_DIR) that holds two or more code lines of one region holds the answer, or most of it: the
test names the file, the region and the lines, and fails. One line alone is allowed, because some
are the common idiom that any CUDA code has (the grid-stride index `blockIdx.x * blockDim.x +
threadIdx.x` in the read-ceiling kernel of 09_warp_unrolled/harness.cuh).
"""
import os
import re
import sys

MIN_LENGTH = 20


def code_line(line):
    return re.sub(r"\s*//.*$", "", line).strip()


def regions(source_dir):
    """(header, line of its EXERCISE marker, set of code lines) for every exercise region."""
    found = []
    for chapter in sorted(os.listdir(source_dir)):
        folder = os.path.join(source_dir, chapter, "solution")
        if not re.match(r"\d\d_", chapter) or not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            inside, lines, start = False, set(), 0
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    stripped = line.strip()
                    if stripped.startswith("// EXERCISE:"):
                        inside, lines, start = True, set(), number
                    elif stripped.startswith("// END EXERCISE"):
                        inside = False
                        found.append((os.path.join(chapter, "solution", name), start, lines))
                    elif inside and not stripped.startswith("//") and len(code_line(line)) >= MIN_LENGTH:
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
        for name in files:
            path = os.path.join(root, name)
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
                    for line in shown:
                        print("    " + line)
    print("%d exercise regions looked for; %s" % (len(found), "%d times a file holds the code of one" % problems if problems
                                                      else "no file of the handout holds their code"))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
