#!/usr/bin/env python3
"""Draws the app's icons (www/icons/*.png) in the newspaper style of the app itself.

The icons are committed; run this only to change the design:

    python3 -m venv /tmp/icons && /tmp/icons/bin/pip install pillow==13.0.0
    /tmp/icons/bin/python scripts/icons.py

The design is a front page: a masthead "S" between the double rules of a newspaper, the red rule
of the app's accent under it, and two columns of text that grow shorter toward the bottom, as a
summary does when it is folded again and again. The colours are the light theme's (www/style.css).

- icon-192.png, icon-512.png: purpose "any", a paper card with rounded corners on transparency.
- icon-maskable-512.png: purpose "maskable", paper to every edge, with everything that matters
  inside the central circle of radius 40% (the safe zone a launcher's mask always shows).
"""
import os
import sys

from PIL import Image, ImageDraw, ImageFont

PAPER = "#fbf8f1"
INK = "#1d1b18"
RULE = "#b9ae9c"
ACCENT = "#9c2f1f"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
# Drawn at 4x and scaled down, which antialiases the rules and the text lines.
SUPERSAMPLE = 4

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "www", "icons")


def front_page(draw, box):
    """Draws the front page into box = (left, top, size): the masthead, the rules, the columns."""
    left, top, size = box
    u = size / 100.0

    def rect(x0, y0, x1, y1, fill):
        draw.rectangle([left + x0 * u, top + y0 * u, left + x1 * u, top + y1 * u], fill=fill)

    # The masthead's double rule: a heavy one and a hairline, above and below the title.
    rect(10, 9, 90, 12, INK)
    rect(10, 14, 90, 15, INK)
    font = ImageFont.truetype(FONT, int(44 * u))
    text_box = draw.textbbox((0, 0), "S", font=font)
    width = text_box[2] - text_box[0]
    height = text_box[3] - text_box[1]
    draw.text(
        (left + 50 * u - width / 2 - text_box[0], top + 37 * u - height / 2 - text_box[1]),
        "S",
        font=font,
        fill=INK,
    )
    rect(10, 59, 90, 60, INK)
    rect(10, 62, 90, 65, ACCENT)
    # Two columns of text; each line is a bar, and the columns thin out toward the foot.
    lines = [(70, 90), (74, 82), (78, 86), (82, 70), (86, 58)]
    for y, length in lines:
        span = 37 * length / 90
        rect(10, y, 10 + span, y + 2, RULE)
        rect(53, y, 53 + span * (0.9 if y > 80 else 1.0), y + 2, RULE)


def icon_any(size):
    big = size * SUPERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle([0, 0, big - 1, big - 1], radius=big * 0.12, fill=PAPER)
    front_page(draw, (0, 0, big))
    return image.resize((size, size), Image.LANCZOS)


def icon_maskable(size):
    big = size * SUPERSAMPLE
    image = Image.new("RGBA", (big, big), PAPER)
    draw = ImageDraw.Draw(image)
    # The drawing fills 10%..90% of its box, so its corners lie 0.8 * inner / sqrt(2) from the
    # centre; inside the safe zone (radius 0.4 * big) that needs inner <= 0.707 * big.
    inner = big * 0.68
    offset = (big - inner) / 2
    front_page(draw, (offset, offset, inner))
    return image.resize((size, size), Image.LANCZOS)


def main():
    if not os.path.isfile(FONT):
        sys.exit(f"icons.py: {FONT} is missing (Debian: apt-get install fonts-dejavu-core)")
    os.makedirs(OUT, exist_ok=True)
    for name, image in [
        ("icon-192.png", icon_any(192)),
        ("icon-512.png", icon_any(512)),
        ("icon-maskable-512.png", icon_maskable(512)),
    ]:
        path = os.path.join(OUT, name)
        image.save(path, optimize=True)
        print(f"icons.py: {os.path.relpath(path)} {image.size[0]}x{image.size[1]}")


if __name__ == "__main__":
    main()
