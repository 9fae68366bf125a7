"""Synthetic photos of a tray of cubes: a shaken board drawn as a phone would see it, for the
tests and the figures of the board reader (never shipped as data).

A flat picture of the grid (each cube's face from :func:`~bigboggle.photo.faces.render_face`,
turned as its die landed, on a tray of some colour) is set on a table and seen in perspective,
under uneven light, a little out of focus, with sensor noise and JPEG artefacts. The grid's
true corners come back with the photo, so a test can say how far off a reading's corners are.

A real tray adds what a flat picture lacks, and ``sides``, ``gap`` and ``fill`` draw it: the
tray's walls between the cubes (wide gaps), each cube's side seen below its face (a shaded band
with part of another letter on it, as a camera a little in front of the tray sees it), and a
photo taken close, the tray filling it or cut off at its edges.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

from ..dice import Shake
from .faces import render_face

#: Tray colours (RGB): the box's blue, black, a dark grey, a transparent dome over a dark box.
TRAY_COLOURS = ((28, 58, 140), (24, 24, 28), (70, 72, 78), (40, 90, 60))
#: Table colours: wood, a white table, dark slate, green felt.
TABLE_COLOURS = ((150, 105, 60), (225, 225, 220), (50, 55, 60), (40, 110, 60))


@dataclass(frozen=True)
class TrayPhoto:
    """A synthetic photo (JPEG bytes, and decoded RGB) and where its grid's corners are
    (top-left, top-right, bottom-right, bottom-left; x, y in the photo's pixels)."""

    jpeg: bytes
    rgb: np.ndarray
    corners: np.ndarray


def render_tray(
    shake: Shake,
    font_path: str,
    rng: np.random.Generator,
    *,
    size: tuple[int, int] = (1200, 900),
    pitch: int = 90,
    tilt: float = 0.12,
    blur: float = 1.0,
    noise: float = 4.0,
    quality: int = 85,
    gap: float = 0.08,
    sides: float = 0.0,
    fill: float = 0.7,
    shadow: float = 0.0,
) -> TrayPhoto:
    """``shake``'s board as a photo of ``size`` (width, height): each cube's face in
    ``font_path``, turned by the shake's rotation, ``pitch`` pixels apart on the flat tray;
    seen in perspective (``tilt``: how far the corners move, as a fraction of the grid), with
    a light gradient, ``blur`` (Gaussian sigma, pixels), ``noise`` (standard deviation, levels)
    and JPEG at ``quality``. ``gap``: the tray's wall between two cubes, a fraction of the
    pitch; ``sides``: how much of each cube's side shows below its face, a fraction of the face
    (0: seen straight from above); ``fill``: about how much of the photo's shorter side the
    tray spans (above 1, the photo is cut inside the tray's rim); ``shadow``: how much light a
    soft shadow (the phone's, the player's) takes from the part of the photo it falls on, a
    fraction (0: none). The grid's corners returned are those of the lattice of the cubes' top
    faces: each face centred in its cell of one pitch a side (the edge half a gap outside the
    outer faces)."""
    board = shake.board
    rows, cols = board.rows, board.cols
    margin = int(pitch * 0.45)
    tray = tuple(int(v) for v in TRAY_COLOURS[rng.integers(len(TRAY_COLOURS))])
    table = tuple(int(v) for v in TABLE_COLOURS[rng.integers(len(TABLE_COLOURS))])
    flat_w, flat_h = cols * pitch + 2 * margin, rows * pitch + 2 * margin
    flat = Image.new("RGB", (flat_w, flat_h), tray)
    face_side = int(pitch * (1 - gap))
    inset = (pitch - face_side) // 2
    # The side never hides the whole wall: a sliver of the tray shows before the next cube.
    band = min(round(face_side * sides), round(0.75 * (pitch - face_side)))
    for index in range(rows * cols):
        row, col = divmod(index, cols)
        face = board.cell_faces[index]
        image = render_face(face, font_path, face_side, shake.rotations[index], rng)
        left, top = margin + col * pitch + inset, margin + row * pitch + inset
        if band:
            # The cube stands in its place; its top face is seen higher up, and its front side
            # in the band below it (shaded, with the top of another face's letter).
            top -= band // 2
            flat.paste(_side_band(image.size[0], band, font_path, rng), (left, top + face_side))
        flat.paste(image, (left, top))
    width, height = size
    # Where the flat tray's corners land in the photo: centred, about 70% of the shorter side,
    # each corner moved by up to ``tilt`` of the grid (perspective), the whole slightly turned.
    span = fill * min(width, height) * float(rng.uniform(0.85, 1.1))
    scale = span / max(flat_w, flat_h)
    centre = np.array([width / 2, height / 2]) + rng.uniform(-0.06, 0.06, 2) * (width, height)
    half = np.array([flat_w, flat_h]) * scale / 2
    turn = float(rng.uniform(-0.12, 0.12))
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    base = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half
    moved = base @ rotation.T + rng.uniform(-tilt, tilt, (4, 2)) * half + centre
    source = np.array([[0, 0], [flat_w, 0], [flat_w, flat_h], [0, flat_h]], dtype=np.float32)
    transform = cv2.getPerspectiveTransform(source, moved.astype(np.float32))
    background = np.empty((height, width, 3), np.float32)
    background[:] = table
    background += rng.normal(0, 6, (height, width, 1)).astype(np.float32)  # the table's grain
    photo = cv2.warpPerspective(
        np.asarray(flat, np.float32),
        transform,
        (width, height),
        dst=background,
        borderMode=cv2.BORDER_TRANSPARENT,
        flags=cv2.INTER_LINEAR,
    )
    # Light from one side: a gradient of up to 35% across the photo.
    direction = rng.normal(size=2)
    direction /= np.linalg.norm(direction) or 1.0
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    ramp = ((xs / width - 0.5) * direction[0] + (ys / height - 0.5) * direction[1]).astype(
        np.float32
    )
    photo *= (1 + float(rng.uniform(0.1, 0.35)) * ramp)[:, :, None]
    if shadow > 0:
        # A soft-edged shadow over one side of the photo, its edge through the grid.
        across = rng.normal(size=2)
        across /= np.linalg.norm(across) or 1.0
        reach = (xs - width / 2) * across[0] + (ys - height / 2) * across[1]
        edge = float(rng.uniform(-0.15, 0.15)) * min(width, height)
        softness = 0.03 * min(width, height)
        dark = 1 / (1 + np.exp(-(reach - edge) / softness))
        photo *= (1 - shadow * dark)[:, :, None].astype(np.float32)
    if blur > 0:
        photo = cv2.GaussianBlur(photo, (0, 0), blur)
    photo = photo + np.asarray(rng.normal(0, noise, photo.shape), np.float32)
    rgb = np.clip(photo, 0, 255).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format="JPEG", quality=quality)
    jpeg = buffer.getvalue()
    decoded = np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))
    grid = np.array(
        [
            [margin, margin],
            [margin + cols * pitch, margin],
            [margin + cols * pitch, margin + rows * pitch],
            [margin, margin + rows * pitch],
        ],
        dtype=np.float32,
    )
    grid[:, 1] -= band // 2
    corners = cv2.perspectiveTransform(grid[None], transform)[0]
    return TrayPhoto(jpeg, decoded, corners.astype(np.float64))


def _side_band(width: int, height: int, font_path: str, rng: np.random.Generator) -> Image.Image:
    """A cube's front side as a camera a little in front of the tray sees it below the top
    face: a face squashed to ``height``, shaded darker, only its upper part showing."""
    side = render_face(
        str(rng.choice(["A", "E", "M", "N", "O", "R", "S", "T", "W", "X"])),
        font_path,
        width,
        int(rng.choice([0, 90, 180, 270])),
        rng,
    )
    shown = side.crop((0, 0, width, width // 2)).resize((width, height))
    shade = float(rng.uniform(0.6, 0.85))
    return Image.fromarray(np.clip(np.asarray(shown, np.float32) * shade, 0, 255).astype(np.uint8))
