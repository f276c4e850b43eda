#!/usr/bin/env python3
"""An orchestrator with a human fallback for its own arbiter.

The orchestrator decides after each step what comes next: hand over to another agent, let the current one
continue, retry the step, or complete the task. Its own arbiter (rules, a model) decides most of the time; when it
can't, the orchestrator asks a human through Arbiter Zebu, with a deadline and a default, so it never blocks:
no answer in time means the default.

Standard library only. Environment: ARBITER_BIN (the arbiter binary, default `arbiter` on PATH), ARBITER_QUEUE
(the queue folder, default: the one arbiter finds itself), HUMAN_TIMEOUT (how long the human has, default 15m).
"""

import json
import os
import subprocess
import sys

ARBITER = os.environ.get("ARBITER_BIN", "arbiter")
TIMED_OUT = 3  # `arbiter await` exit code when the timeout came first


def own_arbiter(step):
    """The orchestrator's own choice, or None when it can't tell (here: whenever the checks disagree)."""
    if step["tests_passed"] and step["review_passed"]:
        return "complete"
    if not step["tests_passed"] and not step["review_passed"]:
        return "retry"
    return None


def ask_human(task, step, agents, default, timeout):
    """Asks the human for the next step; returns (choice, who): who is the answerer's id, or None for the
    default."""
    options = [{"key": a, "label": f"Hand over to {a}"} for a in agents]
    options += [
        {"key": "continue", "label": f"Let {step['agent']} continue"},
        {"key": "retry", "label": "Retry the step"},
        {"key": "complete", "label": "Complete the task"},
    ]
    labels = {o["key"]: o["label"] for o in options}
    plan = {
        "title": f"Next step for {task}",
        "agent": "orchestrator",
        "session": f"orchestrator:{task}",
        "priority": "high",
        "context": (
            f"{step['agent']} finished: tests {'passed' if step['tests_passed'] else 'failed'}, "
            f"review {'passed' if step['review_passed'] else 'failed'}. "
            f"No answer within {timeout} means: {labels[default]}."
        ),
        # The daemon applies the default itself at the deadline (the human sees `⏰ At the deadline: …`, and the
        # answer comes back with answered_by "deadline"). `await --timeout` below is the fallback for when no
        # daemon is running at all.
        "deadline": timeout,
        "on_deadline": "submit",
        "decisions": [{"id": "next", "title": "What next?", "options": options, "default": default}],
    }
    pushed = subprocess.run(
        [ARBITER, "push", "--json"], input=json.dumps(plan), capture_output=True, text=True
    )
    if pushed.returncode != 0:
        raise RuntimeError(f"arbiter push failed: {pushed.stderr.strip()}")
    pushed = json.loads(pushed.stdout)

    done = subprocess.run(
        [ARBITER, "await", pushed["id"], "--timeout", timeout, "--json"],
        capture_output=True,
        text=True,
    )
    if done.returncode == TIMED_OUT:
        # The orchestrator moves on with its default; withdraw the question (on the record) so nobody answers
        # into the void. If it was answered and submitted just now, that is too late: the default stands.
        subprocess.run(
            [ARBITER, "withdraw", pushed["id"], "--reason", f"no answer within {timeout}; default used"],
            capture_output=True,
            text=True,
        )
        return default, None
    if done.returncode != 0:
        raise RuntimeError(f"arbiter await failed: {done.stderr.strip()}")
    result = json.loads(done.stdout)
    decision = result["decisions"][0]
    if decision["answered_by"] == "deadline":  # nobody answered in time: the daemon applied the default
        return decision["answer"], None
    if decision["status"] != "answered":  # skipped: the human leaves it to the default
        return default, decision["answered_by"]
    return decision["answer"], decision["answered_by"]


def main():
    task = "checkout-fix"
    step = {"agent": "coder", "tests_passed": True, "review_passed": False}
    timeout = os.environ.get("HUMAN_TIMEOUT", "15m")

    choice = own_arbiter(step)
    if choice is not None:
        print(f"next step: {choice} (own arbiter)")
        return 0
    choice, who = ask_human(task, step, agents=["reviewer", "tester"], default="continue", timeout=timeout)
    if who is None:
        print(f"next step: {choice} (default: no answer within {timeout})")
    else:
        print(f"next step: {choice} (answered by {who})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
