"""Summary Memory's core in Python: the same engine as the app and its CLI.

    import summary_memory as sm
    rows = sm.measure(sm.read("exports/"), ["yours", "langchain"])
    open("rows.csv", "w").write(sm.rows_csv(rows))

- ``read(path_or_bytes)`` reads every format the app reads (a file, a directory read
  recursively as the CLI reads it, or bytes), lazily: an export that is an array or JSON Lines
  of conversations is streamed entry by entry.
- ``count_tokens(text, encoding)`` counts as the app counts (o200k_base, cl100k_base, words).
- ``Policy.load(spec)`` takes what the CLI's ``--policy`` takes ("yours", a preset's slug, a
  JSON file); ``Policy.from_json(data, id)`` the JSON the page exports.
- ``measure(conversations, policies)`` returns the CLI's rows, field for field, and
  ``rows_csv(rows)`` its ``--rows`` CSV, byte for byte.
- ``replay(conversations, policies, out)`` writes session files Inspect opens.
- ``summary_memory.langchain.SummaryMemoryMiddleware(policy, model=...)`` runs a policy in a
  LangChain 1.x agent, every fold decided by this engine (``pip install summary-memory[langchain]``).

Errors are ``SummaryMemoryError`` subclasses (``ValueError``s) carrying the app's messages;
``ReadError`` has ``place`` (the file, and the line or entry) and ``reason``.
"""

from ._core import (
    Conversation,
    MeasureError,
    Policy,
    PolicyError,
    ReadError,
    Reader,
    Row,
    SummaryMemoryError,
    count_tokens,
    files,
    measure,
    read,
    replay,
    rows_csv,
)

__all__ = [
    "Conversation",
    "MeasureError",
    "Policy",
    "PolicyError",
    "ReadError",
    "Reader",
    "Row",
    "SummaryMemoryError",
    "count_tokens",
    "files",
    "measure",
    "read",
    "replay",
    "rows_csv",
]
