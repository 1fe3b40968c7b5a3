"""The binding's overhead, printed (never a timed test): conversations per second on one core of
`measure` from Python against the CLI's `compare --jobs 1` on the same generated JSON Lines
file, both reading, counting with o200k_base and measuring; the ratio is Python's throughput
over the CLI's, best of `SM_BENCH_ROUNDS` runs each. The CLI's fixed cost per process (starting,
building both vocabularies), timed on a file of one conversation, is taken off its time, as the
package builds its vocabularies once per process (before the timing here).

    SM_CLI=target/release/summary-memory-cli PYTHONPATH=<the release wheel unpacked> \\
        python crates/py/bench.py

`SM_BENCH_CONVERSATIONS` (400) sizes the file; both the dry run alone (`--no-replay`) and the
dry run with the extractive replay and its checks are measured. `SM_BENCH_JOBS` ("1", or a list
such as "1,2,4,8,16") runs each at those thread counts too (`--jobs N`, `measure(jobs=N)`),
for the scaling curve. Build both in one profile (the
release wheel with `maturin build --release`, the CLI with `cargo build --release`).
"""

import os
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent / "tests"))
from corpus import write_corpus  # noqa: E402

import summary_memory as sm  # noqa: E402

POLICIES = ["yours", *sm.Policy.presets()]


def best(rounds, run):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    cli = os.environ["SM_CLI"]
    n = int(os.environ.get("SM_BENCH_CONVERSATIONS", "400"))
    rounds = int(os.environ.get("SM_BENCH_ROUNDS", "3"))
    with tempfile.TemporaryDirectory() as tmp:
        corpus = write_corpus(pathlib.Path(tmp) / "corpus", n)
        path = corpus / "requests.jsonl"
        conversations = sum(1 for _ in sm.read(path))
        out = pathlib.Path(tmp) / "rows.csv"
        one = pathlib.Path(tmp) / "one.jsonl"
        one.write_text(path.read_text().splitlines()[0] + "\n")
        print(f"measure from Python against the CLI, one core each: {conversations} conversations, {len(POLICIES)} policies")
        jobs_list = [int(j) for j in os.environ.get("SM_BENCH_JOBS", "1").split(",")]
        for label, extra in (("dry run", ["--no-replay"]), ("dry run + replay + checks", [])):
            for jobs in jobs_list:
                args = [cli, "compare", str(path), "--jobs", str(jobs), "--rows", str(out), *extra]
                for p in POLICIES:
                    args += ["--policy", p]
                fixed = [a if a != str(path) else str(one) for a in args]
                fixed[fixed.index("--rows") + 1] = str(out) + ".one"
                cli_fixed = best(rounds, lambda: subprocess.run(fixed, check=True, capture_output=True))
                cli_s = best(rounds, lambda: subprocess.run(args, check=True, capture_output=True)) - cli_fixed
                expected = out.read_bytes()
                rows = []

                def python():
                    rows[:] = sm.measure(sm.read(path), POLICIES, replay=not extra, jobs=jobs)

                py_s = best(rounds, python)
                assert sm.rows_csv(rows).encode() == expected, "the rows differ from the CLI's"
                print(
                    f"{label:>26}, {jobs:>2} jobs: CLI {conversations / cli_s:8.1f} conv/s, Python {conversations / py_s:8.1f} conv/s,"
                    f" Python/CLI throughput {cli_s / py_s:.3f} (CLI's fixed cost {cli_fixed:.2f} s taken off)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
