"""Receive DIS PDUs over UDP and decode them with opendis (a third-party DIS
implementation): one JSON line per PDU on stdout, flushed, until stdin closes or 120 s pass.

Usage: recv.py HOST PORT (0: any free port)
Prints "ready PORT" once bound.
"""
import json
import select
import socket
import sys
import time

from opendis.PduFactory import createPdu


def eid(e):
    return [e.siteID, e.applicationID, e.entityID]


def vec(v):
    return [v.x, v.y, v.z]


def etype(t):
    return [t.entityKind, t.domain, t.country, t.category, t.subcategory, t.specific, t.extra]


def burst(d):
    return {"munition": etype(d.munitionType), "warhead": d.warhead, "fuse": d.fuse,
            "quantity": d.quantity, "rate": d.rate}


def event(e):
    return [e.simulationAddress.site, e.simulationAddress.application, e.eventNumber]


def describe(pdu, size):
    out = {"type": pdu.pduType, "version": pdu.protocolVersion, "exercise": pdu.exerciseID,
           "length": pdu.length, "size": size}
    if pdu.pduType == 1:
        dr = pdu.deadReckoningParameters
        out.update(id=eid(pdu.entityID), force=pdu.forceId, entity_type=etype(pdu.entityType),
                   velocity=vec(pdu.entityLinearVelocity), location=vec(pdu.entityLocation),
                   orientation=[pdu.entityOrientation.psi, pdu.entityOrientation.theta,
                                pdu.entityOrientation.phi],
                   appearance=pdu.entityAppearance, dr_algorithm=dr.deadReckoningAlgorithm,
                   marking=pdu.marking.charactersString(),
                   marking_set=pdu.marking.characterSet)
    elif pdu.pduType == 2:
        out.update(firing=eid(pdu.firingEntityID), target=eid(pdu.targetEntityID),
                   munition=eid(pdu.munitionExpendableID), event=event(pdu.eventID),
                   mission=pdu.fireMissionIndex, location=vec(pdu.location),
                   burst=burst(pdu.descriptor), velocity=vec(pdu.velocity), range=pdu.range)
    elif pdu.pduType == 3:
        out.update(firing=eid(pdu.firingEntityID), target=eid(pdu.targetEntityID),
                   munition=eid(pdu.explodingEntityID), event=event(pdu.eventID),
                   velocity=vec(pdu.velocity), location=vec(pdu.location),
                   burst=burst(pdu.descriptor),
                   relative=vec(pdu.locationInEntityCoordinates), result=pdu.detonationResult)
    elif pdu.pduType == 12:
        out.update(originating=eid(pdu.originatingEntityID),
                   receiving=eid(pdu.receivingEntityID))
    return out


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((host, port))
    print(f"ready {s.getsockname()[1]}", flush=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        readable, _, _ = select.select([s, sys.stdin], [], [], 1.0)
        if sys.stdin in readable and not sys.stdin.readline():
            return  # the test closed our stdin: done
        if s in readable:
            data, _ = s.recvfrom(65536)
            pdu = createPdu(data)
            line = describe(pdu, len(data)) if pdu else {"type": None, "size": len(data)}
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
