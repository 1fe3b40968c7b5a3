"""The binding's overhead, printed (never a timed test): conversations per second of `measure`
from Python against the CLI's `compare` on the same generated JSON Lines file, both reading,
counting with o200k_base and measuring, on one thread (`--jobs 1`, `measure(jobs=1)`; each
also has its reader thread). Each side's throughput is taken from two files, one of n
conversations and one of the same lines k times over, as (k - 1) n over the difference of their
times (best of `SM_BENCH_ROUNDS` each), so that neither side's fixed cost (the CLI's process
start and vocabularies, the package's first call) counts; the ratio is Python's throughput
over the CLI's.

    SM_CLI=target/release/summary-memory-cli PYTHONPATH=<the release wheel unpacked> \\
        python py/bench.py

`SM_BENCH_CONVERSATIONS` (200) is n, k is 2 for the dry run with the extractive replay and its
checks, and 20 for the dry run alone (`--no-replay`), which is some hundred times faster.
`SM_BENCH_JOBS` ("1", or a list such as "1,2,4,8,16") runs each at those thread counts too, for
the scaling curve. Build both in one profile (the release wheel with `maturin build --release`,
the CLI with `cargo build --release`).
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
    n = int(os.environ.get("SM_BENCH_CONVERSATIONS", "200"))
    rounds = int(os.environ.get("SM_BENCH_ROUNDS", "3"))
    jobs_list = [int(j) for j in os.environ.get("SM_BENCH_JOBS", "1").split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        small = write_corpus(tmp / "corpus", n) / "requests.jsonl"
        conversations = sum(1 for _ in sm.read(small))
        out = tmp / "rows.csv"
        print(f"measure from Python against the CLI: {conversations} conversations a file, {len(POLICIES)} policies")
        for label, extra, k in (("dry run", ["--no-replay"], 20), ("dry run + replay + checks", [], 2)):
            big = tmp / f"big-{k}.jsonl"
            big.write_text(small.read_text() * k)
            for jobs in jobs_list:

                def cli_run(path):
                    args = [cli, "compare", str(path), "--jobs", str(jobs), "--rows", str(out), *extra]
                    for p in POLICIES:
                        args += ["--policy", p]
                    return lambda: subprocess.run(args, check=True, capture_output=True)

                rows = []

                def py_run(path):
                    def run():
                        rows[:] = sm.measure(sm.read(path), POLICIES, replay=not extra, jobs=jobs)

                    return run

                cli_s = best(rounds, cli_run(big)) - best(rounds, cli_run(small))
                py_s = best(rounds, py_run(big)) - best(rounds, py_run(small))
                cli_run(small)()
                assert sm.rows_csv(rows).encode() == out.read_bytes(), "the rows differ from the CLI's"
                extra_conversations = (k - 1) * conversations
                print(
                    f"{label:>26}, {jobs:>2} jobs: CLI {extra_conversations / cli_s:8.1f} conv/s,"
                    f" Python {extra_conversations / py_s:8.1f} conv/s, Python/CLI throughput {cli_s / py_s:.3f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
