"""What the scripts here know of the chapters, learnt from the build and the programs, never listed here.

    chapters(build)        the chapters in teaching order, from build/chapters.json (CMake writes it from
                           REDUCTION_CHAPTERS): [{"name", "program", "gpu", "multi_gpu"}, ...]
    chapter(build, name)   one of them
    listing(program)       the program's answer to --list --json: {"chapter", "max_n", "variants":
                           [{"name", "idea", "deterministic"}, ...]}, without the bug zoo's wrong
                           kernels (marked "zoo": true, in a build with REDUCTION_ZOO_KERNELS=ON):
                           they are no part of the chapter to time
"""
import json
import os
import subprocess
import sys


def chapters(build):
    path = os.path.join(build, "chapters.json")
    try:
        with open(path) as f:
            return json.load(f)["chapters"]
    except OSError:
        sys.exit(f"{path} is missing: configure the build first (cmake --preset default)")


def chapter(build, name):
    for entry in chapters(build):
        if entry["name"] == name:
            if not os.path.exists(entry["program"]):
                sys.exit(f"{entry['program']} is not built (cmake --build {build} --target {name})")
            return entry
    sys.exit(f"{name} is not part of the build in {build} (see its chapters.json)")


def listing(program):
    proc = subprocess.run([program, "--list", "--json"], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{program} --list --json: status {proc.returncode}: {proc.stderr.strip()} (a chapter lists its "
                 "variants when its ChapterInfo has them, from the chapter's registry)")
    listed = json.loads(proc.stdout)
    listed["variants"] = [v for v in listed["variants"] if not v.get("zoo", False)]
    return listed
