#!/usr/bin/env python3
"""A LangChain 1.x agent whose tool calls wait for the owner's review on Telegram.

`HumanInTheLoopMiddleware` pauses the agent before its gated tools run; `review_langchain` (arbiter_hitl.py) asks
the owner about every call of the pause in one plan and returns the decisions the agent resumes with.

No LLM and no network: a scripted chat model asks for four tool calls in one turn, then reads what came back.
Prints the tools that ran (with the arguments they received) and what the model read in place of each result.

Needs `langchain` and `langgraph` (pip install langchain==1.5.2 langgraph==1.2.24). Environment: ARBITER_BIN,
ARBITER_QUEUE (see arbiter_hitl.py).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from arbiter_hitl import review_langchain  # noqa: E402
from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import HumanInTheLoopMiddleware  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.types import Command  # noqa: E402

RAN = []  # (tool, arguments) of every tool that really ran


@tool
def send_email(to: str, subject: str, body: str) -> str:
    """Send an email."""
    RAN.append(("send_email", {"to": to, "subject": subject, "body": body}))
    return f"sent to {to}"


@tool
def archive_file(path: str) -> str:
    """Move a file to the archive."""
    RAN.append(("archive_file", {"path": path}))
    return f"archived {path}"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(("delete_file", {"path": path}))
    return f"deleted {path}"


@tool
def ask_owner(question: str) -> str:
    """Ask the owner a question (the owner's reply is the answer)."""
    RAN.append(("ask_owner", {"question": question}))
    return "nobody answered"


class ScriptedModel(GenericFakeChatModel):
    """Replays scripted AIMessages; `create_agent` binds tools to it, which changes nothing."""

    def bind_tools(self, tools, **kwargs):
        return self


def main():
    calls = [
        ("send_email", {"to": "alice@example.com", "subject": "Q3 report", "body": "Attached."}),
        ("archive_file", {"path": "reports/q3-draft.pdf"}),
        ("delete_file", {"path": "reports/q3.pdf"}),
        ("ask_owner", {"question": "Which colour for the cover?"}),
    ]
    model = ScriptedModel(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[
                        {"name": n, "args": a, "id": f"call_{i}", "type": "tool_call"}
                        for i, (n, a) in enumerate(calls, 1)
                    ],
                ),
                AIMessage(content="Done."),
            ]
        )
    )
    agent = create_agent(
        model,
        tools=[send_email, archive_file, delete_file, ask_owner],
        middleware=[
            HumanInTheLoopMiddleware(
                interrupt_on={
                    "send_email": True,  # approve, edit, reject, respond
                    "archive_file": {"allowed_decisions": ["approve", "reject"]},
                    "delete_file": {"allowed_decisions": ["approve", "reject"]},
                    "ask_owner": {"allowed_decisions": ["respond"]},
                }
            )
        ],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "report"}}
    result = agent.invoke(
        {"messages": [{"role": "user", "content": "Send the Q3 report and tidy up."}]}, config
    )
    while result.get("__interrupt__"):
        resume = review_langchain(result["__interrupt__"][0].value, title="Q3 report: review the agent's calls")
        result = agent.invoke(Command(resume=resume), config)

    for name, args in sorted(RAN, key=lambda r: r[0]):
        print(f"ran {name} {json.dumps(args, sort_keys=True)}")
    for message in result["messages"]:
        if isinstance(message, ToolMessage) and message.name not in {n for n, _ in RAN}:
            print(f"model read for {message.name} ({message.status}): {message.content}")
    print(f"final: {result['messages'][-1].content}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
