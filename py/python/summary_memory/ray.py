"""The corpus comparison on a Ray cluster: the files as a Ray Dataset, each measured in
``map_batches`` on whichever node Ray schedules it, and the CLI's ``--rows`` CSV written from
the rows gathered, byte for byte what ``summary-memory-cli compare --rows`` writes for the same
paths and policies.

    import summary_memory.ray
    problems = summary_memory.ray.compare(["exports/"], ["yours", "langchain-v1-middleware"], "rows.csv")

A task lost with its node is run again by Ray (Ray Data retries a task that failed with its
node without limit, and reconstructs from lineage the blocks a lost node held); each file's rows come from the one task whose output survives, so nothing is
counted twice. Needs ``ray[data]`` (``pip install summary-memory[ray]``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from . import _core as sm

FIELDS = (
    "source",
    "index",
    "conversation",
    "policy",
    "turns",
    "summariser_calls",
    "chat_tokens",
    "summariser_tokens_in",
    "summariser_tokens_out",
    "largest_request",
    "over_window",
    "facts_lost",
    "rules_lost",
    "unsourced_figures",
)
TEXT = {"source", "conversation", "policy"}


def _shippable(policy: sm.Policy | str, window: int) -> tuple:
    """A policy as the workers rebuild it: a preset or "yours" by name (sized there), any other
    (a file, a Policy object) as the JSON the page exports, read on the driver."""
    if isinstance(policy, str) and (policy == "yours" or policy in sm.Policy.presets()):
        return ("spec", policy, None)
    loaded = policy if isinstance(policy, sm.Policy) else sm.Policy.load(policy, window)
    return ("json", loaded.id, loaded.label, loaded.to_json())


def _rebuild(shipped, window: int) -> sm.Policy:
    if shipped[0] == "spec":
        return sm.Policy.load(shipped[1], window)
    _, id, label, text = shipped
    return sm.Policy.from_json(text, id, label)


def compare(
    paths: Iterable[str | os.PathLike[str]],
    policies: Iterable[sm.Policy | str],
    out: str | os.PathLike[str],
    *,
    window: int = 128000,
    summary_tokens: int = 150,
    replay: bool = True,
    encoding: str = "o200k_base",
    progress: Callable[[int, int, str], None] | None = None,
) -> list[tuple[str, str]]:
    """Measures every conversation of ``paths`` under ``policies`` on the Ray cluster that
    ``ray.init`` joined (a local one when none was), and writes the CLI's rows CSV to ``out``.
    Returns what could not be read, as (place, reason) pairs (the CLI names them on stderr and
    exits 2); the rows of everything else are written. ``progress(done, files)`` is called on
    the driver as each file's rows arrive, with the id of the node that measured it."""
    import ray

    policies = list(policies)
    shipped = [_shippable(p, window) for p in policies]
    columns = [_rebuild(s, window) for s in shipped]
    files = sm.files(list(paths))
    if not ray.is_initialized():
        ray.init()
    if not files:
        with open(out, "w", newline="") as f:
            f.write(sm.rows_csv([], columns))
        return []

    def measure_batch(batch):
        cols = [_rebuild(s, window) for s in shipped]
        node = ray.get_runtime_context().get_node_id()
        found = {field: [] for field in FIELDS}
        found["problem"], found["node"] = [], []
        for name, path in zip(batch["source"], batch["path"]):
            reader = sm.read(str(path), name=str(name), encoding=encoding, on_problem="collect")
            for row in sm.measure(reader, cols, window=window, summary_tokens=summary_tokens, replay=replay, encoding=encoding, jobs=1):
                for field in FIELDS:
                    found[field].append(getattr(row, field))
                found["problem"].append("")
                found["node"].append(node)
            for place, reason in reader.problems:
                for field in FIELDS:
                    found[field].append(str(name) if field == "source" else "" if field in TEXT else 0)
                found["problem"].append(f"{place}\0{reason}")
                found["node"].append(node)
        return found

    dataset = ray.data.from_items(
        [{"source": name, "path": str(path)} for name, path in files],
        override_num_blocks=len(files),
    )
    measured = dataset.map_batches(
        measure_batch,
        batch_size=1,
        batch_format="numpy",
    )
    rows, problems, done = [], [], set()
    for record in measured.iter_rows():
        if progress and record["source"] not in done:
            done.add(record["source"])
            progress(len(done), len(files), str(record["node"]))
        if record["problem"]:
            place, reason = str(record["problem"]).split("\0", 1)
            problems.append((place, reason))
            continue
        rows.append(
            sm.Row(**{f: str(record[f]) if f in TEXT else int(record[f]) for f in FIELDS})
        )
    with open(out, "w", newline="") as f:
        f.write(sm.rows_csv(rows, columns))
    return problems
