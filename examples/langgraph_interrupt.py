#!/usr/bin/env python3
"""A LangGraph graph that pauses with `interrupt()` and resumes with the owner's answer from Telegram.

Each `interrupt(value)` is one plan: `ask_langgraph` (arbiter_hitl.py) turns the value into a question (a string:
free text; `{"question", "options", "multi"?}`: a choice) and returns the owner's answer, which resumes the graph
through `Command(resume=...)`. No LLM, no network. Prints what each node got back.

Needs `langgraph` (pip install langgraph==1.2.24). Environment: ARBITER_BIN, ARBITER_QUEUE (see arbiter_hitl.py).
"""

import json
import os
import sys
from typing import TypedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from arbiter_hitl import ask_langgraph  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import Command, interrupt  # noqa: E402


class Release(TypedDict, total=False):
    name: str
    environment: str
    checks: list


def name(state):
    return {"name": interrupt("What should the release be called?")}


def environment(state):
    return {
        "environment": interrupt(
            {"question": f"Where does {state['name']} go first?", "options": ["staging", "production"]}
        )
    }


def checks(state):
    return {
        "checks": interrupt(
            {"question": "Which checks must pass?", "options": ["lint", "unit tests", "e2e"], "multi": True}
        )
    }


def main():
    graph = StateGraph(Release)
    for node in (name, environment, checks):
        graph.add_node(node.__name__, node)
    graph.add_edge(START, "name")
    graph.add_edge("name", "environment")
    graph.add_edge("environment", "checks")
    graph.add_edge("checks", END)
    app = graph.compile(checkpointer=InMemorySaver())

    config = {"configurable": {"thread_id": "release"}}
    result = app.invoke({}, config)
    while result.get("__interrupt__"):
        answer = ask_langgraph(result["__interrupt__"][0].value, agent="release-bot")
        result = app.invoke(Command(resume=answer), config)

    for key in ("name", "environment", "checks"):
        print(f"{key}: {json.dumps(result[key])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
