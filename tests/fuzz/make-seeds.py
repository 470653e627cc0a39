#!/usr/bin/env python3
"""The fuzz targets' first inputs, each the shape a target's parser meets in
use, written to tests/fuzz/corpus/NAME/seed-*: a reply of the mgcap family,
a clock's samples with a step, the strings users type, an ERSPAN packet of
each type, pcapng writer calls, an index of mgdump's, a ring's data area.  The fuzzers grow the corpus from them
(tests/fuzz/fuzzers.sh, FUZZ_GROW=1).
    make-seeds.py [CORPUS_DIR]
"""
import os
import struct
import sys

# the family's attribute numbers (include/uapi/linux/mgcap.h)
ATTR_IFINDEX, ATTR_IFNAME, ATTR_MODE, ATTR_RING_SIZE, ATTR_SNAPLEN, \
    ATTR_NUM_QUEUES, ATTR_QUEUES = range(2, 9)
QATTR_ID, QATTR_DEVNODE, QATTR_CAPTURED = 2, 3, 4
QATTR_NUM_READERS, QATTR_READERS = 9, 10
RATTR_PID, RATTR_COMM, RATTR_SNAPLEN, RATTR_CAPTURED = 2, 3, 4, 5
NLA_F_NESTED = 0x8000


def attr(kind, payload):
    data = struct.pack("=HH", 4 + len(payload), kind) + payload
    return data + b"\0" * (-len(data) % 4)


def u32(kind, v):
    return attr(kind, struct.pack("=I", v))


def u64(kind, v):
    return attr(kind, struct.pack("=Q", v))


def string(kind, s):
    return attr(kind, s.encode() + b"\0")


def nest(kind, *parts):
    return attr(kind | NLA_F_NESTED, b"".join(parts))


def counters(first, base):
    return b"".join(u64(first + i, base + i) for i in range(5))


def reply(queues, readers, total=None, first=0, lie=0):
    """A GET reply: genetlink header, then a device of @total queues (@queues
    of them here, from @first on) of @readers readers each; from @first > 0 on,
    the part of a dump that carries on a device the message before began.
    @lie: counts that many readers more than it lists (a refused reply)."""
    qs = []
    for q in range(first, first + queues):
        rs = [nest(1, u32(RATTR_PID, 100 + r), string(RATTR_COMM, "tcpdump"),
                   u32(RATTR_SNAPLEN, 262144), counters(RATTR_CAPTURED, 1000 * r))
              for r in range(readers)]
        qs.append(nest(1, u32(QATTR_ID, q), string(QATTR_DEVNODE, "/dev/mgcap/eth0@%d" % q),
                       counters(QATTR_CAPTURED, q), u32(QATTR_NUM_READERS, readers + lie),
                       nest(QATTR_READERS, *rs)))
    # MGCAP_CMD_GET, version 1
    body = struct.pack("=BBH", 4, 1, 0) + u32(ATTR_IFINDEX, 2)
    if not first:
        body += string(ATTR_IFNAME, "eth0") + u32(ATTR_MODE, 0) + u64(ATTR_RING_SIZE, 8 << 20) + \
            u32(ATTR_SNAPLEN, 262144) + u32(ATTR_NUM_QUEUES, total or queues)
    body += nest(ATTR_QUEUES, *qs)
    return struct.pack(">H", len(body)) + body


def clock(step):
    """Samples a second apart: a PHC 37 s ahead, 10 ppm fast, 100 ns windows; a probe each."""
    out = bytes([20])
    sys0, phc0 = 1_700_000_000_000_000_000, 1_700_000_037_000_000_000
    for i in range(12):
        sys = sys0 + i * 1_000_000_000
        phc = phc0 + i * 1_000_010_000 + (5_000_000 if step and i >= 8 else 0)
        probe = ((i * 977) << 40) | 1		# odd: just before the sample's PHC
        out += struct.pack("=qqqqq", sys - 50, phc, sys + 50, 5_000_000_000 + i * 10**9, probe)
    return out


def erspan(kind):
    inner = bytes(range(6)) + bytes(range(6, 12)) + b"\x08\x00" + b"\x45" + bytes(19)
    if kind == 1:
        gre, proto = struct.pack(">HH", 0, 0x88BE), b""
    elif kind == 2:
        gre, proto = struct.pack(">HHI", 0x1000, 0x88BE, 7), struct.pack(">II", 0x10000001, 0)
    else:
        gre, proto = struct.pack(">HHI", 0x1000, 0x22EB, 7), struct.pack(">III", 0x20000001, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(gre + proto + inner), 0, 0, 64, 47, 0,
                     bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]))
    return bytes(6) + bytes(6) + b"\x08\x00" + ip + gre + proto + inner


