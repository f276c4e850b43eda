#!/usr/bin/env python3
"""The Claude Agent SDK with Arbiter Zebu as an MCP server: the agent asks the human through the arbiter_* tools.

    pip install claude-agent-sdk
    python3 examples/agent_sdk.py            # runs an agent that asks you which license to use

`python3 examples/agent_sdk.py --check` needs no SDK: it starts the MCP server from the same configuration and
lists its tools over stdio, standard library only (what the tests run).

Environment: ARBITER_BIN (the arbiter binary, default `arbiter` on PATH), ARBITER_QUEUE (the queue folder,
default: the one arbiter finds itself; the server inherits the environment).
"""

import asyncio
import json
import os
import subprocess
import sys

ARBITER = os.environ.get("ARBITER_BIN", "arbiter")

# The Agent SDK's `mcp_servers` option: a stdio server named "arbiter". Its tools reach the agent as
# mcp__arbiter__<tool>.
MCP_SERVERS = {"arbiter": {"type": "stdio", "command": ARBITER, "args": ["mcp"]}}
TOOLS = [
    "arbiter_push",
    "arbiter_status",
    "arbiter_get",
    "arbiter_await",
    "arbiter_withdraw",
    "arbiter_list",
    "arbiter_notifications",
]
ALLOWED_TOOLS = [f"mcp__arbiter__{tool}" for tool in TOOLS]

PROMPT = """Before adding a LICENSE file, ask the human which license to use: push a plan with arbiter_push
(one decision, options mit, apache-2.0 and gpl-3.0), then call arbiter_await with its id until the plan is
completed, and report the answer."""


async def run_agent():
    from claude_agent_sdk import ClaudeAgentOptions, query  # pip install claude-agent-sdk

    options = ClaudeAgentOptions(mcp_servers=MCP_SERVERS, allowed_tools=ALLOWED_TOOLS)
    async for message in query(prompt=PROMPT, options=options):
        print(message)


def check():
    """Starts the configured server and lists its tools: the configuration works without the SDK."""
    server = MCP_SERVERS["arbiter"]
    proc = subprocess.Popen(
        [server["command"], *server["args"]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )

    def request(id_, method, params):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            message = json.loads(proc.stdout.readline())
            if message.get("id") == id_:
                return message["result"]

    try:
        request(1, "initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "agent-sdk-example", "version": "1"},
        })
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        proc.stdin.flush()
        names = sorted(tool["name"] for tool in request(2, "tools/list", {})["tools"])
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    print("tools: " + ", ".join(names))
    return 0 if names == sorted(TOOLS) else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    asyncio.run(run_agent())
