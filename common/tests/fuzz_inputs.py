#!/usr/bin/env python3
"""Hostile input against every chapter program (ctest: common.fuzz.<chapter>, one program each).

Runs each program, with the GPU hidden, on malformed .npy and text files, on paths that are not
regular files, on bad option values, where its stdout cannot be written (a pipe whose reader has
gone, /dev/full, closed) and under resource limits (prlimit: one process, a 64 KiB stack, too
little address space). Checks that:
  - no program dies of a signal, and none runs past its time limit;
  - the exit status is one the case allows: 2 for input that is bad for every program, otherwise
    0, 2, 6 or 77 (1 means a wrong result, and nothing here is a kernel's fault);
  - status 2 (and 5, output that could not be written) comes with exactly one line on stderr, in
    printable ASCII;
  - no sanitizer reports anything;
  - peak memory (resident set) stays under --max-rss-mib: the program is killed as it passes it;
    for a large text file, it grows by at most BIG_TEXT_GROWTH times the file's size.
Everything is generated from fixed seeds, so a failure repeats.

  fuzz_inputs.py --work-dir DIR [--max-rss-mib 512] [--jobs 2] PROGRAM...
"""
import argparse
import concurrent.futures
import os
import re
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

BAD = {2}  # bad for every program, whatever its limits
ANY = {0, 2, 6, 77}  # depends on the program (its limits, whether it needs the GPU)
RUNS = {0, 6, 77}  # good input: verified, not verified (every result unchecked), or no GPU to run it on
LOST = {5}  # the output could not be written
ONE_LINE = {2, 5}  # statuses that come with exactly one line on stderr
NOBODY = 65534  # the user the process-limit cases run as when the test runs as root
# The most memory a program may take for a large text file, beyond what it takes for a small one,
# in multiples of the file's size: its numbers need half of that, a copy of them as much again, and
# the allocator (AddressSanitizer's above all) some more.
BIG_TEXT_GROWTH = 3


