"""A policy tuned in the app, run in production by the app's own engine: a LangChain 1.x agent
middleware.

    from langchain.agents import create_agent
    from summary_memory.langchain import SummaryMemoryMiddleware

    policy = open("policy.json").read()          # the JSON the page's Export panel writes
    agent = create_agent(
        model=chat_model,
        tools=[...],
        system_prompt="...",
        middleware=[SummaryMemoryMiddleware(policy, model=summariser_model)],
        checkpointer=InMemorySaver(),
    )

Every fold decision is the engine's (``Policy::decide``, through the binding), asked where the
app asks it: before each model request (the message it answers is the newest) and after each
reply that ends a turn. What it folds goes to ``model`` (the user's chat model) in the app's
summariser request; the summary is placed where the policy places it (a second system message,
appended to the system prompt, or a user message with an acknowledgement). The agent's state
keeps every message: the middleware rewrites each request, never the history, and keeps its
own place (the summary, how many messages it folded) under the state key ``summary_memory``.

Not run, and refused with a ``PolicyError`` naming the field: the exact fields that keep user
messages beside the summary, make more than one summariser call a fold, send tool traffic in
its own turn only, and the summary budget's compression.

Needs ``langchain>=1`` (``pip install summary-memory[langchain]``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain.agents.middleware.types import ExtendedModelResponse, ModelRequest, ModelResponse
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.types import Command
from typing_extensions import NotRequired

from . import _core
from ._core import Policy, PolicyError

__all__ = ["SummaryMemoryMiddleware", "SummaryMemoryState"]

TokenCounter = Callable[[Sequence[BaseMessage]], int]


class SummaryMemoryState(AgentState):
    """The agent's state with the middleware's place in it."""

    summary_memory: NotRequired[dict[str, Any]]


def _role(message: BaseMessage) -> str:
    return {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}.get(message.type, "user")


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in content)


def _engine_message(message: BaseMessage) -> tuple[str, str, list[tuple[str, str, str]], str | None]:
    calls = [(c.get("id") or "", c["name"], json.dumps(c["args"])) for c in getattr(message, "tool_calls", None) or []]
    return (_role(message), _text(message), calls, getattr(message, "name", None) if message.type == "tool" else None)


def _lc_message(role: str, text: str) -> BaseMessage:
    if role == "system":
        return SystemMessage(content=text)
    if role == "assistant":
        return AIMessage(content=text)
    return HumanMessage(content=text)


def _policy(policy: Policy | str | bytes | dict) -> Policy:
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, dict):
        policy = json.dumps(policy)
    return Policy.from_json(policy, "exported")


class SummaryMemoryMiddleware(AgentMiddleware):
    """Summary memory for a LangChain 1.x agent, decided by Summary Memory's engine.

    Args:
        policy: the policy: a ``summary_memory.Policy``, or the JSON the page exports (a
            string, bytes, or the parsed dict).
        model: the chat model that writes the summaries (the user's own).
        token_counter: counts a list of messages, as LangChain's counters do; by default the
            policy's own counter (``encoding`` for a policy that counts as the app does).
        encoding: the vocabulary of the default count: ``o200k_base`` or ``cl100k_base``.

    Raises:
        PolicyError: the policy cannot be read, or uses a field the middleware does not run.
    """

    state_schema = SummaryMemoryState

    def __init__(
        self,
        policy: Policy | str | bytes | dict,
        *,
        model: BaseChatModel,
        token_counter: TokenCounter | None = None,
        encoding: str = "o200k_base",
    ) -> None:
        super().__init__()
        self.policy = _policy(policy)
        left_out = _core.unsupported(self.policy)
        if left_out:
            raise PolicyError(f"the middleware does not run this policy's {', '.join(left_out)}; export a policy without it")
        self.model = model
        self.encoding = encoding
        self._counter = token_counter

    # -- counting ---------------------------------------------------------------------------

    def _count(self, messages: Sequence[BaseMessage]) -> int:
        if self._counter is not None:
            return int(self._counter(list(messages)))
        return sum(_core.count_message(self.policy, _engine_message(m), self.encoding) for m in messages)

    def _count_text(self, text: str, role: str = "user") -> int:
        return self._count([_lc_message(role, text)])

    # -- the engine's decisions -------------------------------------------------------------

    def _decide(self, place: dict, messages: list[BaseMessage], moment: str, system: str) -> tuple[int, bool]:
        verbatim = messages[place["from"] :]
        measured = [(_role(m), self._count([m]), len(_text(m)), bool(getattr(m, "tool_calls", None))) for m in verbatim]
        return _core.decide(
            self.policy,
            measured,
            moment,
            system_prompt=system,
            system_tokens=self._count_text(system, "system") if system else 0,
            summary=place["summary"],
            reported=place["reported"],
            messages_before=place["checked"],
            messages_now=len(messages),
            count=self._count_text,
        )

    def _fold_request(self, place: dict, messages: list[BaseMessage], folded: int) -> tuple[dict, list[BaseMessage]]:
        """The new place after folding `folded` more messages, and the summariser's request."""
        start = 0 if _core.rebuilds(self.policy) else place["from"]
        to = place["from"] + folded
        request = _core.fold_request(self.policy, place["summary"], [_engine_message(m) for m in messages[start:to]])
        return {**place, "from": to}, [_lc_message(role, text) for role, text in request]

    @staticmethod
    def _summary_of(reply: BaseMessage) -> str:
        return _text(reply).strip()

    def _request(self, request: ModelRequest, place: dict, system: str) -> ModelRequest:
        head = _core.request_head_of(self.policy, system, place["summary"])
        system_message = None
        before: list[BaseMessage] = []
        for kind, role, text in head:
            if kind == "system" and not text:
                continue
            if role == "system" and system_message is None and not before:
                system_message = request.system_message if kind == "system" and request.system_message is not None else SystemMessage(content=text)
            else:
                before.append(_lc_message(role, text))
        return request.override(system_message=system_message, messages=before + list(request.messages[place["from"] :]))

    @staticmethod
    def _place(state: dict) -> dict:
        return dict(state.get("summary_memory") or {"from": 0, "summary": None, "checked": 0, "reported": None})

    @staticmethod
    def _reply(response: Any) -> AIMessage | None:
        if isinstance(response, AIMessage):
            return response
        if isinstance(response, ExtendedModelResponse):
            response = response.model_response
        if isinstance(response, ModelResponse):
            found = [m for m in response.result if isinstance(m, AIMessage)]
            return found[-1] if found else None
        return None

    def _reported(self, sent: ModelRequest, reply: AIMessage | None) -> int:
        usage = getattr(reply, "usage_metadata", None) if reply is not None else None
        if usage and usage.get("input_tokens"):
            return int(usage["input_tokens"])
        messages = ([sent.system_message] if sent.system_message is not None else []) + list(sent.messages)
        return self._count(messages)

    @staticmethod
    def _done(response: Any, place: dict) -> ExtendedModelResponse:
        if isinstance(response, ExtendedModelResponse):
            response = response.model_response
        if isinstance(response, AIMessage):
            response = ModelResponse(result=[response])
        return ExtendedModelResponse(model_response=response, command=Command(update={"summary_memory": place}))

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> ExtendedModelResponse:
        """Folds where the engine decides before the request, sends it with the summary in
        place, and folds where it decides after a reply that ends a turn."""
        place = self._place(request.state)
        system = request.system_prompt or ""
        messages = list(request.messages)
        place = self._fold(place, messages, "before_request", system)
        sent = self._request(request, place, system)
        response = handler(sent)
        reply = self._reply(response)
        place["reported"] = self._reported(sent, reply)
        if reply is not None and not reply.tool_calls:
            place = self._fold(place, messages + [reply], "after_reply", system)
            place["checked"] = len(messages) + 1
        return self._done(response, place)

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> ExtendedModelResponse:
        """``wrap_model_call`` for an agent run with ``ainvoke``."""
        place = self._place(request.state)
        system = request.system_prompt or ""
        messages = list(request.messages)
        place = await self._afold(place, messages, "before_request", system)
        sent = self._request(request, place, system)
        response = await handler(sent)
        reply = self._reply(response)
        place["reported"] = self._reported(sent, reply)
        if reply is not None and not reply.tool_calls:
            place = await self._afold(place, messages + [reply], "after_reply", system)
            place["checked"] = len(messages) + 1
        return self._done(response, place)

    def _fold(self, place: dict, messages: list[BaseMessage], moment: str, system: str) -> dict:
        folded, call = self._decide(place, messages, moment, system)
        if not call:
            return place
        place, ask = self._fold_request(place, messages, folded)
        place["summary"] = self._summary_of(self.model.invoke(ask))
        return place

    async def _afold(self, place: dict, messages: list[BaseMessage], moment: str, system: str) -> dict:
        folded, call = self._decide(place, messages, moment, system)
        if not call:
            return place
        place, ask = self._fold_request(place, messages, folded)
        place["summary"] = self._summary_of(await self.model.ainvoke(ask))
        return place
