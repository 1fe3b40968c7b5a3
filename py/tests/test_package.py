"""The package against the real CLI: the same conversations from every wild fixture, the same
rows CSV byte for byte, the same replays, and bad input raised naming the file and place."""

import csv
import io
import json

import pytest

import summary_memory as sm
from conftest import FIXTURES

PRESETS = sm.Policy.presets()


def cli_rows(cli, tmp_path, paths, policies, *extra):
    out = tmp_path / "cli-rows.csv"
    args = ["compare", *paths]
    for p in policies:
        args += ["--policy", p]
    done = cli(*args, "--rows", out, *extra)
    assert done.returncode == 0, done.stderr
    return out.read_bytes().decode()


def test_every_wild_fixture_reads_to_the_conversations_the_cli_reads(cli, tmp_path):
    wild = FIXTURES / "wild"
    text = cli_rows(cli, tmp_path, [wild], ["yours"], "--no-replay")
    expected = [(r["source"], int(r["index"]), r["conversation"], int(r["turns"])) for r in csv.DictReader(io.StringIO(text))]
    conversations = list(sm.read(wild))
    rows = sm.measure(conversations, ["yours"], replay=False)
    assert [(c.source, c.index, c.name) for c in conversations] == [e[:3] for e in expected]
    assert [(r.source, r.index, r.conversation, r.turns) for r in rows] == expected
    # Every format of the app is among them, and each file read from its bytes gives the same
    # conversations as read from its path.
    assert {c.source.split("/")[0] for c in conversations} == {p.name for p in wild.iterdir() if p.is_dir()}
    for path in sorted(p for p in wild.rglob("*") if p.suffix in (".json", ".jsonl", ".ndjson")):
        by_path = [(c.name, c.messages()) for c in sm.read(path)]
        by_bytes = [(c.name, c.messages()) for c in sm.read(path.read_bytes(), name=path.name)]
        assert by_path == by_bytes and by_path, path


def test_measure_rows_equal_the_cli_csv_byte_for_byte_on_a_generated_corpus(cli, corpus, tmp_path):
    yours = tmp_path / "mine.json"
    policy = sm.Policy.load("yours")
    yours.write_text(policy.to_json())
    specs = ["yours", *PRESETS, str(yours)]
    # The replay and its checks under o200k_base; the dry run alone under cl100k_base.
    for encoding, replay in (("cl100k_base", False), ("o200k_base", True)):
        extra = [] if replay else ["--no-replay"]
        expected = cli_rows(cli, tmp_path, [corpus], specs, "--encoding", encoding, *extra)
        reader = sm.read(corpus, encoding=encoding)
        rows = sm.measure(reader, [sm.Policy.load(s) for s in specs], replay=replay, jobs=2)
        assert sm.rows_csv(rows) == expected
        assert len(rows) == (len(expected.splitlines()) - 1)
    # Rows rebuilt from their fields (as the Ray tier hands them over), shuffled, sort back.
    again = [sm.Row(**r.as_dict()) for r in reversed(rows)]
    assert again != rows
    assert sm.rows_csv(again, specs) == expected
    # The exported policy, loaded from the page's JSON, is the same column as its file.
    mine = sm.Policy.from_json(yours.read_bytes(), "mine")
    by_json = sm.measure(sm.read(corpus), [mine], replay=False)
    by_file = sm.measure(sm.read(corpus), [str(yours)], replay=False)
    assert [r.as_dict() | {"policy": "mine"} for r in by_file] == [r.as_dict() for r in by_json]


def test_counting_is_the_apps_per_encoding_and_reaches_the_rows(corpus):
    text = "Keep rent at 1,200 and move 50 into savings. 你好，世界 — naïve café"
    o200k, cl100k = sm.count_tokens(text), sm.count_tokens(text, "cl100k_base")
    assert o200k != cl100k and sm.count_tokens(text, "words") == len(text.split())
    conversation = next(iter(sm.read(corpus)))
    for m in conversation.messages():
        assert m["tokens"] == sm.count_tokens(m["content"])
    with pytest.raises(sm.SummaryMemoryError, match="encoding p50k_base: expected o200k_base, cl100k_base or words"):
        sm.count_tokens(text, "p50k_base")
    with pytest.raises(sm.SummaryMemoryError, match="read with o200k_base, not cl100k_base"):
        sm.measure(sm.read(corpus), ["yours"], encoding="cl100k_base")


