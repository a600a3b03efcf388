#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpora of the fuzz harnesses (testing/fuzz/corpus/*), deterministically.

Seeds: the headers of data/*.nhdr (with the data file renamed to the harness's d0; bucky's whole raw data,
the others' first 4 KiB of compressed data), and hand-made edge cases: every encoding (raw, ascii, hex, gzip,
bzip2, zrl), every NRRD type, magics NRRD0001-NRRD0006, attached and detached data, LIST and numbered data
files, line and byte skips (also -1), big-endian data, space directions and origin, and the fuzzing
reproducers of issue 15. Run from anywhere: python3 testing/fuzz/make_corpus.py
"""
import bz2, gzip, os, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "corpus")
SEP0, SEP1 = b"\n@@d0\n", b"\n@@d1\n"

def put(kind, name, data):
    d = os.path.join(OUT, kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def nrrd(name, header, data=b"", data1=None, attached=False):
    h = header.encode() if isinstance(header, str) else header
    if attached:
        put("nrrd", name, h + b"\n" + data)
    else:
        put("nrrd", name, h + SEP0 + data + (SEP1 + data1 if data1 is not None else b""))

def main():
    # From data/: the real headers.
    for fn in sorted(os.listdir(os.path.join(ROOT, "data"))):
        if not fn.endswith(".nhdr"):
            continue
        lines = open(os.path.join(ROOT, "data", fn)).read().splitlines()
        datafile = [l.split(":", 1)[1].strip() for l in lines if l.startswith("data file")][0]
        hdr = "\n".join(l if not l.startswith("data file") else "data file: d0" for l in lines) + "\n"
        raw = open(os.path.join(ROOT, "data", datafile), "rb").read()
        nrrd("data_" + fn.replace(".nhdr", ""), hdr, raw if len(raw) <= 65536 else raw[:4096])
    base = "type: uint16\ndimension: 3\nsizes: 4 3 2\nendian: little\n"
    vals = [i * 1000 + 7 for i in range(24)]
    le = struct.pack("<24H", *vals)
    be = struct.pack(">24H", *vals)
    for m in ["NRRD0001", "NRRD0002", "NRRD0003", "NRRD0004", "NRRD0005", "NRRD0006"]:
        nrrd("magic_" + m, m + "\n" + base + "encoding: raw\n", le, attached=True)
    nrrd("enc_raw_detached", "NRRD0004\n" + base + "encoding: raw\ndata file: d0\n", le)
    nrrd("enc_ascii", "NRRD0004\n" + base + "encoding: ascii\n", " ".join(map(str, vals)).encode() + b"\n",
         attached=True)
    nrrd("enc_hex", "NRRD0004\n" + base + "encoding: hex\n", le.hex().encode() + b"\n", attached=True)
    nrrd("enc_gzip", "NRRD0004\n" + base + "encoding: gzip\n", gzip.compress(le, mtime=0), attached=True)
    nrrd("enc_gzip_detached", "NRRD0004\n" + base + "encoding: gzip\ndata file: d0\n", gzip.compress(le, mtime=0))
    nrrd("enc_bzip2", "NRRD0004\n" + base + "encoding: bzip2\ndata file: d0\n", bz2.compress(le))
    nrrd("enc_zrl", "NRRD0006\ntype: uint8\ndimension: 3\nsizes: 2 2 2\nencoding: zrl\n", b"\x01\x00\x03\x02\x00\x02",
         attached=True)
    nrrd("endian_big", "NRRD0004\n" + base.replace("little", "big") + "encoding: raw\n", be, attached=True)
    nrrd("list", "NRRD0004\n" + base + "encoding: raw\ndata file: LIST 2\nd0\nd1\n", le[:24], le[24:])
    nrrd("list_skip", "NRRD0006\n" + base + "encoding: raw\ndata file: LIST 2\nd0 2\nd1 0\n", b"xx" + le[:24], le[24:])
    nrrd("numbered", "NRRD0004\n" + base + "encoding: raw\ndata file: d%d 0 1 1 2\n", le[:24], le[24:])
    nrrd("byteskip", "NRRD0004\n" + base + "encoding: raw\nbyte skip: 3\ndata file: d0\n", b"abc" + le)
    nrrd("byteskip_tail", "NRRD0004\n" + base + "encoding: raw\nbyte skip: -1\ndata file: d0\n", b"abcdef" + le)
    nrrd("lineskip", "NRRD0004\n" + base + "encoding: raw\nline skip: 2\ndata file: d0\n", b"l1\nl2\n" + le)
    nrrd("gzip_byteskip", "NRRD0004\n" + base + "encoding: gzip\nbyte skip: 4\ndata file: d0\n",
         gzip.compress(b"skip" + le, mtime=0))
    nrrd("space", "NRRD0005\n" + base + "space: right-anterior-superior\nspace directions: (0.5,0,0) (0,0.5,0) "
         "(0,0,2)\nspace origin: (-10,20.5,3)\nkinds: domain domain domain\nmeasurement frame: (1,0,0) (0,1,0) "
         "(0,0,1)\nkey:=value\n# comment\nencoding: raw\n", le, attached=True)
    types = {"int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I", "float": "f",
             "double": "d", "int64": "q", "uint64": "Q"}
    for t, c in types.items():
        nrrd("type_" + t, "NRRD0004\ntype: %s\ndimension: 3\nsizes: 2 2 2\nendian: little\nencoding: raw\n" % t,
             struct.pack("<8" + c, *range(8)), attached=True)
    nrrd("type_block", "NRRD0004\ntype: block\nblock size: 3\ndimension: 3\nsizes: 2 2 2\nencoding: raw\n", b"x" * 24,
         attached=True)
    nrrd("dim4", "NRRD0004\ntype: uint8\ndimension: 4\nsizes: 3 2 2 2\nencoding: raw\n", bytes(24), attached=True)
    nrrd("dim2", "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 4 4\nencoding: raw\n", bytes(16), attached=True)
    # The reproducers of issue 15 (NaN render, 1 GiB header) and 'data file: -'.
    nrrd("repro_nan", "NRRD0004\ntype: float\ndimension: 3\nsizes: 2 2 2\nencoding: ascii\n",
         b"3e38 -3e38 3e38 -3e38 3e38 -3e38 3e38 -3e38\n", attached=True)
    nrrd("repro_1gib", "NRRD0004\ntype: uchar\ndimension: 3\nsizes: 1024 1024 1024\nencoding: raw\n", b"12345678",
         attached=True)
    nrrd("repro_stdin", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 2 2 2\nencoding: raw\ndata file: -\n", b"")
    put("nrrd", "repro_pgm", b"P5\n2 2\n255\n\x01\x02\x03\x04")
    put("nrrd", "repro_text", b"1 2 3\n4 5 6\n")
    # Raw: type byte, three dimension bytes, the file.
    put("raw", "uint8_2x2x2", bytes([0, 0, 0, 0]) + bytes(range(8)))
    put("raw", "float_3x2x2", bytes([0x86, 1, 0, 0]) + struct.pack("<12f", *range(12)))
    put("raw", "double_short", bytes([7, 0, 0, 0]) + bytes(60))
    put("raw", "bad_dims", bytes([0, 255, 254, 0]) + bytes(8))
    # Render: 16 option bytes, then a NRRD with attached data.
    small = b"NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 4 4\nencoding: raw\n\n" + bytes(i * 4 for i in range(64))
    put("render", "composite", bytes(16) + small)
    put("render", "mip_shaded", bytes([1, 0x7f, 128, 20, 3, 250, 30, 60, 0, 1, 1, 0, 0x77, 0, 0, 1]) + small)
    put("render", "compressive", bytes([0, 1, 64, 10, 1, 200, 45, 45, 45, 0, 0x83, 0x31, 0xff, 0x41, 0x13, 2]) + small)
    put("render", "crop", bytes([0, 1, 64, 10, 1, 200, 45, 45, 45, 0, 0, 0, 0x77, 0, 0x40, 0x2d]) + small)
    put("render", "crop_miss", bytes([1, 0, 0, 0, 1, 200, 30, 30, 0, 0, 0, 0, 0x77, 0, 0x80, 0]) + small)
    put("render", "repro_nan", bytes([0, 1, 128, 10, 1, 250, 30, 40, 0, 0, 0, 0, 0x88, 0, 0, 0]) +
        b"NRRD0004\ntype: float\ndimension: 3\nsizes: 2 2 2\nencoding: ascii\n\n"
        b"3e38 -3e38 3e38 -3e38 3e38 -3e38 3e38 -3e38\n")
    put("render", "float_ascii", bytes([3, 0, 0, 0, 1, 255, 10, 200, 7, 1, 0, 0, 0x55, 0, 0, 0]) +
        b"NRRD0004\ntype: double\ndimension: 3\nsizes: 2 2 3\nencoding: ascii\n\n-1 2.5 1e10 0 7 8 9 -4 3 2 1 0\n")
    # Transfer functions.
    put("tf", "scalar", b"# comment\n0 0 0 0 0\n50 1 0.5 0 0.5 # mid\n100 1 1 1 1\n")
    put("tf", "normalized", b"domain normalized\n0.25 0 0 0 0\n1 1 1 1 1\n")
    put("tf", "domain_scalar", b"domain scalar\n-1000 0 0 0 0\n3000 1 1 1 0.8\n")
    put("tf", "repro_domain", b"domain")
    put("tf", "repro_1e308", b"-1e308 0 0 0 0\n1e308 1 1 1 1\n")
    put("tf", "crlf", b"0 0 0 0 0\r\n1 1 1 1 1\r\n")
    put("tf", "many", b"".join(b"%d %.3f 0.5 0.25 %.3f\n" % (i, i / 99, (i % 7) / 7) for i in range(100)))

if __name__ == "__main__":
    sys.exit(main())
