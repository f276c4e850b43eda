"""Agent frameworks' own pause points, answered from Telegram through Arbiter Zebu.

One function per framework, each in the framework's own terms; each pushes one plan, blocks until the owner has
submitted it (or `timeout` seconds have passed: the plan is withdrawn and `TimeoutError` raised) and returns what
the framework resumes with:

- `review_langchain(interrupt_value)`: LangChain 1.x `HumanInTheLoopMiddleware` (batched interrupts, its
  default): every action request of the interrupt is one decision offering exactly its `allowed_decisions`;
  returns `{"decisions": [...]}` for `Command(resume=...)`.
- `ask_langgraph(value)`: a plain LangGraph `interrupt(value)`: a string is a free-text question, a dict
  `{"question", "options", "multi"?}` a choice; returns the resume value.
- `approve_openai(result)`: an OpenAI Agents SDK run result with `interruptions`: each is a decision (approve or
  reject); returns `result.to_state()` with every interruption approved or rejected, for `Runner.run(agent,
  state)`.

Standard library only: it runs the `arbiter` CLI (ARBITER_BIN, default `arbiter` on PATH) on the queue in
ARBITER_QUEUE (default: the one arbiter finds itself). The frameworks are never imported here.
"""

import json
import os
import re
import subprocess

__all__ = ["review_langchain", "ask_langgraph", "approve_openai"]

TIMED_OUT = 3  # `arbiter await` exit code when the timeout came first


def _arbiter():
    return os.environ.get("ARBITER_BIN", "arbiter")


