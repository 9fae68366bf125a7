"""One cube's top face drawn as a camera sees it from above: for the letter model's training
data, the tests' held-out tiles and the synthetic tray photos (never shipped as data).

:func:`render_face` draws the face itself (a light rounded square on the cube's darker edge,
its letters in a bold sans-serif font, the bar under the faces that need one, turned as the die
lies). :func:`synthetic_cell` goes on to what the board reader is given for one cube: the face
among its neighbours on the tray, cropped a little off, in perspective, under uneven light,
blurred, noisy and JPEG-compressed, in grayscale. Training uses only :data:`TRAINING_FONTS`;
:data:`HELD_OUT_FONTS` are kept for measuring how the model does on lettering it never saw.
"""

from __future__ import annotations

import functools
import io
import math

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..dice import UNDERLINED_FACES

#: The letter model's classes: "A".."Z" with "Qu" for "Q", then the two-letter faces.
#: A blank face is no class: the glyph finder reports it (no letter found).
FACES: tuple[str, ...] = (
    *(chr(code) if code != ord("Q") else "Qu" for code in range(ord("A"), ord("Z") + 1)),
    "An",
    "Er",
    "He",
    "In",
    "Th",
)
#: Faces with a short bar under the letter on real dice, so a turned one is not misread: the
#: dice's own list (M and W, each the other turned, and Z, which turned is an N without one).
UNDERLINED = UNDERLINED_FACES
#: The rotations a face can lie in, degrees counter-clockwise.
ROTATIONS = (0, 90, 180, 270)

