#!/usr/bin/env python3
"""Traffic for the wire tests, from 192.0.2.1 to 192.0.2.2 (lib.sh).

  wire-traffic.py tcp-recv         accept one TCP connection on 192.0.2.2:5001,
                                   print "ready", then "received N" at its end
  wire-traffic.py tcp-send BYTES   send BYTES over one connection to it
  wire-traffic.py udp-imix COUNT   COUNT datagrams to 192.0.2.2:5002 whose
                                   frames have a simple IMIX's lengths (60 to
                                   1514 bytes), paced so that no NIC's ring
                                   overflows under emulation
  wire-traffic.py udp-flows COUNT FLOWS [FIRST]  COUNT datagrams of 100
                                   bytes to 192.0.2.2:5002, numbered from
                                   FIRST (0), in turn from FLOWS source ports
                                   (flow_port()), paced as udp-imix
  wire-traffic.py imix-lengths COUNT  the lengths of udp-imix's COUNT frames
  wire-traffic.py pcap-lengths PCAP  each frame's length on the wire (orig_len)
  wire-traffic.py pcap-frames PCAP   each frame's bytes, in hex
  wire-traffic.py pcap-udp-ids PCAP  the number udp-imix or udp-flows put
                                   first in each datagram to port 5002
"""
import socket
import struct
import sys
import time

# the frames' lengths of mgtestnic's IMIX (mgt_frame_len())
IMIX = (60, 590, 60, 60, 590, 60, 1514, 60, 590, 60, 60, 590)
ETH_IP_UDP = 14 + 20 + 8


def tcp_recv():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("192.0.2.2", 5001))
    s.listen(1)
    print("ready", flush=True)
    c, _ = s.accept()
    n = 0
    while True:
        b = c.recv(65536)
        if not b:
            break
        n += len(b)
    print("received", n, flush=True)


def tcp_send(nbytes):
    c = socket.create_connection(("192.0.2.2", 5001))
    c.sendall(b"x" * nbytes)
    c.close()


def imix_payload(i):
    return IMIX[i % len(IMIX)] - ETH_IP_UDP


def udp_imix(count):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(count):
        s.sendto(i.to_bytes(4, "big") + b"u" * (imix_payload(i) - 4), ("192.0.2.2", 5002))
        if i % 32 == 31:
            time.sleep(0.005)


def flow_port(f):
    """Flow f's source port, distinct for f below 16384.

    A NIC's Toeplitz hash is linear over the bits of the ports: flows whose
    ports differ only in their low 6 bits (40000 to 40063) leave a queue of 4
    empty under about one key in 30 (drawn at boot).  An odd step modulo
    2**14 spreads 64 flows over 14 bits: about one key in 5,000.
    """
    return 1024 + f * 0x9E37 % 16384


def udp_flows(count, flows, first):
    socks = []
    for f in range(flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("192.0.2.1", flow_port(f)))
        socks.append(s)
    for i in range(count):
        socks[i % flows].sendto((first + i).to_bytes(4, "big") + b"f" * 96, ("192.0.2.2", 5002))
        if i % 32 == 31:
            time.sleep(0.005)


def imix_lengths(count):
    for i in range(count):
        print(imix_payload(i) + ETH_IP_UDP)


def pcap_records(path):
    """(orig_len, frame) of each record of a little-endian pcap file"""
    d = open(path, "rb").read()
    magic = struct.unpack("<I", d[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), hex(magic)
    off = 24
    while off + 16 <= len(d):
        _, _, incl, orig = struct.unpack("<IIII", d[off:off + 16])
        yield orig, d[off + 16:off + 16 + incl]
        off += 16 + incl


def pcap_lengths(path):
    for orig, _ in pcap_records(path):
        print(orig)


def pcap_frames(path):
    for _, frame in pcap_records(path):
        print(frame.hex())


def pcap_udp_ids(path):
    for _, f in pcap_records(path):
        ip = 18 if f[12:14] == b"\x81\x00" else 14
        if len(f) < ip + 32 or f[ip - 2:ip] != b"\x08\x00" or f[ip + 9] != 17:
            continue
        udp = ip + (f[ip] & 15) * 4
        if len(f) >= udp + 12 and struct.unpack(">H", f[udp + 2:udp + 4])[0] == 5002:
            print(struct.unpack(">I", f[udp + 8:udp + 12])[0])


def main():
    cmd = sys.argv[1]
    if cmd == "tcp-recv":
        tcp_recv()
    elif cmd == "tcp-send":
        tcp_send(int(sys.argv[2]))
    elif cmd == "udp-imix":
        udp_imix(int(sys.argv[2]))
    elif cmd == "udp-flows":
        udp_flows(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    elif cmd == "imix-lengths":
        imix_lengths(int(sys.argv[2]))
    elif cmd == "pcap-lengths":
        pcap_lengths(sys.argv[2])
    elif cmd == "pcap-frames":
        pcap_frames(sys.argv[2])
    elif cmd == "pcap-udp-ids":
        pcap_udp_ids(sys.argv[2])
    else:
        sys.exit("wire-traffic.py: unknown command " + cmd)


main()
