#!/bin/sh
# Feeds a Claude Code hook payload to `arbiter hook claude-code` exactly as Claude Code does (JSON on stdin),
# and prints the decision JSON Claude Code would read. Answer the question on Telegram meanwhile.
#
#   examples/claude-code/try-hook.sh tests/fixtures/claude-code/pre-tool-use-bash.json --timeout 2m
#
# ARBITER_BIN: the arbiter binary (default: `arbiter` on PATH). ARBITER_QUEUE: the queue folder (default: the
# one arbiter finds itself). Other arguments go to the hook: --timeout, --on-timeout, --priority, --tag.
set -eu
payload=${1:?usage: try-hook.sh PAYLOAD.json [--timeout D] [--on-timeout allow|deny|ask]}
shift
"${ARBITER_BIN:-arbiter}" hook claude-code "$@" < "$payload"
