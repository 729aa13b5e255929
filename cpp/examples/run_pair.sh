#!/usr/bin/env bash
# Run two federates at once against a fresh `trellis router` (see run_with_router.sh); each
# argument is one federate's command line. Exit status: 0 when both succeed.
set -euo pipefail
here=$(dirname "$0")
exec "$here/run_with_router.sh" bash -c '
  $1 & first=$!
  $2 & second=$!
  status=0
  wait $first || status=1
  wait $second || status=1
  exit $status' pair "$1" "$2"