def test_reading_is_lazy_over_json_lines(tmp_path):
    lines = [json.dumps({"messages": [{"role": "user", "content": f"hello {i}"}]}) for i in range(3)]
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(lines[:2]) + "\n{broken\n" + lines[2] + "\n")
    reader = sm.read(path)
    first = next(reader)
    assert (first.name, first.index) == ("Imported conversation 1", 0)
    second = next(reader)
    assert second.index == 1
    # The broken line is met only after the conversations before it were handed out.
    with pytest.raises(sm.ReadError) as raised:
        next(reader)
    assert raised.value.place == f"{path} line 3"
    assert str(raised.value).startswith(f"{path} line 3: ")


def test_bad_input_raises_naming_the_file_and_place_and_nothing_is_lost(tmp_path, corpus):
    export = tmp_path / "export.json"
    good = {"title": "Kept", "mapping": {"a": {"id": "a", "parent": None, "children": [], "message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["hi"]}}}}, "current_node": "a"}
    export.write_text(json.dumps([good, {"title": "Bad", "mapping": 3}, good]))
    with pytest.raises(sm.ReadError) as raised:
        list(sm.read(export))
    assert raised.value.place == str(export)
    assert "[1]" in raised.value.reason and "mapping" in raised.value.reason
    reader = sm.read(export, on_problem="collect")
    assert [c.name for c in reader] == ["Kept", "Kept"]
    assert reader.problems == [(raised.value.place, raised.value.reason)]

    with pytest.raises(sm.ReadError, match=r"^<bytes>: "):
        list(sm.read(b"not json at all"))
    missing = tmp_path / "missing.json"
    with pytest.raises(sm.ReadError) as raised:
        list(sm.read([corpus / "alone.json", missing]))
    assert raised.value.place == str(missing) and "cannot be read" in raised.value.reason

    bad_policy = tmp_path / "policy.json"
    bad_policy.write_text('{"trigger": {"kind": "turns", "max_turns": "many"}}')
    with pytest.raises(sm.PolicyError, match=str(bad_policy)):
        sm.Policy.load(str(bad_policy))
    with pytest.raises(sm.PolicyError, match="not a preset"):
        sm.Policy.load("no-such-preset")
    with pytest.raises(sm.PolicyError, match="named twice"):
        sm.measure([], ["yours", "yours"])
    with pytest.raises(sm.PolicyError):
        sm.Policy.from_json("[1, 2", "broken")


def test_replay_writes_the_session_files_the_cli_writes(cli, corpus, tmp_path):
    specs = ["yours", "langchain-v1-middleware"]
    small = tmp_path / "small"
    small.mkdir()
    (small / "alone.json").write_text((corpus / "alone.json").read_text())
    (small / "requests.jsonl").write_text("\n".join((corpus / "requests.jsonl").read_text().splitlines()[:5]) + "\n")
    args = ["replay", small, "--out", tmp_path / "cli"]
    for p in specs:
        args += ["--policy", p]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    written = sm.replay(sm.read(small), specs, tmp_path / "py")
    cli_files = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert sorted(p.name for p in written) == cli_files

    def without_clock(path):
        file = json.loads(path.read_text())
        file.pop("created_ms")
        return file

    for name in cli_files:
        assert without_clock(tmp_path / "py" / name) == without_clock(tmp_path / "cli" / name), name
    # Inspect opens them: each reads back as one session, named as replayed.
    back = list(sm.read(tmp_path / "py"))
    assert len(back) == len(cli_files) and all("(replayed under " in c.name for c in back)


def test_the_stubs_declare_every_name_of_the_binding():
    """_core.pyi names every function, class and exception the extension exports (the
    middleware's bindings included), and nothing it does not."""
    import ast
    import pathlib

    from summary_memory import _core

    stub = pathlib.Path(_core.__file__).with_name("_core.pyi")
    tree = ast.parse(stub.read_text())
    declared = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    exported = {n for n in dir(_core) if not n.startswith("_")}
    assert exported - declared == set(), "exported but not in the stubs"
    assert declared - exported == set(), "in the stubs but not exported"


def test_the_middlewares_bindings_refuse_bad_input_with_the_apps_words():
    policy = sm.Policy.load("yours")
    with pytest.raises(sm.SummaryMemoryError, match='moment "later"'):
        _decide(policy, "later")
    with pytest.raises(sm.SummaryMemoryError, match='role "robot"'):
        sm._core.fold_request(policy, None, [("robot", "hi", [], None)])
    assert _decide(policy, "after_reply") == (0, False)


def _decide(policy, moment):
    return sm._core.decide(
        policy,
        [("user", 5, 20, False), ("assistant", 5, 20, False)],
        moment,
        system_prompt="Be brief.",
        system_tokens=2,
        summary=None,
        reported=None,
        messages_before=0,
        messages_now=2,
        count=lambda text: len(text.split()),
    )