def write(work, name, data):
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def npy(header, data=b"", version=1, pad=True):
    """A .npy file with `header` (the dictionary's text) in format `version`."""
    preamble = 10 if version == 1 else 12
    text = header.encode("latin-1")
    if pad:
        text += b" " * (-(preamble + len(text) + 1) % 64) + b"\n"
    length = struct.pack("<H" if version == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + length + text + data


def dictionary(descr="'<f4'", shape="(4,)", order="False"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, order, shape)


def file_cases(work, rng):
    """(name, bytes, allowed statuses) for each input file."""
    four = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)
    good = npy(dictionary("'<f4'", "(4,)"), four)
    # numpy reads no header longer than 10,000 bytes by default, nor do the programs; up to there
    # each byte is looked at once (no recursion).
    long_text = " " * 40000
    short_text = " " * 4900
    cases = [
        ("good.npy", good, RUNS),
        ("good_v2.npy", npy(dictionary("'<f4'", "(4,)"), four, version=2), RUNS),
        ("good_v3.npy", npy(dictionary("'<f4'", "(4,)"), four, version=3), RUNS),
        ("good.txt", b"1 2 3\n4\n", RUNS),
        ("long_shape.npy", npy(dictionary("'<f4'", "(" + short_text + "4," + short_text + ")"), four, version=2), RUNS),
        ("longer_shape.npy", npy(dictionary("'<f4'", "(" + long_text + "4," + long_text + ")"), four, version=2), BAD),
        ("long_descr.npy", npy(dictionary("'<f4" + "x" * 9000 + "'"), four, version=2), BAD),
        ("long_key.npy", npy("{'" + "k" * 9000 + "': 'v', " + dictionary("'<f4'")[1:], four, version=2), RUNS),
        ("longer_key.npy", npy("{'" + "k" * 40000 + "': 'v', " + dictionary("'<f4'")[1:], four, version=2), BAD),
        ("long_dims.npy", npy(dictionary("'<f4'", "(" + "1, " * 3000 + ")"), four, version=2), BAD),
        ("decoy_shape.npy", npy("{'note': \"'shape': (16,)\", " + dictionary("'<f4'")[1:], four), RUNS),
        ("header_past_end.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}", BAD),
        ("header_past_end_v1.npy", b"\x93NUMPY\x01\x00\xff\xff{}", BAD),
        ("version0.npy", npy(dictionary("'<f4'"), four, version=1).replace(b"\x01", b"\x00", 1), BAD),
        ("version4.npy", npy(dictionary("'<f4'"), four, version=2).replace(b"\x02", b"\x04", 1), BAD),
        ("no_padding.npy", npy(dictionary("'<f4'"), four, pad=False), RUNS),
        ("nan.npy", npy(dictionary("'<f4'"), struct.pack("<4f", 1, float("nan"), 3, 4)), BAD),
        ("inf.npy", npy(dictionary("'<f8'"), struct.pack("<4d", 1, float("inf"), 3, 4)), BAD),
        # The sum of four 3e38 does not fit in float; where the program looks for a GPU first, 77.
        ("float_overflow.npy", npy(dictionary("'<f4'"), struct.pack("<4f", *[3e38] * 4)), {2, 77}),
        ("double_overflow.npy", npy(dictionary("'<f8'"), struct.pack("<4d", *[1.7e308] * 4)), {2, 77}),
        ("trailing_bytes.npy", good + b"\0", BAD),
        ("missing_bytes.npy", good[:-1], BAD),
        ("empty.npy", b"", BAD),
        ("magic_only.npy", b"\x93NUMPY", BAD),
        ("zero_length.npy", npy(dictionary("'<f4'", "(0,)")), {0, 2}),
        ("empty.txt", b"", {0, 2}),
        ("blank.txt", b" \n\t\r\n", {0, 2}),
        ("nul.txt", b"1 2\x003 4", BAD),
        ("binary.txt", bytes(range(256)), BAD),
        ("escape.txt", b"1 2 \x1b[2J\x1b[31m 3", BAD),
        ("huge_exponent.txt", b"1 1e999", BAD),
        ("long_number.txt", b"1" * 100000, BAD),
        ("long_number_after.txt", b"1 2 " + b"9" * 5000, BAD),
        ("nan.txt", b"1 nan 3", BAD),
        ("inf.txt", b"1 -inf", BAD),
        ("hex.txt", b"0x10 0x20", BAD),
        ("commas.txt", b"1,2,3", BAD),
        ("signs.txt", b"1 -- 2", BAD),
        ("utf8.txt", "1 2 \u00e9".encode("utf-8"), BAD),
        ("bom.txt", b"\xef\xbb\xbf1 2 3", BAD),
        ("big_ints.txt", b"3000000000 -3000000000 1", RUNS),
        ("3000_numbers.txt", b"1 " * 3000, ANY),  # more than the single-block chapters take
        ("3000_numbers_then_garbage.txt", b"1 " * 3000 + b"\0garbage", ANY),
    ]
    for shape in ["(4611686018427387904,)", "(2305843009213693952,)", "(18446744073709551615,)",
                  "(18446744073709551616,)", "(99999999999999999999999999,)", "(-1,)", "(4)", "()", "(2, 2)",
                  "(1, 4)", "(4,,)", "(,)", "(4L,)", "(0x4,)", "(4.0,)", "(True,)", "(" * 1000 + "4," + ")" * 1000]:
        allowed = RUNS if shape == "(4L,)" else BAD
        cases.append(("shape_%d.npy" % len(cases), npy(dictionary("'<f4'", shape), four), allowed))
    for descr, allowed in [("'>f4'", BAD), ("'<i8'", BAD), ("'|b1'", BAD), ("'<f2'", BAD), ("'<c8'", BAD),
                           ("'O'", BAD), ("'<U4'", BAD), ("''", BAD), ("[('a', '<f4')]", BAD), ("None", BAD),
                           ("'<f4", BAD), ("b'<f4'", BAD), ('"<f4"', RUNS)]:
        cases.append(("descr_%d.npy" % len(cases), npy(dictionary(descr), four), allowed))
    for header in ["", "{", "}", "{}", "[]", "{'descr': '<f4'}", "{'descr': '<f4', 'shape': (4,)}",
                   dictionary() + " junk", dictionary().replace("False", "Maybe"),
                   dictionary().replace(", }", ", 'shape': (4,), }"), "{'descr' '<f4'}", "{'descr': '<f4',,}",
                   "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (4,)}", "\0" * 100]:
        allowed = RUNS if header.startswith('{"descr"') else BAD
        cases.append(("header_%d.npy" % len(cases), npy(header, four), allowed))
    # Truncations and single-byte changes of a good file, at fixed pseudo-random places.
    for offset in sorted(rng.sample(range(len(good)), 10)):
        cases.append(("cut_%d.npy" % offset, good[:offset], BAD))
    for k in range(16):
        mutated = bytearray(good)
        for _ in range(rng.randint(1, 3)):
            mutated[rng.randrange(len(good))] = rng.randrange(256)
        cases.append(("mutated_%d.npy" % k, bytes(mutated), ANY))
    for k in range(6):
        text = bytes(rng.choice(b"0123456789+-.eE \n\t") for _ in range(rng.randint(1, 60)))
        cases.append(("random_%d.txt" % k, text, ANY))
    return [(name, write(work, name, data), allowed) for name, data, allowed in cases]


