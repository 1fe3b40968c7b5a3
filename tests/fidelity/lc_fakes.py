"""Fake LangChain chat models for the drivers: a summariser that answers as the contract's fake
summariser does, and a chat model that records each request and answers from the script, and
the `lookup` tool that answers each scripted call with its scripted result. The models
count tokens with the contract's word counter, through `get_num_tokens_from_messages`, the
method langchain_core's base class says model implementations override
(langchain_core/language_models/base.py, langchain-core 1.8.4)."""

import json
from typing import Annotated

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool

from common import message_tokens


def lc_text(message):
    """The text of a LangChain message (its string content, or its text blocks joined)."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in content)


def lc_tokens(message):
    """The contract's count for one LangChain message."""
    calls = [(c["name"], json.dumps(c["args"])) for c in getattr(message, "tool_calls", None) or []]
    return message_tokens(lc_text(message), calls)


def lc_role(message):
    return {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}[message.type]


def to_ai_message(message):
    """A scripted assistant message as LangChain's AIMessage (tool calls included)."""
    calls = [{"id": c["id"], "name": c["name"], "args": json.loads(c["arguments"]), "type": "tool_call"} for c in message.get("tool_calls", [])]
    return AIMessage(content=message["content"], tool_calls=calls)


class WordCounting(BaseChatModel):
    """Counts with the contract's counter instead of LangChain's default (which adds a role
    prefix per message)."""

    def get_num_tokens_from_messages(self, messages: list[BaseMessage], tools=None) -> int:
        return sum(lc_tokens(m) for m in messages)

    def get_num_tokens(self, text: str) -> int:
        return len(text.split())

    @property
    def _llm_type(self) -> str:
        return "fidelity-fake"


class FakeSummariser(WordCounting):
    """Answers every call with the next text of the contract's fake summariser."""

    summariser: object

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.summariser()))])


class ReadingSummariser(WordCounting):
    """Hands the summariser (inputs.InputSummariser) the text of every message it is sent, and
    answers with what that returns."""

    summariser: object

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        text = self.summariser("\n".join(lc_text(m) for m in messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


class RecordingChat(WordCounting):
    """Records each request's messages and answers with the next scripted assistant message."""

    script: list
    requests: list

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.requests.append(list(messages))
        if not self.script:
            raise RuntimeError("the chat model was called more often than the conversation has assistant messages")
        return ChatResult(generations=[ChatGeneration(message=to_ai_message(self.script.pop(0)))])

    def bind_tools(self, tools, **kwargs):
        # The agent binds its tools; the script already says which calls the model makes.
        return self


def scripted_lookup(conversation):
    """The tool `lookup`: answers each call with the result the conversation scripts for its id."""
    results = {m["tool_call_id"]: m["content"] for m in conversation["messages"] if m["role"] == "tool"}

    @tool
    def lookup(query: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Looks something up."""
        return results[tool_call_id]

    return lookup