#: Bold sans-serif fonts the model is trained on: (Debian package, path).
TRAINING_FONTS: tuple[tuple[str, str], ...] = (
    ("fonts-dejavu-core", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
    ("fonts-dejavu-core", "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf"),
    ("fonts-liberation", "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf"),
    ("fonts-liberation", "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Bold.ttf"),
    ("fonts-freefont-ttf", "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf"),
    ("fonts-lato", "/usr/share/fonts/truetype/lato/Lato-Bold.ttf"),
    (
        "fonts-roboto-unhinted",
        "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Bold.ttf",
    ),
)
#: Fonts never used in training: the tests measure the model on these.
HELD_OUT_FONTS: tuple[tuple[str, str], ...] = (
    ("fonts-open-sans", "/usr/share/fonts/truetype/open-sans/OpenSans-Bold.ttf"),
    ("fonts-cantarell", "/usr/share/fonts/opentype/cantarell/Cantarell-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Bold.otf"),
    ("fonts-lato", "/usr/share/fonts/truetype/lato/Lato-Semibold.ttf"),
)

#: The height of a capital, in pixels, at which each face's text is drawn once and kept; every
#: face is scaled down from it (scaling a large drawing is faster than a font per size).
_REFERENCE_CAP = 192


def _check(face: str, rotation: int) -> None:
    """``ValueError`` unless ``face`` is one of :data:`FACES` or blank and ``rotation`` one of
    :data:`ROTATIONS`."""
    if face != "" and face not in FACES:
        raise ValueError(f"face {face!r} is not one of FACES or '' (blank)")
    if rotation not in ROTATIONS:
        raise ValueError(f"rotation {rotation!r} is not one of {ROTATIONS}")


@functools.lru_cache(maxsize=512)
def _text_mask(font_path: str, face: str) -> np.ndarray:
    """``face``'s text in ``font_path`` as an 8-bit ink mask cropped to its ink, drawn so that
    a capital is :data:`_REFERENCE_CAP` pixels high (cached: each font and face drawn once)."""
    probe = ImageFont.truetype(font_path, 200)
    _, top, _, bottom = probe.getbbox("H")
    font = ImageFont.truetype(font_path, max(8, round(200 * _REFERENCE_CAP / (bottom - top))))
    left, top, right, bottom = (round(v) for v in font.getbbox(face))
    pad = _REFERENCE_CAP // 4
    image = Image.new("L", (right - left + 2 * pad, bottom - top + 2 * pad), 0)
    ImageDraw.Draw(image).text((pad - left, pad - top), face, font=font, fill=255)
    mask = np.asarray(image)
    rows, cols = np.nonzero(mask)
    if len(rows) == 0:
        raise ValueError(f"{font_path} draws no ink for {face!r}")
    return mask[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1].copy()


def _face_image(
    face: str,
    font_path: str,
    size: int,
    rotation: int,
    rng: np.random.Generator,
    ink: tuple[float, ...],
    paper: tuple[float, ...],
    *,
    stretch: float = 1.0,
    weight: float = 0.0,
) -> np.ndarray:
    """:func:`render_face` as a ``size`` x ``size`` x channels uint8 array, in as many channels
    as ``ink`` and ``paper`` have (3: RGB; 1: gray, for :func:`synthetic_cell`), with two more
    ways a die's printing may differ from the font: ``stretch`` (the letter's width times this)
    and ``weight`` (strokes thickened, or thinned when negative, by this fraction of the
    letter's height on each side)."""
    _check(face, rotation)
    size = max(1, int(size))
    scale = max(1, math.ceil(256 / size))  # drawn at >= 256 pixels, then brought down: smooth
    side = size * scale
    shade = rng.uniform(0.45, 0.75)
    face_side = side * rng.uniform(0.85, 0.95)
    jitter = rng.uniform(-6.0, 6.0)
    letter_fraction = rng.uniform(0.45, 0.65)
    offset = rng.uniform(-0.04, 0.04, 2) * face_side
    bar = (rng.uniform(0.5, 0.8), rng.uniform(0.07, 0.11), rng.uniform(0.08, 0.16))
    radius = face_side * rng.uniform(0.1, 0.2)

    outline = Image.new("L", (side, side), 0)
    low = (side - face_side) / 2
    ImageDraw.Draw(outline).rounded_rectangle(
        (low, low, low + face_side, low + face_side), radius=radius, fill=255
    )
    paper_mask = np.asarray(outline, dtype=np.float32) / 255.0
    ink_mask = np.zeros((side, side), dtype=np.float32)
    if not face and rng.random() < 0.5:
        # Super Big Boggle's blank face: a solid square printed in the middle.
        half = face_side * rng.uniform(0.2, 0.25)
        centre_x, centre_y = side / 2 + offset[0], side / 2 + offset[1]
        cv2.rectangle(
            ink_mask,
            (round(centre_x - half), round(centre_y - half)),
            (round(centre_x + half), round(centre_y + half)),
            1.0,
            thickness=-1,
        )
    if face:
        text = _text_mask(font_path, face)
        cap = letter_fraction * face_side
        if face in UNDERLINED:  # the letter and its bar together that high
            cap /= 1 + bar[1] + bar[2]
        height = cap * text.shape[0] / _REFERENCE_CAP  # "Qu" and "Th" are taller than a capital
        width = height * text.shape[1] / text.shape[0] * stretch
        widest = 0.72 * face_side
        if width > widest:  # two-letter faces: narrower than the face
            height, width, cap = height * widest / width, widest, cap * widest / width
        letter_w, letter_h = max(1, round(width)), max(1, round(height))
        letter = cv2.resize(text, (letter_w, letter_h), interpolation=cv2.INTER_AREA)
        thicken = round(abs(weight) * cap)
        if thicken:
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * thicken + 1,) * 2)
            letter = (cv2.dilate if weight > 0 else cv2.erode)(letter, kernel)
        centre_x, centre_y = side / 2 + offset[0], side / 2 + offset[1]
        left, top = round(centre_x - letter_w / 2), round(centre_y - letter_h / 2)
        _paste_max(ink_mask, letter.astype(np.float32) / 255.0, left, top)
        if face in UNDERLINED:
            bar_half, thickness = bar[0] * letter_w / 2, bar[1] * cap
            bar_top = top + letter_h + bar[2] * cap
            cv2.rectangle(
                ink_mask,
                (round(centre_x - bar_half), round(bar_top)),
                (round(centre_x + bar_half), round(bar_top + thickness)),
                1.0,
                thickness=-1,
            )
    channels = []
    for ink_level, paper_level in zip(ink, paper, strict=True):
        level = paper_level * (shade + (1 - shade) * paper_mask)
        channels.append(level + (ink_level - level) * ink_mask)
    image = np.dstack(channels)
    turn = cv2.getRotationMatrix2D((side / 2, side / 2), float(rotation + jitter), 1.0)
    edge = tuple(float(level * shade) for level in paper)
    image = cv2.warpAffine(
        image, turn, (side, side), flags=cv2.INTER_LINEAR, borderValue=(*edge, 0.0, 0.0, 0.0)[:4]
    )
    if scale > 1:
        image = cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA)
    pixels: np.ndarray = np.clip(image + 0.5, 0, 255).astype(np.uint8)
    return pixels.reshape(size, size, len(ink))


