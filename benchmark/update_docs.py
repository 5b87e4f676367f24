#!/usr/bin/env python3
"""Puts the benchmark's results into the docs, so no figure is typed by hand.

    python3 benchmark/update_docs.py [benchmark/results]

README.md: the block between <!-- benchmark:begin --> and <!-- benchmark:end --> becomes the
caption (device, driver, CUDA, date), the table, the main line's steps and the chart.
NN_name/README.md: the block between <!-- benchmark-rows:begin --> and <!-- benchmark-rows:end -->
becomes that chapter's rows of the same run.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def replace_block(path, begin, end, content):
    text = open(path).read()
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        print(f"{path}: no {begin} marker, left unchanged", file=sys.stderr)
        return
    text = pattern.sub(lambda _: f"{begin}\n{content}\n{end}", text)
    open(path, "w").write(text)
    print(f"updated {os.path.relpath(path, ROOT)}")


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "benchmark", "results")
    md = open(os.path.join(results, "results.md")).read().strip()
    caption, tables = md.split("\n\n", 1)
    table, _, steps = tables.partition("\n\nThe main line")  # the main line's table follows the rows
    chart = os.path.relpath(os.path.join(results, "chart.png"), ROOT)
    body = f"Measured with `python3 benchmark/benchmark.py` on {caption}.\n\n{table}\n"
    if steps:
        body += "\nThe main line" + steps + "\n"
    if os.path.exists(os.path.join(ROOT, chart)):
        body += f"\n![GB/s of every kernel against the copy ceiling and cub]({chart})\n"
    replace_block(os.path.join(ROOT, "README.md"), "<!-- benchmark:begin -->", "<!-- benchmark:end -->", body)

    lines = table.splitlines()
    head, rule, rows = lines[0], lines[1], lines[2:]
    chapters = sorted({r.split("|")[2].strip() for r in rows})
    for chapter in chapters:
        readme = os.path.join(ROOT, chapter, "README.md")
        if not os.path.exists(readme):
            continue
        mine = [r for r in rows if r.split("|")[2].strip() == chapter]
        content = f"From the project benchmark ({caption}):\n\n" + "\n".join([head, rule] + mine)
        replace_block(readme, "<!-- benchmark-rows:begin -->", "<!-- benchmark-rows:end -->", content)


if __name__ == "__main__":
    main()