def pcapng():
    """Two halves: a buffer holding one block, then the writer's calls (room, names, packets)."""
    blocks = struct.pack("=II", 6, 32) + bytes(20) + struct.pack("=I", 32)
    calls = struct.pack("<H", 4096) + b"\x06mgdump" + b"\x04eth0" + b"\x01" + b"\x03abc"
    for n in (60, 250, 0):
        calls += struct.pack("<HB", n, 4) + bytes(n)
    n = max(len(blocks), len(calls))
    return blocks.ljust(n, b"\0") + calls.ljust(n, b"\0")


def flowkey(port):
    """The key of a UDP flow to @port (lib/capfile/flowkey.h)."""
    return struct.pack("=HBBHBB4s16s16s", 0x0800, 0x45, 17, 0x4000, 1, 4,
                       struct.pack(">HH", 10000, port), bytes([192, 0, 2, 1]),
                       bytes([192, 0, 2, 2]))


def capindex():
    """An index of two flows (UDP to ports 9 and 53) in one span, and its end."""
    def flow(n, port):
        return struct.pack("=III", 1, 56, n) + flowkey(port)
    span = struct.pack("=IIQQQQIIII", 2, 64, 100, 4000, 10**9, 10**9 + 5 * 10**7, 40, 0, 2, 0)
    span += struct.pack("=II", 0, 1)
    end = struct.pack("=IIQQQQ", 3, 40, 4200, 40, 10**9, 10**9 + 5 * 10**7)
    return b"mgcapidx" + struct.pack("=II", 1, 8) + flow(0, 9) + flow(1, 53) + span + end


# a ring's record (include/uapi/linux/mgcap.h): rec_len, caplen, wirelen, queue, flags, stamp
REC_HDR, REC_F_SWTSTAMP, REC_F_PAD = 24, 1 << 2, 1 << 15


def ring(sizes, data_size=1024, consumer=0, sw=False):
    """A data area as the kernel fills it from @consumer: records of
    @sizes, a pad record where the next would cross the end."""
    area = bytearray(data_size)
    head = consumer
    for n, caplen in enumerate(sizes):
        rec_len = (REC_HDR + caplen + 7) & ~7
        flags = 0
        if sw:
            rec_len += 8
            flags |= REC_F_SWTSTAMP
        pos = head % data_size
        if rec_len > data_size - pos:
            if data_size - pos >= REC_HDR:
                area[pos:pos + REC_HDR] = struct.pack("=IIIHHQ", data_size - pos, 0, 0, 0,
                                                      REC_F_PAD, 0)
            head += data_size - pos
            pos = 0
        area[pos:pos + REC_HDR] = struct.pack("=IIIHHQ", rec_len, caplen, caplen, 0, flags,
                                              1000 + n)
        area[pos + REC_HDR:pos + REC_HDR + caplen] = bytes([n & 0xff]) * caplen
        head += rec_len
    return struct.pack("=QQ", consumer, head) + bytes(area)


SEEDS = {
    # a ring read from its start, one that wraps (with a pad record), both stamps
    "reader": {"start": ring([60, 1514, 0, 200]), "wrap": ring([300] * 5, consumer=896),
               "both-stamps": ring([64, 128, 7], sw=True)},
    "nl_reply": {"get": reply(2, 1), "many": reply(4, 3),
                 "split": reply(1, 2, total=3) + reply(2, 2, first=1),
                 # a part refused, then the same queue again (a dump reads on)
                 "split-refused": reply(1, 1, total=2) + reply(1, 1, first=1, lie=1) +
                 reply(1, 1, first=1)},
    "clock": {"steady": clock(False), "step": clock(True)},
    "parse": {n: bytes([k]) + s.encode() for n, k, s in (
        ("size", 0, "8MiB"), ("duration", 1, "15m"), ("u32", 2, "4096"), ("mode", 3, "mirror"),
        ("source", 4, "mgcap:eth0@1-3,5"), ("devices", 5, "mgcap:eth0,eth1"))},
    "erspan": {"type%d" % k: erspan(k) for k in (1, 2, 3)},
    "pcapng": {"blocks": pcapng()},
    # an index, and a key of any bytes (then a program: ldh [36]; jeq #53; ret #1; ret #0)
    # (and one no frame has: ports 200 bytes long, past the stand-in frame)
    "capindex": {"index": capindex(),
                 "key": flowkey(53) + struct.pack("=" + "HBBI" * 4, 0x28, 0, 0, 36, 0x15, 0, 1, 53,
                                                  0x06, 0, 0, 1, 0x06, 0, 0, 0),
                 "key-bad": flowkey(53)[:7] + b"\xc8" + flowkey(53)[8:]},
}

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
for target, seeds in SEEDS.items():
    os.makedirs(os.path.join(top, target), exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(top, target, "seed-" + name), "wb") as f:
            f.write(data)
