#!/usr/bin/env bash
# Run a program against a fresh `trellis router` on a free loopback port. The router prints
# the address it listens on; the program gets it as TRELLIS_RTI_ADDRESS. The router is
# stopped when the program ends. Usage: run_with_router.sh PROGRAM [ARGS...]
# (TRELLIS_BIN names the trellis binary.)
set -euo pipefail
: "${TRELLIS_BIN:?TRELLIS_BIN must name the trellis binary}"
coproc ROUTER { exec "$TRELLIS_BIN" router --listen tcp://127.0.0.1:0; }
router=$ROUTER_PID
trap 'kill $router 2>/dev/null; wait $router 2>/dev/null || true' EXIT
address=""
while read -r -t 20 -u "${ROUTER[0]}" line; do  # the address comes within 20 s or never
    case $line in
    "listening on "*) address=${line#listening on }; break ;;
    esac
done
[ -n "$address" ] || { echo "the router printed no address within 20 s" >&2; exit 1; }
export TRELLIS_RTI_ADDRESS=$address
"$@"