def _line(text, limit=120):
    """One line of at most `limit` characters (titles and labels must be one line)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _slug(text):
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")[:40] or "x"


def _markdown(text):
    """An agent's text as a context that cannot change the plan's shape: a line that would start a section or
    an options list is escaped (Markdown shows it as written)."""
    lines = []
    for line in str(text).splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("#", "**Options:**", "**Proposal:**", "**Context:**", "---")):
            line = line[: len(line) - len(stripped)] + "\\" + stripped
        lines.append(line)
    return "\n".join(lines)


def _json_block(value):
    text = json.dumps(value, indent=2, ensure_ascii=False)
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}json\n{text}\n{fence}"


def _ask(plan, timeout):
    """Pushes `plan` (the JSON plan spec), waits for it to be submitted and returns `arbiter await --json`'s
    object. After `timeout` seconds the plan is withdrawn and TimeoutError raised."""
    pushed = subprocess.run(
        [_arbiter(), "push", "--json"], input=json.dumps(plan), capture_output=True, text=True
    )
    if pushed.returncode != 0:
        raise RuntimeError(f"arbiter push failed: {pushed.stderr.strip()}")
    pushed = json.loads(pushed.stdout)
    cmd = [_arbiter(), "await", pushed["id"], "--json"]
    if timeout is not None:
        cmd += ["--timeout", f"{max(1, round(timeout * 1000))}ms"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode == TIMED_OUT:
        # Nobody answered in time: withdraw the question (on the record, and the owner's views say so) so nobody
        # answers into the void.
        withdrawn = subprocess.run(
            [_arbiter(), "withdraw", pushed["id"], "--reason", f"no answer within {timeout} s"],
            capture_output=True,
            text=True,
        )
        if withdrawn.returncode != 0:
            # Submitted just now: the answer stands.
            done = subprocess.run(
                [_arbiter(), "await", pushed["id"], "--json", "--timeout", "2s"],
                capture_output=True,
                text=True,
            )
            if done.returncode == 0:
                return json.loads(done.stdout)
        raise TimeoutError(f"no answer from the owner within {timeout} s (plan {pushed['id']})")
    if done.returncode != 0:
        raise RuntimeError(f"arbiter await failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def _answered(decision):
    """(answer, note) of a decision from `get --json`; answer is None when it was skipped."""
    if decision.get("status") != "answered":
        return None, decision.get("note")
    return decision.get("answer"), decision.get("note")


# LangChain: HumanInTheLoopMiddleware ------------------------------------------------------------------------

_LABELS = {
    "approve": "✅ Approve: run it as it is",
    "reject": "❌ Reject: don't run it (your 💬 Note is the reason the model reads)",
    "respond": "💬 Reply instead of running it (your 💬 Note is the tool's result)",
}


def _langchain_decision(n, request, allowed):
    name = request.get("name", "tool")
    args = request.get("args", {})
    decision = {
        "id": f"a{n}-{_slug(name)}",
        "title": _line(f"{name}"),
        "required": True,
    }
    # The middleware's default description repeats the call as `Tool: …` / `Args: {…}` (a Python repr): the
    # arguments are shown as JSON below instead.
    described = [
        line
        for line in str(request.get("description") or "").splitlines()
        if not line.startswith(("Tool: ", "Args: "))
    ]
    context = [_markdown("\n".join(described).strip())] if "".join(described).strip() else []
    if "edit" in allowed:
        # The arguments are the proposal: ✅ Approve as is, or ✏️ Edit them (an edit must be a JSON object).
        decision.update(
            kind="edit",
            format="json",
            language="json",
            proposal=json.dumps(args, indent=2, ensure_ascii=False),
        )
        context.append("✏️ Edit the arguments to run it with yours.")
    else:
        context.append(_json_block(args))
        if "respond" in allowed:
            decision["allow_custom"] = True  # a typed answer is the tool's result
            context.append("✏️ A typed answer is the tool's result: the tool does not run.")
    options = [k for k in ("approve", "reject", "respond") if k in allowed]
    if "edit" not in allowed and "respond" in allowed:
        options.remove("respond")  # the typed answer is the reply
    decision["options"] = [{"key": k, "label": _LABELS[k]} for k in options]
    decision["context"] = "\n\n".join(context)
    return decision


def _langchain_resume(request, allowed, answered, proposal):
    """The middleware's decision for one action request from the owner's answer on its plan decision."""
    answer, note = _answered(answered)
    name = request.get("name")

    def reject(message):
        if "reject" not in allowed:
            raise RuntimeError(f"{name}: the owner's answer {answer!r} is not one of {allowed}")
        return {"type": "reject", "message": message} if message else {"type": "reject"}

    if answer is None:  # skipped (the plan makes every decision required; this is for old views)
        return reject(note)
    if answer == "approve" and "approve" in allowed:
        return {"type": "approve"}
    if answer == "reject":
        return reject(note)
    if answer == "respond" and "respond" in allowed:
        return {"type": "respond", "message": note or "(the owner replied without a message)"}
    if "edit" in allowed and answered.get("kind") == "edit":
        try:
            args = json.loads(answer)
        except ValueError:
            return reject(answer)
        if not isinstance(args, dict):
            return reject(answer)
        if answered.get("edited") is False and "approve" in allowed:
            return {"type": "approve"}  # ✅ Approve as is
        if args == proposal and "approve" in allowed:
            return {"type": "approve"}
        return {"type": "edit", "edited_action": {"name": name, "args": args}}
    if "respond" in allowed:  # a typed answer on a decision without edit
        return {"type": "respond", "message": answer}
    return reject(answer)  # a typed answer where no reply is allowed: the tool does not run, the model reads it


def review_langchain(interrupt_value, *, title=None, agent=None, timeout=None) -> dict:
    """Asks the owner about every action request of a `HumanInTheLoopMiddleware` interrupt (the value of
    `result["__interrupt__"][0]`, or `.value` of it) in one plan, one decision per action offering exactly its
    `allowed_decisions`, and returns the resume payload `{"decisions": [...]}` in the actions' order.

    approve → an option; edit → the decision is an `edit` with the arguments as a JSON proposal (✏️ Edit sends
    them back edited: `{"type": "edit", "edited_action": {"name", "args"}}`); reject → an option, the
    decision's 💬 Note (if any) is the message the model reads; respond → the owner's typed text (a custom
    answer, or with edit also allowed the 💬 Note of the `respond` option)."""
    value = getattr(interrupt_value, "value", interrupt_value)
    if value.get("type") == "tool_approval":
        raise ValueError("per_call interrupts are not supported: use interrupt_mode='batched' (the default)")
    requests = value["action_requests"]
    configs = {c["action_name"]: c for c in value.get("review_configs", [])}
    allowed = [
        list(configs.get(r["name"], {}).get("allowed_decisions", ["approve", "edit", "reject", "respond"]))
        for r in requests
    ]
    names = ", ".join(dict.fromkeys(r.get("name", "tool") for r in requests))
    n = len(requests)
    plan = {
        "title": _line(title or f"Review {n} tool call{'s' if n != 1 else ''}: {names}"),
        "agent": agent or "langchain",
        "priority": "high",
        "context": "The agent is paused until you submit.",
        "decisions": [_langchain_decision(i + 1, r, a) for i, (r, a) in enumerate(zip(requests, allowed))],
    }
    result = _ask(plan, timeout)
    by_id = {d["id"]: d for d in result["decisions"]}
    return {
        "decisions": [
            _langchain_resume(r, a, by_id[d["id"]], r.get("args", {}))
            for r, a, d in zip(requests, allowed, plan["decisions"])
        ]
    }


# LangGraph: interrupt(value) --------------------------------------------------------------------------------


def _option_key(option, n, taken):
    key = option if isinstance(option, str) else None
    if key is None or not key.strip() or "\n" in key or "`" in key or key in taken or len(key) > 60:
        key = f"o{n}"
    taken.add(key)
    return key


def ask_langgraph(value, *, title=None, agent=None, timeout=None):
    """The resume value for a plain LangGraph `interrupt(value)`, from the owner.

    A string is asked as a free-text question (`text`): the answer is the text. A dict `{"question", "options":
    [...], "multi"?: bool, "context"?}` is a `choice` (`multi`: several): the answer is the option itself (a
    list of them for multi). Anything else is shown as JSON with a free-text question."""
    value = getattr(value, "value", value)
    decision = {"id": "answer", "required": True}
    context = None
    options = {}
    if isinstance(value, str):
        question = value
        decision.update(kind="text")
    elif isinstance(value, dict) and "question" in value and value.get("options"):
        question = str(value["question"])
        context = value.get("context")
        taken = set()
        for n, option in enumerate(value["options"], 1):
            options[_option_key(option, n, taken)] = option
        decision["options"] = [
            {"key": k, "label": _line(o if isinstance(o, str) else json.dumps(o, ensure_ascii=False))}
            for k, o in options.items()
        ]
        if value.get("multi"):
            decision.update(kind="multi", min=1)
    elif isinstance(value, dict) and "question" in value:
        question = str(value["question"])
        context = value.get("context")
        decision.update(kind="text")
    else:
        question = "Your answer"
        context = _json_block(value)
        decision.update(kind="text")
    first, _, rest = question.strip().partition("\n")
    decision["title"] = _line(first or "Question")
    if context is not None and isinstance(value, dict):
        context = _markdown(context)
    body = "\n\n".join(t for t in (_markdown(rest.strip()), context) if t)
    if body:
        decision["context"] = body
    plan = {
        "title": _line(title or first or "The agent asks"),
        "agent": agent or "langgraph",
        "priority": "high",
        "decisions": [decision],
    }
    answered = _ask(plan, timeout)["decisions"][0]
    answer, _ = _answered(answered)
    if isinstance(answer, list):
        return [options.get(k, k) for k in answer]
    return options.get(answer, answer)


# OpenAI Agents SDK: needs_approval interruptions ------------------------------------------------------------


def approve_openai(result, *, title=None, agent=None, timeout=None):
    """Asks the owner about each of `result.interruptions` (tools with `needs_approval`), shown with the tool's
    name and arguments, and returns `result.to_state()` with each approved (`state.approve`) or rejected
    (`state.reject`, the decision's 💬 Note — or a typed answer — as the `rejection_message` the model reads).
    Resume with `Runner.run(agent, state)`."""
    items = list(result.interruptions)
    decisions = []
    for n, item in enumerate(items, 1):
        name = getattr(item, "name", None) or getattr(item, "tool_name", None) or "tool"
        arguments = getattr(item, "arguments", None)
        try:
            shown = _json_block(json.loads(arguments)) if arguments else "(no arguments)"
        except ValueError:
            shown = "```\n" + str(arguments).replace("```", "'''") + "\n```"
        decisions.append(
            {
                "id": f"t{n}-{_slug(name)}",
                "title": _line(name),
                "required": True,
                "context": f"`{name}` with\n\n{shown}",
                "options": [
                    {"key": "approve", "label": "✅ Approve: run it"},
                    {"key": "reject", "label": "❌ Reject (your 💬 Note is the message the model reads)"},
                ],
            }
        )
    names = ", ".join(dict.fromkeys(d["title"] for d in decisions))
    plan = {
        "title": _line(title or f"Approve {names}"),
        "agent": agent or "openai-agents",
        "priority": "high",
        "context": "The agent is paused until you submit.",
        "decisions": decisions,
    }
    answered = _ask(plan, timeout) if items else {"decisions": []}
    by_id = {d["id"]: d for d in answered["decisions"]}
    state = result.to_state()
    for item, asked in zip(items, decisions):
        answer, note = _answered(by_id[asked["id"]])
        if answer == "approve":
            state.approve(item)
        elif answer == "reject" or answer is None:
            state.reject(item, rejection_message=note or None)
        else:  # a typed answer: the tool does not run, and the model reads the owner's words
            state.reject(item, rejection_message=answer)
    return state
