#!/usr/bin/env bash
# A shell agent that needs a human decision: push a plan (the JSON plan spec), wait for the answers with
# `await --json`, act on them. Needs jq.
#
# ARBITER_BIN: the arbiter binary (default: `arbiter` on PATH). ARBITER_QUEUE: the queue folder (default: the
# one arbiter finds itself). ANSWER_TIMEOUT: how long to wait (default 2h).
set -euo pipefail
arbiter=${ARBITER_BIN:-arbiter}

id=$("$arbiter" push <<'PLAN'
{
  "title": "Database for the NFT service",
  "agent": "swe2",
  "session": "agent:swe2:main",
  "priority": "high",
  "tag": "nft",
  "context": "We need a primary datastore before Friday.",
  "decisions": [
    {"id": "db", "title": "Primary datastore",
     "options": [{"key": "postgresql", "label": "PostgreSQL with JSONB"},
                 {"key": "mongodb", "label": "MongoDB"}]},
    {"id": "name", "title": "Service name", "context": "Free text.", "allow_custom": true}
  ]
}
PLAN
)
echo "asked the human: plan $id" >&2

status=0
answers=$("$arbiter" await "$id" --timeout "${ANSWER_TIMEOUT:-2h}" --json) || status=$?
case $status in
  0)
    db=$(jq -r '.answers.db // "(skipped)"' <<<"$answers")
    name=$(jq -r '.answers.name // "(skipped)"' <<<"$answers")
    who=$(jq -r '.decisions[0].answered_by // "?"' <<<"$answers")
    echo "database: $db"
    echo "service name: $name"
    echo "decided by: $who"
    ;;
  3)
    # Timed out: the plan stays pending; ask again later with the same id.
    echo "no answer yet; later: $arbiter await $id" >&2
    exit 3
    ;;
  *) exit "$status" ;;
esac
