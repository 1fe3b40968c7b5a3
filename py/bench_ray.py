"""Ray on two nodes against the CLI with `--jobs 2`, printed (never a timed test): conversations
per second of `summary_memory.ray.compare` on a local two-node cluster (ray.cluster_utils.Cluster,
one CPU a node, each node its own raylet and object store) against `summary-memory-cli compare
--jobs 2`, on the same generated corpus (`SM_BENCH_PARTS` folders of py/tests/corpus.py's three
formats, three files each), under "yours" and the 8 presets, both writing the same `--rows` CSV
(checked). The cluster is started and warmed (its workers and the package imported on both
nodes) before the clock starts, as a standing cluster would be; the CLI's process start and
vocabularies are inside its time. Best of `SM_BENCH_ROUNDS` (2) each; the ratio is Ray's
throughput over the CLI's, so it says what Ray's scheduling, serialisation and per-file tasks
cost on the same two cores.

    SM_CLI=target/release/summary-memory-cli PYTHONPATH=<the release wheel unpacked> \\
        <the Ray venv>/bin/python py/bench_ray.py

`SM_BENCH_CONVERSATIONS` (40) is the size of each part's JSON Lines file; `SM_BENCH_REPLAY=0`
times the dry run alone (`--no-replay`), where the work per file is some sixty times smaller
and Ray's per-task cost shows.
"""

import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).parent / "tests"))
from corpus import write_corpus  # noqa: E402

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

import summary_memory as sm  # noqa: E402
import summary_memory.ray as smray  # noqa: E402
from bench import POLICIES, best  # noqa: E402  (the per-core bench beside this one)


def main():
    cli = os.environ["SM_CLI"]
    n = int(os.environ.get("SM_BENCH_CONVERSATIONS", "40"))
    parts = int(os.environ.get("SM_BENCH_PARTS", "8"))
    rounds = int(os.environ.get("SM_BENCH_ROUNDS", "2"))
    replay = os.environ.get("SM_BENCH_REPLAY", "1") != "0"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        corpus = tmp / "corpus"
        for part in range(parts):
            write_corpus(corpus / f"part{part}", n, seed=part)
        files = sm.files([corpus])
        conversations = sum(1 for _ in sm.read(corpus))
        label = "dry run + replay + checks" if replay else "dry run"
        print(f"Ray on two nodes against the CLI --jobs 2 ({label}): {conversations} conversations in {len(files)} files, {len(POLICIES)} policies")

        cli_out = tmp / "cli.csv"
        args = [cli, "compare", str(corpus), "--jobs", "2", "--rows", str(cli_out)]
        for p in POLICIES:
            args += ["--policy", p]
        if not replay:
            args.append("--no-replay")
        cli_s = best(rounds, lambda: subprocess.run(args, check=True, capture_output=True))

        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        try:
            # Warm: a run over the first part starts a worker on each node and imports the
            # package there.
            smray.compare([corpus / "part0"], POLICIES, tmp / "warm.csv", replay=replay)
            ray_out = tmp / "ray.csv"
            nodes = set()
            progress = lambda done, total, node: nodes.add(node)  # noqa: E731
            ray_s = best(rounds, lambda: smray.compare([corpus], POLICIES, ray_out, replay=replay, progress=progress))
        finally:
            ray.shutdown()
            cluster.shutdown()
        if ray_out.read_bytes() != cli_out.read_bytes():
            raise SystemExit("the Ray CSV differs from the CLI's")
        cli_rate, ray_rate = conversations / cli_s, conversations / ray_s
        print(f"  CLI --jobs 2:   {cli_s:7.2f} s  {cli_rate:8.1f} conv/s")
        print(f"  Ray, two nodes: {ray_s:7.2f} s  {ray_rate:8.1f} conv/s  (files measured on {len(nodes)} nodes)")
        print(f"  Ray / CLI: {ray_rate / cli_rate:.2f}  (the CSVs are identical)")


if __name__ == "__main__":
    main()
