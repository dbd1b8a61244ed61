#!/usr/bin/env python3
"""render_check: is a screenshot (PNG) more than a blank page?

Usage: render_check.py SCREENSHOT.png [MIN_SHARE]

Decodes the PNG with zlib alone (no PIL), counts the pixels that are not
white and the dark ones (text, plot lines), and prints
"WIDTHxHEIGHT non-white N (P%), dark D". Exits 0 when at least MIN_SHARE
(default 0.02) of the pixels are not white and some are dark; 1 when the page
looks blank; 2 when the file is not a PNG this decoder understands.
"""
import struct
import sys
import zlib


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG (bad magic bytes)")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, color, _, _, interlace = header
    channels = {2: 3, 6: 4, 0: 1, 4: 2}.get(color)
    if depth != 8 or channels is None or interlace:
        raise ValueError("unsupported PNG: depth %d, colour type %d, interlace %d"
                         % (depth, color, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            corner = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        rows.append(line)
        prev = line
    return width, height, channels, rows


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    min_share = float(sys.argv[2]) if len(sys.argv) == 3 else 0.02
    try:
        width, height, channels, rows = decode(sys.argv[1])
    except (OSError, ValueError, zlib.error, struct.error) as e:
        print("render_check: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 2
    nonwhite = dark = 0
    for line in rows:
        for x in range(0, width * channels, channels):
            grey = line[x] if channels < 3 else min(line[x], line[x + 1], line[x + 2])
            if grey < 245:
                nonwhite += 1
                if grey < 100:
                    dark += 1
    share = nonwhite / float(width * height)
    print("%dx%d non-white %d (%.1f%%), dark %d" % (width, height, nonwhite, 100 * share, dark))
    return 0 if share >= min_share and dark > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
