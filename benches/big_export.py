#!/usr/bin/env python3
"""Issue 36's benchmark of the command-line tool on one large ChatGPT export (printed, never a
timed test): its peak resident memory as a ratio of the file, and its throughput in MB/s with
`--jobs 2` against `--jobs 1`.

    python3 benches/big_export.py [MEGABYTES] [-- extra compare arguments]

The export (default 1,000 MB: conversations of 40 messages, one branch each, as
tests/e2e/big_import.rs writes them) is generated under $TMPDIR at run time and deleted after;
the release CLI is built first (`cargo build --release -p summary-memory-cli`, in
$CARGO_TARGET_DIR). Each run is `compare --policy yours --no-replay --rows /dev/null FILE`
(the dry run: reading, counting every message with o200k_base, measuring), timed by
`/usr/bin/time -v`, which also gives the peak resident set.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

MESSAGES = 40


def conversation(n):
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["m0"]}}
    for t in range(MESSAGES):
        mid = f"m{t}"
        text = (
            f"Conversation {n}, message {t}: the trip to Ghent costs {40 + n % 50} euros for the "
            f"train, {120 + t} for two nights, and the museum pass is {25 + (n + t) % 9} euros; "
            "what should come first?"
        )
        mapping[mid] = {
            "id": mid,
            "message": {
                "id": mid,
                "author": {"role": "user" if t % 2 == 0 else "assistant", "name": None, "metadata": {}},
                "create_time": 1_714_000_000.0 + n * 100 + t,
                "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully",
                "metadata": {},
            },
            "parent": "root" if t == 0 else f"m{t - 1}",
            "children": [f"m{t + 1}"] if t + 1 < MESSAGES else [],
        }
    return {
        "title": f"Conversation {n:05}",
        "create_time": 1_714_000_000.0,
        "update_time": 1_714_000_900.0,
        "conversation_id": f"c0ffee00-0000-4000-8000-{n:012}",
        "current_node": f"m{MESSAGES - 1}",
        "mapping": mapping,
    }


def generate(path, megabytes):
    """Writes the export a conversation at a time; returns how many it holds."""
    limit = megabytes * 1_000_000
    written = 0
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("[")
        written += 1
        while written < limit:
            text = json.dumps(conversation(n), separators=(",", ":"))
            if n:
                out.write(",\n")
                written += 2
            out.write(text)
            written += len(text)
            n += 1
        out.write("]")
    return n


def run(cli, path, jobs, extra):
    command = ["/usr/bin/time", "-v", cli, "compare", "--policy", "yours", "--no-replay",
               "--rows", "/dev/null", "--jobs", str(jobs), *extra, path]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    return wall, peak_kb * 1024


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[: args.index("--")]
    megabytes = int(args[0]) if args else 1000
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "summary-memory-cli"], check=True)
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    cli = os.path.join(target, "release", "summary-memory-cli")
    fd, path = tempfile.mkstemp(prefix="sm-big-export-", suffix=".json")
    os.close(fd)
    try:
        started = time.monotonic()
        n = generate(path, megabytes)
        size = os.path.getsize(path)
        print(f"generated {n} conversations, {size / 1e6:.1f} MB, in {time.monotonic() - started:.0f} s")
        walls = {}
        for jobs in (1, 2):
            wall, peak = run(cli, path, jobs, extra)
            walls[jobs] = wall
            print(
                f"bench: cli --jobs {jobs}: peak resident {peak / 1e6:.1f} MB = {peak / size:.3f}x "
                f"the file; {wall:.1f} s, {size / 1e6 / wall:.2f} MB/s, {n / wall:.0f} conversations/s"
            )
        print(f"bench: cli --jobs 2 against --jobs 1: {walls[1] / walls[2]:.2f}x the throughput")
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
