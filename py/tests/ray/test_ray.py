"""summary_memory.ray on a real local Ray cluster of two nodes (ray.cluster_utils.Cluster, each
node its own raylet and object store): the CSV equals the CLI's byte for byte, and still does
when the second node is removed halfway through a run (Ray runs its lost tasks again)."""

import pytest
import ray
from ray.cluster_utils import Cluster

import summary_memory.ray as smray
from corpus import write_corpus

POLICIES = ["yours", "langchain-v1-middleware", "codex-cli"]
FILES = 6


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Six files of a few conversations each: enough tasks for both nodes to hold some."""
    root = tmp_path_factory.mktemp("ray-corpus")
    for part in range(2):
        write_corpus(root / f"part{part}", 8, seed=part)
    assert len(list(root.rglob("*.json*"))) == FILES
    return root


@pytest.fixture(scope="module")
def cluster():
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    worker = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address)
    yield cluster, worker
    ray.shutdown()
    cluster.shutdown()


def cli_csv(cli, tmp_path, files):
    out = tmp_path / "cli.csv"
    args = ["compare", files, "--rows", out]
    for p in POLICIES:
        args += ["--policy", p]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


def test_two_nodes_write_the_clis_csv_and_survive_losing_one_halfway(cli, files, cluster, tmp_path):
    cluster, worker = cluster
    expected = cli_csv(cli, tmp_path, files)
    assert len(ray.nodes()) == 2

    measured_on = set()
    progress = lambda done, files, node: measured_on.add(node)  # noqa: E731
    assert smray.compare([files], POLICIES, tmp_path / "ray.csv", progress=progress) == []
    assert measured_on == {n["NodeID"] for n in ray.nodes()}, "both nodes measured files"
    assert (tmp_path / "ray.csv").read_bytes() == expected

    # Again, the second node removed once half the files' rows have come back: the rest are
    # being measured or wait, on both nodes, and the blocks the lost node held are gone.
    removed = []

    def progress(done, files, node):
        if not removed and done * 2 >= files:
            cluster.remove_node(worker)
            removed.append(done)

    assert smray.compare([files], POLICIES, tmp_path / "ray-lost.csv", progress=progress) == []
    assert removed and removed[0] < FILES
    assert sum(1 for n in ray.nodes() if n["Alive"]) == 1
    assert (tmp_path / "ray-lost.csv").read_bytes() == expected
