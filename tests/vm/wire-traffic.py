#!/usr/bin/env python3
"""Traffic for the wire tests, from 192.0.2.1 to 192.0.2.2 (lib.sh).

  wire-traffic.py tcp-recv         accept one TCP connection on 192.0.2.2:5001,
                                   print "ready", then "received N" at its end
  wire-traffic.py tcp-send BYTES   send BYTES over one connection to it
  wire-traffic.py udp-imix COUNT   COUNT datagrams to 192.0.2.2:5002 whose
                                   frames have a simple IMIX's lengths (60 to
                                   1514 bytes), paced so that no NIC's ring
                                   overflows under emulation
  wire-traffic.py imix-lengths COUNT  the lengths of udp-imix's COUNT frames
  wire-traffic.py pcap-lengths PCAP  each frame's length on the wire (orig_len)
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


def imix_lengths(count):
    for i in range(count):
        print(imix_payload(i) + ETH_IP_UDP)


def pcap_lengths(path):
    d = open(path, "rb").read()
    magic = struct.unpack("<I", d[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), hex(magic)
    off = 24
    while off + 16 <= len(d):
        _, _, incl, orig = struct.unpack("<IIII", d[off:off + 16])
        print(orig)
        off += 16 + incl


def main():
    cmd = sys.argv[1]
    if cmd == "tcp-recv":
        tcp_recv()
    elif cmd == "tcp-send":
        tcp_send(int(sys.argv[2]))
    elif cmd == "udp-imix":
        udp_imix(int(sys.argv[2]))
    elif cmd == "imix-lengths":
        imix_lengths(int(sys.argv[2]))
    elif cmd == "pcap-lengths":
        pcap_lengths(sys.argv[2])
    else:
        sys.exit("wire-traffic.py: unknown command " + cmd)


main()
