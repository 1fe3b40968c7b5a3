"""Summary memory for a LangChain v1 agent that runs Summary Memory's own engine.

SummaryMemoryMiddleware (the `summary_memory` package) asks the app's engine, before each model
call and after each reply that ends a turn, whether to fold and what, under the policy below:
the very policy you tuned, so the agent makes the requests the app's dry run shows, exact by
construction. Your summariser model writes the summaries. Run it with
`pip install "summary-memory[langchain]" langchain-openai` and OPENAI_API_KEY set (the key is
read from the environment and never written here): `python summary_memory_middleware.py`.
"""

from langchain.agents import create_agent
from summary_memory.langchain import SummaryMemoryMiddleware

BASE_URL = "https://api.openai.com/v1"
CHAT_MODEL = "gpt-4o-mini"
SUMMARY_MODEL = "gpt-4o-mini"
# Your policy, as the app exports it: its trigger, what it keeps, where the summary goes, its
# prompt, word limit and must-keep list, and the counter it measures with.
POLICY = r"""{
  "trigger": {
    "kind": "messages",
    "max_messages": 12
  },
  "placement": "append_to_system",
  "fold": "progressive",
  "prompt": {
    "preset": "financial_advisor",
    "text": "You are condensing a conversation between a user and a financial advisor assistant. The summary you write replaces these turns: the advisor will see nothing else of them. Write in the third person, as a single paragraph. Keep every figure exactly as the user gave it, and keep the user's own rules as rules, not as preferences. Never add a fact that the conversation does not contain.",
    "word_limit": 80,
    "must_keep": [
      "salary and monthly expenses",
      "existing investments with their values and maturity dates",
      "risk profile",
      "goals",
      "decisions made",
      "advice the advisor gave",
      "hard rules the user stated, worded as rules"
    ]
  },
  "summary_budget": null
}"""


def openai_model(name):
    """An OpenAI-compatible chat model at BASE_URL."""
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model=name, base_url=BASE_URL)


def make_middleware(summariser=None, token_counter=None):
    """The middleware; it counts with the policy's own counter unless given a LangChain
    token_counter (a function of a message list)."""
    return SummaryMemoryMiddleware(
        POLICY,
        model=summariser if summariser is not None else openai_model(SUMMARY_MODEL),
        token_counter=token_counter,
    )


def make_agent(model=None, summariser=None, token_counter=None, tools=(), system_prompt=None, checkpointer=None):
    """An agent with the middleware. The checkpointer keeps each thread's messages and the
    middleware's summary."""
    from langgraph.checkpoint.memory import InMemorySaver

    return create_agent(
        model=model if model is not None else openai_model(CHAT_MODEL),
        tools=list(tools),
        system_prompt=system_prompt,
        middleware=[make_middleware(summariser, token_counter)],
        checkpointer=checkpointer or InMemorySaver(),
    )


if __name__ == "__main__":
    agent = make_agent(system_prompt="You are a helpful assistant.")
    config = {"configurable": {"thread_id": "summary-memory"}}
    while (line := input("you> ").strip()):
        reply = agent.invoke({"messages": [{"role": "user", "content": line}]}, config)
        print("assistant>", reply["messages"][-1].content)
