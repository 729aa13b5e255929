#!/usr/bin/env bash
# Run the tutorial pair on a `trellis up` topology: the producer attached to one router, the
# consumer to another. `trellis up` is stopped (and its routers with it) when the pair ends.
# Usage: run_on_topology.sh TOPOLOGY PRODUCER_ROUTER CONSUMER_ROUTER PRODUCER_CMD CONSUMER_CMD
set -euo pipefail
: "${TRELLIS_BIN:?TRELLIS_BIN must name the trellis binary}"
topology=$1 producer_router=$2 consumer_router=$3 producer=$4 consumer=$5
coproc UP { exec "$TRELLIS_BIN" up "$topology"; }
up=$UP_PID
trap 'kill $up 2>/dev/null; wait $up 2>/dev/null || true' EXIT
declare -A address
while read -r -t 30 -u "${UP[0]}" line; do  # every router links up within 30 s or never
    case $line in
    *" listening on "*) address[${line%% *}]=${line##* listening on } ;;
    *"routers up"*) break ;;
    esac
done
[ -n "${address[$producer_router]:-}" ] && [ -n "${address[$consumer_router]:-}" ] ||
    { echo "trellis up did not report $producer_router and $consumer_router" >&2; exit 1; }
$producer --rti "${address[$producer_router]}" & first=$!
$consumer --rti "${address[$consumer_router]}" & second=$!
status=0
wait $first || status=1
wait $second || status=1
exit $status
