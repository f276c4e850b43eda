#!/usr/bin/env python3
"""A Python agent that needs a human decision: push a plan, wait for the answers, act on them.

Standard library only: the agent talks to the `arbiter` binary (`push`, then `await --json`).

Environment: ARBITER_BIN (the arbiter binary, default `arbiter` on PATH), ARBITER_QUEUE (the queue folder,
default: the one arbiter finds itself), ANSWER_TIMEOUT (how long to wait, default 2h).
"""

import json
import os
import subprocess
import sys

ARBITER = os.environ.get("ARBITER_BIN", "arbiter")
TIMED_OUT = 3  # `arbiter await` exit code when the timeout came first


def push(plan):
    """Puts a plan (the JSON plan spec) in the queue; returns its id."""
    done = subprocess.run(
        [ARBITER, "push", "--json"],
        input=json.dumps(plan),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"arbiter push failed: {done.stderr.strip()}")
    return json.loads(done.stdout)["id"]


def wait_for_answers(plan_id, timeout):
    """The completed plan (`await --json`), or None if the human has not answered within `timeout`."""
    done = subprocess.run(
        [ARBITER, "await", plan_id, "--timeout", timeout, "--json"],
        capture_output=True,
        text=True,
    )
    if done.returncode == TIMED_OUT:
        return None
    if done.returncode != 0:
        raise RuntimeError(f"arbiter await failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def main():
    plan_id = push(
        {
            "title": "Release 2.4: go or wait?",
            "agent": "release-bot",
            "session": "release-bot:2.4",
            "priority": "high",
            "tag": "release",
            "context": "All checks are green. Two flaky tests were retried once.",
            "decisions": [
                {
                    "id": "ship",
                    "title": "Ship 2.4 today?",
                    "options": [
                        {"key": "ship", "label": "Ship now"},
                        {"key": "wait", "label": "Wait for tomorrow's run"},
                    ],
                },
                {
                    "id": "note",
                    "title": "Anything for the release notes?",
                    "allow_custom": True,
                },
            ],
        }
    )
    print(f"asked the human: plan {plan_id}", file=sys.stderr)

    result = wait_for_answers(plan_id, os.environ.get("ANSWER_TIMEOUT", "2h"))
    if result is None:
        print(f"no answer yet; the plan stays pending: {ARBITER} await {plan_id}", file=sys.stderr)
        return TIMED_OUT

    answers = result["answers"]  # decision id -> answer (None when skipped)
    who = {d["id"]: d["answered_by"] for d in result["decisions"]}
    print(f"ship: {answers['ship']} (by {who['ship']})")
    print(f"release note: {answers['note'] or '(none)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