def _paste_max(target: np.ndarray, patch: np.ndarray, left: int, top: int) -> None:
    """Put ``patch`` onto ``target`` at (``left``, ``top``), keeping the larger value; the part
    of it outside ``target`` is cut off."""
    height, width = target.shape
    x0, y0 = max(0, left), max(0, top)
    x1, y1 = min(width, left + patch.shape[1]), min(height, top + patch.shape[0])
    if x1 > x0 and y1 > y0:
        region = target[y0:y1, x0:x1]
        np.maximum(region, patch[y0 - top : y1 - top, x0 - left : x1 - left], out=region)


def render_face(
    face: str,
    font_path: str,
    size: int,
    rotation: int,
    rng: np.random.Generator,
    *,
    ink: tuple[int, int, int] = (20, 20, 30),
    paper: tuple[int, int, int] = (235, 232, 222),
) -> Image.Image:
    """One cube's top face seen from above, ``size`` x ``size`` RGB: a light rounded square
    (85-95% of the image; around it the cube's darker edge) with ``face``'s text in the bold
    font ``font_path`` ("Qu", "Th": a capital then a small letter), a bar under the letter for
    :data:`UNDERLINED` faces, all turned by ``rotation`` degrees counter-clockwise (0, 90, 180,
    270). ``rng`` varies it as dice and their printing vary: the letter (with its bar, if
    any) 45-65% of the face high, a little off centre, the cube turned up to 6 degrees more.
    ``face == ""`` is a blank face: plain, or (half the time) with Super Big Boggle's solid
    square printed on it. ``ValueError`` for a face not in :data:`FACES` or another rotation."""
    return Image.fromarray(_face_image(face, font_path, size, rotation, rng, ink, paper), "RGB")


#: Inks (dark blue, black, dark brown, dark red) and papers (white, cream, grey-white) of dice.
_INKS = ((20, 20, 30), (10, 25, 80), (15, 15, 15), (50, 30, 20), (90, 20, 25))
_PAPERS = ((235, 232, 222), (245, 245, 242), (225, 220, 200), (215, 215, 212), (240, 236, 225))
#: Tray colours (RGB) between and under the cubes: blue, black, dark grey, green, tan.
_TRAYS = ((28, 58, 140), (24, 24, 28), (70, 72, 78), (40, 90, 60), (150, 120, 80))
#: The colours of a synthetic cell, and how far each channel may stray from them (levels).
_COLOURS = ((_INKS, 12.0), (_PAPERS, 8.0), (_TRAYS, 15.0))


