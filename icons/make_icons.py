#!/usr/bin/env python3
"""Draws Gatehouse's icons (a shield with a gate in it) as RGBA PNGs, with nothing but the standard library,
and packs the same pictures into the Windows (.ico) and macOS (.icns) icon files the installers need.

Run from anywhere: `python3 icons/make_icons.py`. It rewrites the icons beside it; the drawing is plain
geometry, so the output is the same on every machine. The Linux package installs every PNG size listed in
src-tauri/tauri.conf.json (`bundle.icon`) into the desktop's icon theme.
"""

import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

SHIELD = (31, 95, 191)  # a calm blue, readable on light and dark panels
EDGE = (16, 52, 112)
GATE = (255, 255, 255)
SAMPLES = 4  # per axis: 16 samples per pixel for smooth edges


def shield_half_width(y):
    """Half the shield's width at height y (0 at the top, 1 at the bottom), or None outside it."""
    top, bottom = 0.07, 0.95
    if y < top or y > bottom:
        return None
    if y < 0.55:
        return 0.40
    t = (y - 0.55) / (bottom - 0.55)
    return 0.40 * (1 - t ** 1.8) ** 0.75


def colour_at(x, y):
    """The colour at (x, y) in the unit square, or None for transparent."""
    half = shield_half_width(y)
    if half is None or abs(x - 0.5) > half:
        return None
    # The top edge dips a little towards the middle, like a heater shield.
    dip = 0.03 * (1 - (abs(x - 0.5) / 0.40) ** 2)
    if y < 0.07 + dip:
        return None
    inner = half - 0.05
    if abs(x - 0.5) > inner or y < 0.12 + dip or y > 0.95 - 0.06:
        return EDGE
    # The gate: an arched doorway with two bars.
    cx, arch_y, radius = 0.5, 0.44, 0.15
    in_arch = (x - cx) ** 2 + (y - arch_y) ** 2 <= radius ** 2 and y <= arch_y
    in_door = abs(x - cx) <= radius and arch_y <= y <= 0.80
    if in_arch or in_door:
        for bar in (cx - 0.05, cx + 0.05):
            if abs(x - bar) <= 0.018 and y > arch_y - math.sqrt(max(radius ** 2 - (bar - cx) ** 2, 0)) + 0.03:
                return SHIELD
        return GATE
    return SHIELD


def draw(size):
    rows = []
    for py in range(size):
        row = bytearray([0])  # filter: none
        for px in range(size):
            r = g = b = a = 0
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    c = colour_at((px + (sx + 0.5) / SAMPLES) / size, (py + (sy + 0.5) / SAMPLES) / size)
                    if c is not None:
                        r, g, b, a = r + c[0], g + c[1], b + c[2], a + 1
            if a:
                row += bytes((r // a, g // a, b // a, 255 * a // (SAMPLES * SAMPLES)))
            else:
                row += bytes(4)
        rows.append(bytes(row))
    return b"".join(rows)


def png(size, pixels):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(pixels, 9)) + chunk(b"IEND", b"")


def ico(pngs):
    """A Windows icon file holding `pngs` ({size: PNG bytes}) as they are (PNG entries, Windows Vista and later)."""
    sizes = sorted(pngs)
    offset = 6 + 16 * len(sizes)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    entries, images = b"", b""
    for size in sizes:
        data = pngs[size]
        # A width or height of 256 is written as 0.
        entries += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(data), offset + len(images))
        images += data
    return header + entries + images


# The icns element types that hold a PNG of each size (Apple's Icon Services formats).
ICNS_TYPES = {32: b"ic11", 64: b"ic12", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def icns(pngs):
    """A macOS icon file holding `pngs` ({size: PNG bytes}) for the sizes icns has a PNG element for."""
    body = b"".join(
        ICNS_TYPES[size] + struct.pack(">I", 8 + len(data)) + data for size, data in sorted(pngs.items()) if size in ICNS_TYPES
    )
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


# The PNGs, by file name: every size a desktop's menus, docks and file managers ask for, and the tray's.
PNGS = [("16x16.png", 16), ("24x24.png", 24), ("32x32.png", 32), ("48x48.png", 48), ("64x64.png", 64),
        ("128x128.png", 128), ("128x128@2x.png", 256), ("256x256.png", 256), ("icon.png", 512), ("tray.png", 64)]


def main():
    drawn = {}
    for name, size in PNGS:
        if size not in drawn:
            drawn[size] = png(size, draw(size))
        with open(os.path.join(HERE, name), "wb") as out:
            out.write(drawn[size])
    with open(os.path.join(HERE, "icon.ico"), "wb") as out:
        out.write(ico({size: drawn[size] for size in (16, 24, 32, 48, 64, 256)}))
    with open(os.path.join(HERE, "icon.icns"), "wb") as out:
        out.write(icns(drawn))


if __name__ == "__main__":
    main()
