"""Type stubs of summary_memory._core, the Rust binding (py/src/lib.rs)."""

import os
import pathlib
from collections.abc import Callable, Iterable, Iterator
from typing import Literal

Encoding = Literal["o200k_base", "cl100k_base", "words"]


class SummaryMemoryError(ValueError):
    """Every error of the package: the app's own message."""

class ReadError(SummaryMemoryError):
    """Something could not be read."""

    place: str
    """The file, and the line or entry (``chat.jsonl line 4``)."""
    reason: str

class PolicyError(SummaryMemoryError):
    """A policy that cannot be used."""

class MeasureError(SummaryMemoryError):
    """A conversation that could not be measured or replayed under a policy."""

class Conversation:
    """One conversation read, as the app holds it."""

    @property
    def source(self) -> str:
        """The file it came from, as a row's ``source`` names it."""
    @property
    def index(self) -> int:
        """Its place among its file's conversations, from 0."""
    @property
    def encoding(self) -> Encoding:
        """The encoding its messages were counted with."""
    @property
    def name(self) -> str:
        """Its name as the page gives it."""
    def messages(self) -> list[dict[str, str | int]]:
        """Every message: ``role``, ``content`` and ``tokens``."""
    def to_json(self) -> str:
        """The conversation as a session file Inspect opens."""

class Reader(Iterator[Conversation]):
    """The conversations of a file, a directory or bytes, read lazily."""

    def __iter__(self) -> Reader: ...
    def __next__(self) -> Conversation: ...
    @property
    def problems(self) -> list[tuple[str, str]]:
        """What could not be read so far: (place, reason), in the order met."""

def read(
    source: str | os.PathLike[str] | bytes | Iterable[str | os.PathLike[str]],
    *,
    encoding: Encoding = "o200k_base",
    name: str | None = None,
    on_problem: Literal["raise", "collect"] = "raise",
) -> Reader:
    """Reads conversations as the CLI and the page read them.

    A path is a file (any name) or a directory (its *.json, *.jsonl and *.ndjson files,
    recursively, sorted); bytes are one file's content, called ``name`` (``<bytes>``); ``name``
    also renames a single file's source (as ``files`` names it under a directory). An array
    or JSON Lines of conversations is streamed entry by entry. A problem (a file that cannot
    be opened, an entry skipped, JSON that is not valid) raises ``ReadError`` where it is met,
    or with ``on_problem="collect"`` is kept in ``Reader.problems`` while reading goes on.
    """

def files(paths: Iterable[str | os.PathLike[str]]) -> list[tuple[str, pathlib.Path]]:
    """The files ``read`` reads under ``paths``: (source name, path) pairs, in order."""

def count_tokens(text: str, encoding: Encoding = "o200k_base") -> int:
    """Counts ``text``'s tokens as the app counts them."""

class Policy:
    """A policy compared: one column of the CSV."""

    @staticmethod
    def load(spec: str, window: int = 128000) -> Policy:
        """As the CLI's ``--policy``: "yours", a peer preset's slug, or a JSON file."""
    @staticmethod
    def from_json(data: str | bytes, id: str, label: str | None = None) -> Policy:
        """From the JSON the page exports (or a session file, or a bare policy)."""
    @staticmethod
    def presets() -> list[str]:
        """Every peer preset's slug, in the page's order."""
    @property
    def id(self) -> str: ...
    @property
    def label(self) -> str: ...
    def to_json(self) -> str:
        """The policy as the page exports it."""

class Row:
    """One conversation under one policy: the CLI's row, field for field."""

    source: str
    index: int
    conversation: str
    policy: str
    turns: int
    summariser_calls: int
    chat_tokens: int
    summariser_tokens_in: int
    summariser_tokens_out: int
    largest_request: int
    over_window: int
    facts_lost: int
    rules_lost: int
    unsourced_figures: int
    def __init__(
        self,
        *,
        source: str,
        index: int,
        conversation: str,
        policy: str,
        turns: int,
        summariser_calls: int,
        chat_tokens: int,
        summariser_tokens_in: int,
        summariser_tokens_out: int,
        largest_request: int,
        over_window: int,
        facts_lost: int,
        rules_lost: int,
        unsourced_figures: int,
    ) -> None: ...
    def as_dict(self) -> dict[str, str | int]:
        """The row as a dict, its keys the CSV's header."""

def measure(
    conversations: Iterable[Conversation],
    policies: Iterable[Policy | str],
    *,
    window: int = 128000,
    summary_tokens: int = 150,
    replay: bool = True,
    encoding: Encoding | None = None,
    jobs: int | None = None,
) -> list[Row]:
    """Every policy on every conversation, on ``jobs`` threads (all cores by default): the
    CLI's rows, in its order. ``replay=False`` is the CLI's ``--no-replay``."""

def rows_csv(rows: Iterable[Row], policies: Iterable[Policy | str] | None = None) -> str:
    """The CLI's ``--rows`` CSV; sorted as the CLI sorts when ``policies`` are given."""

def replay(
    conversations: Iterable[Conversation],
    policies: Iterable[Policy | str],
    out: str | os.PathLike[str],
    *,
    window: int = 128000,
) -> list[pathlib.Path]:
    """Replays each conversation under each policy with the extractive summariser, writing
    session files Inspect opens into ``out`` (named as the CLI's ``replay`` names them)."""

# What summary_memory.langchain's middleware asks the engine (py/src/middleware.rs).

Role = Literal["system", "user", "assistant", "tool"]
EngineMessage = tuple[str, str, list[tuple[str, str, str]], str | None]
"""(role, content, tool calls as (id, name, arguments), tool name)."""

def decide(
    policy: Policy,
    messages: list[tuple[str, int, int, bool]],
    moment: Literal["before_request", "after_reply"],
    *,
    system_prompt: str,
    system_tokens: int,
    summary: str | None,
    reported: int | None,
    messages_before: int,
    messages_now: int,
    count: Callable[[str], int],
) -> tuple[int, bool]:
    """The policy's fold decision (``Policy::decide``): (oldest verbatim messages folded,
    whether the summariser is called). ``messages``: the verbatim messages as (role, tokens,
    characters, calls a tool); ``count``: a text's tokens."""

def request_head_of(policy: Policy, system_prompt: str, summary: str | None = None) -> list[tuple[Literal["system", "summary", "fixed"], Role, str]]:
    """The request's messages before the conversation's: the system prompt and the summary
    where the policy places them, as (kind, role, text)."""

def fold_request(policy: Policy, summary: str | None, messages: list[EngineMessage]) -> list[tuple[Role, str]]:
    """The summariser's request for a fold, as the app writes it: (role, content) pairs."""

def rebuilds(policy: Policy) -> bool:
    """Whether the policy rebuilds its summary from every folded message."""

def unsupported(policy: Policy) -> list[str]:
    """The policy's fields the middleware does not run, named (empty when it runs them all)."""

def count_message(policy: Policy, message: EngineMessage, encoding: Encoding = "o200k_base") -> int:
    """One message's tokens under the policy's own counter."""
