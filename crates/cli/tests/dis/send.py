"""Send one DIS PDU built with opendis (a third-party DIS implementation) over UDP.

Usage: send.py HOST PORT WHAT EXERCISE
WHAT: entity (Entity State), fire, detonation, remove (Remove Entity), echo (an Entity
State for entity 7:8:9, the id the gateway test's HLA federate gives its vehicle).
The values are the ones crates/cli/tests/gateway_dis.rs checks on the HLA side.
"""
import socket
import sys
from io import BytesIO

from opendis.DataOutputStream import DataOutputStream
from opendis.dis7 import (DetonationPdu, EntityID, EntityStatePdu, EntityType,
                          EulerAngles, EventIdentifier, FirePdu, MunitionDescriptor,
                          RemoveEntityPdu, SimulationAddress, Vector3Double,
                          Vector3Float)

TANK = (11, 22, 33)


def entity_id(triple):
    return EntityID(*triple)


def munition_type():
    return EntityType(2, 9, 225, 2, 1, 0, 0)


def burst():
    return MunitionDescriptor(munition_type(), 1000, 100, 2, 60)


def event():
    return EventIdentifier(SimulationAddress(11, 22), 7)


def entity_state(triple):
    pdu = EntityStatePdu()
    pdu.entityID = entity_id(triple)
    pdu.forceId = 2
    pdu.entityType = EntityType(1, 1, 225, 1, 2, 3, 4)
    pdu.alternativeEntityType = EntityType(1, 1, 222, 2, 0, 0, 0)
    pdu.entityLinearVelocity = Vector3Float(1.5, -2.5, 0.25)
    pdu.entityLocation = Vector3Double(4000000.5, 3000000.25, -1000.75)
    pdu.entityOrientation = EulerAngles(0.5, -0.25, 1.0)
    # Damage moderate (2 at bits 3-4), flames (bit 15), power plant on (bit 22).
    pdu.entityAppearance = (2 << 3) | (1 << 15) | (1 << 22)
    pdu.deadReckoningParameters.deadReckoningAlgorithm = 4  # DRM_RVW
    pdu.deadReckoningParameters.entityLinearAcceleration = Vector3Float(0.5, 0.0, -0.5)
    pdu.deadReckoningParameters.entityAngularVelocity = Vector3Float(0.0, 0.125, 0.0)
    pdu.marking.characterSet = 1
    pdu.marking.setString("T72-RED")
    pdu.capabilities = 0
    return pdu


def fire():
    pdu = FirePdu()
    pdu.firingEntityID = entity_id(TANK)
    pdu.targetEntityID = entity_id((11, 22, 44))
    pdu.munitionExpendableID = entity_id((11, 22, 55))
    pdu.eventID = event()
    pdu.fireMissionIndex = 3
    pdu.location = Vector3Double(1.0, 2.0, 3.0)
    pdu.descriptor = burst()
    pdu.velocity = Vector3Float(100.0, 0.0, 50.0)
    pdu.range = 1500.0
    return pdu


def detonation():
    pdu = DetonationPdu()
    pdu.firingEntityID = entity_id(TANK)
    pdu.targetEntityID = entity_id((11, 22, 44))
    pdu.explodingEntityID = entity_id((11, 22, 55))
    pdu.eventID = event()
    pdu.velocity = Vector3Float(90.0, 0.0, -10.0)
    pdu.location = Vector3Double(5.0, 6.0, 7.0)
    pdu.descriptor = burst()
    pdu.locationInEntityCoordinates = Vector3Float(0.5, 0.0, 1.5)
    pdu.detonationResult = 5
    return pdu


def remove():
    pdu = RemoveEntityPdu(requestID=1)
    pdu.originatingEntityID = entity_id((11, 22, 0))
    pdu.receivingEntityID = entity_id(TANK)
    return pdu


def encode(pdu, exercise):
    pdu.exerciseID = exercise
    # opendis 1.0's header constructor sets the instance's type and family to 0, hiding
    # its classes' own values: put them back.
    pdu.pduType = type(pdu).pduType
    pdu.protocolFamily = type(pdu).protocolFamily
    pdu.pduStatus = 0
    stream = BytesIO()
    pdu.serialize(DataOutputStream(stream))
    data = bytearray(stream.getvalue())
    # opendis writes the length it was given (0 by default): give it the true one.
    data[8:10] = len(data).to_bytes(2, "big")
    return bytes(data)


def main():
    host, port, what, exercise = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    build = {
        "entity": lambda: entity_state(TANK),
        "echo": lambda: entity_state((7, 8, 9)),
        "fire": fire,
        "detonation": detonation,
        "remove": remove,
    }[what]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(encode(build(), exercise), (host, port))


if __name__ == "__main__":
    main()
