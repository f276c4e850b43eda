#!/usr/bin/env python3
"""An OpenAI Agents SDK agent whose sensitive tools wait for the owner's approval on Telegram.

Tools declared with `needs_approval=True` stop the run with `result.interruptions`; `approve_openai`
(arbiter_hitl.py) asks the owner about each in one plan and returns the run state with each approved or rejected
(a rejection's 💬 Note is the message the model reads); `Runner.run(agent, state)` carries on.

No LLM and no network: a scripted `Model` asks for two tool calls, then reads their outputs; tracing is off and
any OPENAI_API_KEY will do. Prints the tools that ran and what the model read for each call.

Needs `openai-agents` (pip install openai-agents==0.24.0). Environment: ARBITER_BIN, ARBITER_QUEUE (see
arbiter_hitl.py).
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("OPENAI_API_KEY", "sk-offline-example")

from agents import Agent, Model, ModelResponse, Runner, Usage, function_tool, set_tracing_disabled  # noqa: E402
from arbiter_hitl import approve_openai  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

RAN = []  # (tool, arguments) of every tool that really ran
READ = {}  # call id -> the output the model read


@function_tool(needs_approval=True)
def deploy(service: str, environment: str) -> str:
    """Deploy a service."""
    RAN.append(("deploy", {"service": service, "environment": environment}))
    return f"{service} deployed to {environment}"


@function_tool(needs_approval=True)
def drop_table(table: str) -> str:
    """Drop a database table."""
    RAN.append(("drop_table", {"table": table}))
    return f"dropped {table}"


class ScriptedModel(Model):
    """First turn: two tool calls. Next turn: reads the tool outputs, answers "Done."."""

    def __init__(self):
        self.turn = 0

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs,
                           tracing, *, previous_response_id=None, conversation_id=None, prompt=None):
        self.turn += 1
        if self.turn == 1:
            output = [
                ResponseFunctionToolCall(type="function_call", id="fc_1", call_id="call_deploy", name="deploy",
                                         arguments=json.dumps({"service": "shop", "environment": "production"})),
                ResponseFunctionToolCall(type="function_call", id="fc_2", call_id="call_drop", name="drop_table",
                                         arguments=json.dumps({"table": "orders"})),
            ]
        else:
            for item in input if isinstance(input, list) else []:
                item = item if isinstance(item, dict) else item.model_dump()
                if item.get("type") == "function_call_output":
                    READ[item["call_id"]] = item["output"]
            output = [
                ResponseOutputMessage(type="message", id="msg_1", role="assistant", status="completed",
                                      content=[ResponseOutputText(type="output_text", text="Done.",
                                                                  annotations=[])])
            ]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("this example does not stream")


async def main():
    set_tracing_disabled(True)
    agent = Agent(name="ops", instructions="Ship the shop.", model=ScriptedModel(), tools=[deploy, drop_table])
    result = await Runner.run(agent, "Deploy the shop and clean up the old orders table.")
    while result.interruptions:
        # approve_openai blocks (it waits for the owner): keep it off the event loop.
        state = await asyncio.to_thread(approve_openai, result, title="Ops: approve the agent's tools")
        result = await Runner.run(agent, state)

    for name, args in RAN:
        print(f"ran {name} {json.dumps(args, sort_keys=True)}")
    for call_id in sorted(READ):
        print(f"model read for {call_id}: {READ[call_id]}")
    print(f"final: {result.final_output}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