def sparse_header(work):
    """A .npy file whose version-2 header length is 0xFFFFFFFF, and that long, to be refused unread.
    Sparse, so it takes no disk; None where the file system cannot make it so."""
    path = os.path.join(work, "sparse_header.npy")
    size = 12 + 0xFFFFFFFF + 64
    if not os.path.exists(path) or os.path.getsize(path) != size:
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x02\x00\xff\xff\xff\xff{")
            f.truncate(size)
    if os.stat(path).st_blocks * 512 > 1 << 20:
        os.remove(path)
        return None
    return path


def special_paths(work):
    fifo = os.path.join(work, "fifo")
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    directory = os.path.join(work, "a_directory")
    os.makedirs(directory, exist_ok=True)
    return [
        ("directory", directory, BAD),
        ("fifo", fifo, BAD),
        ("/dev/zero", "/dev/zero", BAD),  # never ends
        ("/dev/null", "/dev/null", BAD),
        ("missing", os.path.join(work, "no_such_file.npy"), BAD),
        ("newline_name", os.path.join(work, "no\nsuch\x1b[2J.npy"), BAD),
        ("name_too_long", os.path.join(work, "x" * 5000), BAD),
        ("empty_name", "", BAD),
    ]


def option_cases(rng):
    """(name, argument list, allowed statuses)."""
    bad = [
        ["--seed", "-1"], ["--seed", "18446744073709551616"], ["--seed", ""], ["--seed", "1x"], ["--seed", " 1"],
        ["--seed", "1e3"], ["--coarse", ""], ["--coarse", "x"], ["--coarse", "99999999999"], ["--coarse", "-1"],
        ["--block", ""], ["--block", "-256"], ["--block", "99999999999"], ["--block", "256.0"], ["--reps", ""],
        ["--reps", "0"], ["--reps", "-1"], ["--reps", "1e9"], ["--warmup", ""], ["--warmup", "-1"], ["--n", ""],
        ["--n", "2^62"], ["--n", "9999999999999999999"], ["--n", "99999999999999999999"], ["--n", "2^64"],
        ["--n", "1<<64"], ["--n", "1\n"], ["--n", "0x10"], ["--n", "-0"], ["--n", "16384G"], ["--n", "2^62", "--type", "double"],
        ["--type", ""], ["--type", "\x1b[31mint"], ["--kernel", ""], ["--kernel", ","], ["--kernel", "nope"],
        ["--input", ""], ["--op", ""], ["--op", "sum\n"], ["--finish", ""], ["--trace", "--n", "100"],
        ["--frobnicate\x07"], ["--n"], ["--input"], ["stray"], ["--n", "16", "--n", "32"], ["--json=maybe"],
        # --list answers only a command line that would run.
        ["--list", "--n", "garbage"], ["--list", "--seed", "-1"], ["--list", "--reps", "0"], ["--list", "--warmup", ""],
        ["--list", "--input", ""], ["--gpus", "2\n\x1b[31m"], ["--vector-max", "a\nb\x1b"],
    ]
    cases = [("opt_%d" % k, args, BAD) for k, args in enumerate(bad)]
    # Random printable and unprintable garbage as option values (never only digits).
    for k in range(8):
        value = "".join(chr(rng.randrange(1, 256)) for _ in range(rng.randint(1, 12))) + "\x7f"
        option = rng.choice(["--n", "--seed", "--block", "--reps", "--warmup", "--type", "--coarse", "--kernel"])
        cases.append(("garbage_%d" % k, [option, value], BAD))
    # Controls: good options must still run (else a program refusing everything would pass).
    cases += [("control_n16", ["--n", "16"], RUNS), ("control_seed", ["--n", "16", "--seed", "18446744073709551615"], RUNS)]
    return cases


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def output_cases():
    """(name, argument list, allowed statuses, how): runs whose stdout cannot be written. "LIST"
    stands for 5 where the program has --list, 2 where it has not."""
    run_args = ["--n", "16", "--reps", "1", "--warmup", "0"]
    return [(prefix + stdout + suffix, args, allowed, {"stdout": stdout})
            for stdout in ["broken_pipe", "full", "closed"]
            for prefix, suffix, args, allowed in [("stdout_", "", run_args, LOST),
                                                  ("stdout_", "_json", run_args + ["--json"], LOST),
                                                  ("help_stdout_", "", ["--help"], LOST),
                                                  ("list_stdout_", "", ["--list"], "LIST")]]


def worker_cases(work):
    """(name, argument list, allowed statuses, how): bad input met on a worker thread. 2^21 elements
    in 1024 rows, row 700 summing past the largest float (or double): the rows' overflow check
    throws on a worker thread of parallel_chunks, and must still be 2 and one line. The programs
    without --rows refuse it: 2 and one line too."""
    n, rows = 1 << 21, 1024
    per_row = n // rows
    floats = [0.0] * n
    floats[700 * per_row:700 * per_row + 4] = [3e38] * 4
    doubles_text = ["0"] * n
    doubles_text[700 * per_row:700 * per_row + 2] = ["1.7e308", "1.7e308"]  # the same rows, as text
    files = [("rows_overflow_float.npy", npy(dictionary("'<f4'", "(%d,)" % n), struct.pack("<%df" % n, *floats)),
              ["--rows", str(rows)]),
             ("rows_overflow_double.txt", ("\n".join(doubles_text) + "\n").encode(), ["--rows", str(rows)])]
    return [(name, ["--input", write(work, name, data)] + args + ["--json", "--reps", "1", "--warmup", "0"], BAD, None)
            for name, data, args in files]


def limit_cases(work, programs):
    """(name, argument list, allowed statuses, how): runs under resource limits, set by prlimit."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        print("note: prlimit not found: the resource-limit cases are left out")
        return []
    asan = any(is_asan(program) for program in programs)
    good = os.path.join(work, "good.txt")
    quick = ["--reps", "1", "--warmup", "0"]
    big = ["--n", "2^22"] + quick  # several CPU workers' worth: the reference starts threads
    cases = []
    # A user can start no thread beyond its first one or two. Root ignores the limit: as root, the
    # program runs as nobody. LeakSanitizer needs a thread of its own at exit.
    nobody = {"user": NOBODY} if os.geteuid() == 0 else {}
    if nobody and not runs_as_nobody(programs[0]):
        print("note: nobody cannot run %s: the process-limit cases are left out" % programs[0])
    else:
        env = {"ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0"} if asan else {}
        for limit in [1, 2]:
            how = dict(nobody, prefix=[prlimit, "--nproc=%d" % limit, "--"], env=env)
            cases.append(("nproc_%d" % limit, big, ANY, how))
    # A 64 KiB stack: no 64 KiB buffer on it (read_text).
    stack = {"prefix": [prlimit, "--stack=%d" % (64 << 10), "--"]}
    cases.append(("stack_64k_text", ["--input", good] + quick, RUNS, stack))
    cases.append(("stack_64k", ["--n", "16"] + quick, RUNS, stack))
    # Address-space limits, which AddressSanitizer cannot run under (its shadow memory needs a vast
    # address space, and its operator new aborts on a failed allocation, google/sanitizers#295).
    # A host allocation that cannot be made: 2 and one line (77 where a program looks for its GPU
    # before it makes its input).
    if not asan:
        cases.append(("memory_refused", ["--n", "2^26"] + quick, {2, 77},
                      {"prefix": [prlimit, "--as=%d" % (256 << 20), "--"]}))
        # Room for the input but not for a thread's stack: not an internal error (4).
        no_threads = [prlimit, "--as=%d" % (512 << 20), "--stack=%d" % (1 << 30), "--"]
        cases.append(("threads_refused", big, ANY, {"prefix": no_threads}))
    return cases


def is_asan(program):
    """Whether the program was built with AddressSanitizer."""
    with open(program, "rb") as f:
        return b"__asan_init" in f.read()


def runs_as_nobody(program):
    try:
        return subprocess.run([program, "--help"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              user=NOBODY, group=NOBODY, extra_groups=[], timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def run(program, args, max_rss_kib, timeout, how=None):
    """Runs program with args; returns (status or -signal, stderr bytes, peak RSS KiB, what killed it).
    `how`: "prefix" (a command such as prlimit that execs the program), "env" (added variables),
    "user" (to run as), "stdout" ("broken_pipe", "full" or "closed"; else /dev/null)."""
    how = how or {}
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", **how.get("env", {}))  # as on a machine without a GPU
    argv = how.get("prefix", []) + [program] + args
    stdout = subprocess.DEVNULL
    if how.get("stdout") == "broken_pipe":  # the reader has gone before the first write
        reader, stdout = os.pipe()
        os.close(reader)
    elif how.get("stdout") == "full":
        stdout = os.open("/dev/full", os.O_WRONLY)
    elif how.get("stdout") == "closed":
        argv = ["/bin/sh", "-c", 'exec "$0" "$@" >&-'] + argv
    user = {"user": how["user"], "group": how["user"], "extra_groups": []} if "user" in how else {}
    with tempfile.TemporaryFile() as err_file:
        try:
            child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=err_file, env=env, **user)
        finally:
            if stdout != subprocess.DEVNULL:
                os.close(stdout)
        # Reaped here with wait4(), which reports this child's own peak memory.
        killed = None
        deadline = time.monotonic() + timeout
        while True:
            done, status, usage = os.wait4(child.pid, os.WNOHANG)
            if done:
                break
            if rss_kib(child.pid) > max_rss_kib:
                killed = "memory"
            elif time.monotonic() > deadline:
                killed = "time"
            if killed:
                os.kill(child.pid, signal.SIGKILL)
                _, status, usage = os.wait4(child.pid, 0)
                break
            time.sleep(0.002)
        child.returncode = status  # already reaped: Popen must not wait for it again
        err_file.seek(0)
        err = err_file.read(100000)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return code, err, usage.ru_maxrss, killed


# AddressSanitizer's own one-time note, under the asan preset, when a program switches fibers (the
# CPU emulator that chapters 03 to 05 run their kernel on): the sanitizer's line, not the program's.
ASAN_FIBER_NOTE = re.compile(rb"^==\d+==WARNING: ASan doesn't fully support makecontext/swapcontext functions"
                             rb" and may produce false positives in some cases!\n", re.MULTILINE)


def check(program, case, args, allowed, max_rss_kib, timeout, how=None):
    code, err, peak, killed = run(program, args, max_rss_kib, timeout, how)
    err = ASAN_FIBER_NOTE.sub(b"", err)
    problems = []
    if killed == "memory":
        problems.append("killed: more than %d MiB of memory" % (max_rss_kib // 1024))
    elif killed == "time":
        problems.append("killed: still running after %g s" % timeout)
    elif code < 0:
        problems.append("died of signal %d" % -code)
    elif code not in allowed:
        problems.append("exit status %d, expected %s" % (code, " or ".join(map(str, sorted(allowed)))))
    elif peak > max_rss_kib:
        problems.append("peak memory %d MiB, more than %d MiB" % (peak // 1024, max_rss_kib // 1024))
    if code in ONE_LINE:
        lines = err.rstrip(b"\n").split(b"\n")
        if not err.endswith(b"\n") or len(lines) != 1 or not lines[0]:
            problems.append("status %d needs exactly one line on stderr, got %d" % (code, len(lines) if err.strip() else 0))
        elif any(b < 0x20 or b > 0x7E for b in lines[0]):
            problems.append("unescaped control or non-ASCII bytes on stderr")
    if b"Sanitizer" in err or b"runtime error:" in err:
        problems.append("sanitizer report")
    return problems, code, err, peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--max-rss-mib", type=int, default=512)
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--big-text-mib", type=int, default=8, help="size of the large text file")
    parser.add_argument("programs", nargs="+")
    options = parser.parse_args()

    os.makedirs(options.work_dir, exist_ok=True)
    rng = random.Random(15)
    inputs = file_cases(options.work_dir, rng) + special_paths(options.work_dir)
    # A text file far larger than the single-block chapters take, of 8-character numbers: its
    # values take half its size as int32; see BIG_TEXT_GROWTH.
    big = os.path.join(options.work_dir, "big.txt")
    big_size = options.big_text_mib << 20
    if not os.path.exists(big) or os.path.getsize(big) != big_size:
        with open(big, "wb") as f:
            f.write(b"1234567\n" * (big_size // 8))
    inputs.append(("big.txt", big, ANY))
    sparse = sparse_header(options.work_dir)
    if sparse:
        inputs.append(("sparse_header.npy", sparse, BAD))
    else:
        print("note: this file system makes no sparse files: the 4 GiB header case is left out")

    cases = [(name, ["--input", path, "--reps", "1", "--warmup", "0"], allowed, None) for name, path, allowed in inputs]
    cases += worker_cases(options.work_dir)
    cases += [(name, args, allowed, None) for name, args, allowed in option_cases(rng)]
    cases += output_cases() + limit_cases(options.work_dir, options.programs)
    # Which programs have --list (a chapter with variants): it exits 0 there, 2 elsewhere.
    has_list = {program: subprocess.run([program, "--list"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         env=dict(os.environ, CUDA_VISIBLE_DEVICES="")).returncode == 0
                for program in options.programs}
    jobs = [(program, name, args, (LOST if has_list[program] else BAD) if allowed == "LIST" else allowed, how)
            for program in options.programs for name, args, allowed, how in cases]

    started = time.monotonic()
    failures = []
    counts = {}
    peak_of = {}
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        futures = {pool.submit(check, program, name, args, allowed, options.max_rss_mib * 1024, options.timeout, how):
                   (program, name, args) for program, name, args, allowed, how in jobs}
        for future in concurrent.futures.as_completed(futures):
            program, name, args = futures[future]
            problems, code, err, peak = future.result()
            label = os.path.basename(program)
            counts[(label, code)] = counts.get((label, code), 0) + 1
            peak_of[label] = max(peak_of.get(label, 0), peak)
            peak_of[(label, name)] = peak
            if problems:
                failures.append((label, name, args, problems, err))
    # Memory for the large file beyond what the same program takes for a small one.
    for program in options.programs:
        label = os.path.basename(program)
        growth = peak_of[(label, "big.txt")] - peak_of[(label, "good.txt")]
        if growth > BIG_TEXT_GROWTH * big_size // 1024:
            failures.append((label, "big.txt", [big], ["%d MiB more for a %d MiB text file than for a small one"
                                                       % (growth // 1024, options.big_text_mib)], b""))

    print("%d runs (%d cases x %d programs) in %.1f s" % (len(jobs), len(cases), len(options.programs),
                                                          time.monotonic() - started))
    for program in options.programs:
        label = os.path.basename(program)
        by_status = ", ".join("%d x%d" % (code, n) for (p, code), n in sorted(counts.items()) if p == label)
        print("  %-20s exit statuses: %s; peak memory %d MiB" % (label, by_status, peak_of.get(label, 0) // 1024))
    for label, name, args, problems, err in sorted(failures):
        shown = " ".join(repr(a) if len(a) < 80 else repr(a[:77] + "...") for a in args)
        print("FAIL %s [%s] %s: %s" % (label, name, shown, "; ".join(problems)))
        for line in err.decode("utf-8", "replace").splitlines()[:5]:
            print("     stderr: " + line[:300])
    if failures:
        print("%d of %d runs failed" % (len(failures), len(jobs)))
        return 1
    print("every run as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