def synthetic_cell(
    face: str,
    font_path: str,
    rotation: int,
    rng: np.random.Generator,
    *,
    size: int | None = None,
) -> np.ndarray:
    """What the board reader is given for one cube showing ``face`` turned by ``rotation``: a
    square grayscale crop (``size`` pixels a side; random, 24-240, when None) of the face among
    its neighbours on the tray, as a grid found a little off would cut it, with the augmenting a
    phone photo brings (perspective, uneven light, highlights, blur, noise, JPEG). Varies with
    ``rng``: the model's training data and the tests' held-out tiles both come from here."""
    _check(face, rotation)
    if size is None:
        size = round(math.exp(rng.uniform(math.log(24), math.log(240))))
    ink, paper, tray = (_gray(_colour(c, spread, rng)) for c, spread in _COLOURS)
    cube = 128
    pitch = cube / rng.uniform(0.85, 1.0)  # cube plus the tray's gap
    centre = _face_image(
        face,
        font_path,
        cube,
        rotation,
        rng,
        (ink,),
        (paper,),
        stretch=float(np.exp(rng.normal(0, 0.1))),
        weight=float(rng.uniform(-0.025, 0.03)),
    )
    canvas_side = round(3 * pitch)
    gray = np.full((canvas_side, canvas_side), tray, dtype=np.float32)
    for row in range(3):
        for col in range(3):
            left = round((col + 0.5) * pitch - cube / 2)
            top = round((row + 0.5) * pitch - cube / 2)
            if row == col == 1:
                gray[top : top + cube, left : left + cube] = centre[:, :, 0]
            else:
                shade = _neighbour_shade(int(rng.integers(_NEIGHBOURS)), cube)
                gray[top : top + cube, left : left + cube] = shade * paper

    # The crop: the cell plus a margin on each side (from a little inside the cube to a good
    # part of the neighbours), off centre, slightly turned and in perspective.
    half = pitch * rng.uniform(0.52, 0.7)
    turn = math.radians(rng.uniform(-4, 4))
    square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64) * half
    turning = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    aspect = np.array([math.exp(rng.normal(0, 0.05)), 1.0])
    quad = (square * aspect) @ turning.T + rng.uniform(-0.04, 0.04, (4, 2)) * half
    quad += canvas_side / 2 + rng.uniform(-0.08, 0.08, 2) * pitch
    work = 128
    target = np.array([[0, 0], [work, 0], [work, work], [0, work]], dtype=np.float32)
    transform = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    cell = np.asarray(
        cv2.warpPerspective(gray, transform, (work, work), flags=cv2.INTER_LINEAR), np.float32
    )

    # Light: a gradient across the cell, sometimes a highlight; lower contrast sometimes.
    ys, xs = np.mgrid[0:work, 0:work].astype(np.float32) / work - 0.5
    angle = rng.uniform(0, 2 * math.pi)
    cell *= 1 + rng.uniform(0, 0.5) * (xs * math.cos(angle) + ys * math.sin(angle))
    cell *= rng.uniform(0.55, 1.1)
    if rng.random() < 0.3:
        centre_xy = rng.uniform(-0.4, 0.4, 2)
        spread = rng.uniform(0.05, 0.25)
        glow = np.exp(-((xs - centre_xy[0]) ** 2 + (ys - centre_xy[1]) ** 2) / (2 * spread**2))
        cell += rng.uniform(20, 90) * glow
    if rng.random() < 0.3:  # faded print, or haze: the ink nearer the paper
        mean = float(cell.mean())
        cell = mean + (cell - mean) * rng.uniform(0.45, 0.9)
    blur = rng.uniform(0, 2.5) if rng.random() < 0.7 else 0.0
    if blur > 0.3:
        cell = np.asarray(cv2.GaussianBlur(cell, (0, 0), blur), np.float32)
    shrink = cv2.INTER_AREA if size < work else cv2.INTER_LINEAR
    small = np.asarray(cv2.resize(cell, (size, size), interpolation=shrink), np.float32)
    if size >= 48 and rng.random() < 0.3:  # the phone's own softening, at its resolution
        small = np.asarray(cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 0.8)), np.float32)
    small += rng.normal(0, rng.uniform(0, 10), small.shape).astype(np.float32)
    pixels = np.clip(small, 0, 255).astype(np.uint8)
    if rng.random() < 0.8:
        buffer = io.BytesIO()
        Image.fromarray(pixels).save(buffer, format="JPEG", quality=int(rng.integers(25, 96)))
        pixels = np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("L"))
    return np.ascontiguousarray(pixels)


#: How many different blank neighbours :func:`_neighbour_shade` keeps.
_NEIGHBOURS = 16


@functools.lru_cache(maxsize=64)
def _neighbour_shade(index: int, cube: int) -> np.ndarray:
    """A neighbouring cube seen from above, its face blank (its letter is too far in to show
    in a cell's crop), as fractions of its paper's level: one of :data:`_NEIGHBOURS` drawn
    once."""
    rng = np.random.default_rng(index)
    face = _face_image("", "", cube, 0, rng, (0.0,), (255.0,))
    return face[:, :, 0].astype(np.float32) / 255.0


def _colour(
    choices: tuple[tuple[int, int, int], ...], spread: float, rng: np.random.Generator
) -> tuple[int, int, int]:
    """One of ``choices``, each channel moved by a normal draw of ``spread`` levels."""
    base = choices[int(rng.integers(len(choices)))]
    red, green, blue = (int(np.clip(c + rng.normal(0, spread), 0, 255)) for c in base)
    return red, green, blue


def _gray(colour: tuple[int, int, int]) -> float:
    """``colour``'s gray level, as Pillow's "L" conversion weighs the channels."""
    return (colour[0] * 299 + colour[1] * 587 + colour[2] * 114) / 1000
