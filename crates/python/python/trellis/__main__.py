"""python -m trellis: the commands of the `trellis` CLI that make sense from Python.

    python -m trellis router [--listen tcp://127.0.0.1:7000]   a router in this process
    python -m trellis fom check FILE...                         load modules, print counts
    python -m trellis version
"""

import argparse
import signal
import sys
import threading

from . import ObjectModel, Router, RTIexception, __version__


def _router(args):
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    with Router(args.listen, args.name) as router:
        print(f"listening on {router.address}", flush=True)
        while not stop.wait(0.5):
            pass
    return 0


def _fom_check(args):
    try:
        model = ObjectModel(args.modules)
    except RTIexception as error:
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(model)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m trellis", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    router = commands.add_parser("router", help="run a router (with the federation registry) until Ctrl-C or SIGTERM")
    router.add_argument("--listen", default="tcp://127.0.0.1:7000", help="tcp://HOST:PORT (port 0: a free one)")
    router.add_argument("--name", default="router")
    router.set_defaults(run=_router)
    fom = commands.add_parser("fom", help="object models")
    fom_commands = fom.add_subparsers(dest="fom_command", required=True)
    check = fom_commands.add_parser("check", help="load FOM modules and print what they hold")
    check.add_argument("modules", nargs="+")
    check.set_defaults(run=_fom_check)
    version = commands.add_parser("version", help="print the version")
    version.set_defaults(run=lambda _args: print(__version__) or 0)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
