"""Reading one cube's letter from its cell of a photo: the face renderer, the glyph finder
(``normalize_cell``) and the shipped letter model, measured on fonts it was never trained on."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

pytest.importorskip("cv2")

from bigboggle.photo.classifier import Classifier
from bigboggle.photo.faces import (
    FACES,
    HELD_OUT_FONTS,
    ROTATIONS,
    UNDERLINED,
    render_face,
    synthetic_cell,
)
from bigboggle.photo.glyphs import GLYPH_SIZE, normalize_cell

pytestmark = pytest.mark.once

#: Tiles per face, rotation and held-out font in the accuracy test.
TILES_EACH = 8
#: Faces whose rotation a glyph cannot tell (alike turned a half, or a quarter, turn; N has no
#: bar on the dice, so N and N turned a half are one picture).
SYMMETRIC = frozenset({"H", "I", "N", "O", "S", "X"})


@pytest.fixture(scope="module")
def held_out_fonts() -> list[str]:
    """The held-out fonts' paths; the test is skipped, naming the package, if one is missing."""
    for package, path in HELD_OUT_FONTS:
        if not os.path.exists(path):
            pytest.skip(f"held-out font {path} missing (Debian package {package})")
    return [path for _, path in HELD_OUT_FONTS]


def wilson(right: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of the proportion ``right / total``."""
    share = right / total
    denominator = 1 + z * z / total
    centre = (share + z * z / (2 * total)) / denominator
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / denominator
    return centre - half, centre + half


def read(cells: list[np.ndarray]) -> tuple[list[str | None], list[int | None]]:
    """Each cell's face as the reader reads it (None: no glyph found) and its rotation."""
    glyphs = [normalize_cell(cell) for cell in cells]
    found = [i for i, glyph in enumerate(glyphs) if glyph is not None]
    faces: list[str | None] = [None] * len(cells)
    rotations: list[int | None] = [None] * len(cells)
    if found:
        probabilities, turned = Classifier.load().predict(
            np.stack([glyph for glyph in glyphs if glyph is not None])
        )
        for row, i in enumerate(found):
            faces[i] = FACES[int(probabilities[row].argmax())]
            rotations[i] = int(turned[row])
    return faces, rotations


def test_the_faces_are_the_dice_faces() -> None:
    assert len(FACES) == 31 and len(set(FACES)) == 31
    assert FACES[:3] == ("A", "B", "C") and FACES[16] == "Qu" and FACES[25] == "Z"
    assert FACES[26:] == ("An", "Er", "He", "In", "Th")
    assert frozenset("MWZ") == UNDERLINED  # the dice's underlined faces; N has no bar


def test_a_face_is_drawn_light_with_dark_letters(held_out_fonts: list[str]) -> None:
    rng = np.random.default_rng(1)
    image = np.asarray(render_face("W", held_out_fonts[0], 90, 270, rng).convert("L"))
    blank = np.asarray(render_face("", held_out_fonts[0], 90, 0, rng).convert("L"))
    assert image.shape == blank.shape == (90, 90)
    assert blank[30:60, 30:60].min() > 200  # paper only
    assert image[20:70, 20:70].min() < 60  # ink
    assert blank[0, 0] < blank[45, 45]  # the cube's edge is darker than its face
    with pytest.raises(ValueError):
        render_face("Q", held_out_fonts[0], 90, 0, rng)
    with pytest.raises(ValueError):
        render_face("A", held_out_fonts[0], 90, 45, rng)


def test_held_out_fonts_are_read_tile_by_tile(held_out_fonts: list[str]) -> None:
    """Every face in every rotation, drawn in fonts the model never saw, as photos give them
    (any size, off centre, perspective, light, blur, noise, JPEG): read right per tile."""
    rng = np.random.default_rng(2024)
    cells, truth, turns = [], [], []
    for face in FACES:
        for rotation in ROTATIONS:
            for font in held_out_fonts:
                for _ in range(TILES_EACH):
                    cells.append(synthetic_cell(face, font, rotation, rng))
                    truth.append(face)
                    turns.append(rotation)
    faces, rotations = read(cells)
    right = sum(seen == face for seen, face in zip(faces, truth, strict=True))
    total = len(cells)
    low, high = wilson(right, total)
    wrong = sorted(
        f"{face}@{turn}->{seen}"
        for seen, face, turn in zip(faces, truth, turns, strict=True)
        if seen != face
    )
    print(
        f"\nheld-out fonts: {right}/{total} tiles read right: {right / total:.2%} "
        f"(95% Wilson interval {low:.2%} to {high:.2%}); misread: {', '.join(wrong) or 'none'}"
    )
    assert right / total >= 0.99, wrong
    # The rotation too, where the letter shows it: right for nearly every tile read right.
    shown = [
        (rotation, turn)
        for seen, face, rotation, turn in zip(faces, truth, rotations, turns, strict=True)
        if seen == face and face not in SYMMETRIC
    ]
    assert sum(rotation == turn for rotation, turn in shown) >= 0.99 * len(shown)


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_underlined_faces_are_told_from_each_other_turned(
    held_out_fonts: list[str], rotation: int
) -> None:
    """M and W, N and Z are each the other turned: the bar under M, W and Z (the dice's
    underlined faces) tells them, in whichever rotation the cube lies (an N's rotation is
    known up to a half turn: it has no bar)."""
    rng = np.random.default_rng(rotation)
    cells, truth = [], []
    for face in ("M", "W", "N", "Z"):
        for font in held_out_fonts:
            for _ in range(2):
                cells.append(synthetic_cell(face, font, rotation, rng, size=80))
                truth.append(face)
    faces, rotations = read(cells)
    assert faces == truth
    assert [
        turn if face != "N" else turn % 180 for face, turn in zip(truth, rotations, strict=True)
    ] == [rotation if face != "N" else rotation % 180 for face in truth]


def test_blank_faces_give_no_glyph(held_out_fonts: list[str]) -> None:
    """Plain, or with Super Big Boggle's solid square printed on it (half of them): no letter.
    The square was read as a J, an I or an N in real photos before it was told apart. (Cells of
    48 pixels and more, a Super Big Boggle tray's cube in a 400-pixel photo: smaller, a blurred
    square is a blot the reader does not tell from a letter.)"""
    rng = np.random.default_rng(7)
    cells = [
        synthetic_cell("", held_out_fonts[0], 0, rng, size=int(rng.integers(48, 241)))
        for _ in range(100)
    ]
    assert sum(normalize_cell(cell) is not None for cell in cells) == 0


def test_the_bold_letters_nearest_a_square_are_not_taken_for_one(held_out_fonts: list[str]) -> None:
    """Faces whose ink fills much of the middle (O, D, Q, B, H, M, W and the two-letter faces)
    keep their glyph: only a solid square is a blank. (Cells of 48 pixels and more, as for the
    blanks: a narrow bold M in a 34-pixel cell blurs into a square blot.)"""
    rng = np.random.default_rng(8)
    for font in held_out_fonts:
        for face in ("O", "D", "Qu", "B", "H", "M", "W", "I", "He", "An"):
            cells = [
                synthetic_cell(face, font, 0, rng, size=int(rng.integers(48, 241)))
                for _ in range(10)
            ]
            assert all(normalize_cell(cell) is not None for cell in cells), (font, face)


@pytest.mark.parametrize(
    "cell",
    [
        np.zeros((64, 64), np.uint8),
        np.full((64, 64), 255, np.uint8),
        np.zeros((1, 1), np.uint8),
        np.zeros((0, 0), np.uint8),
        np.zeros((7, 300), np.uint8),
        np.random.default_rng(0).integers(0, 256, (80, 80), dtype=np.uint8),
        np.random.default_rng(1).integers(0, 256, (2000, 2000), dtype=np.uint8),
        np.random.default_rng(2).integers(0, 256, (24, 400), dtype=np.uint8),
        np.tile(np.array([[0, 255], [255, 0]], np.uint8), (40, 40)),  # a checkerboard
        np.zeros((64, 64, 3), np.uint8),  # not 2-D
    ],
    ids=["black", "white", "1x1", "empty", "thin", "noise", "huge", "oblong", "checks", "rgb"],
)
def test_hostile_cells_give_a_glyph_or_none(cell: np.ndarray) -> None:
    """The glyph finder's work is bounded by construction (any crop is first brought to a
    fixed small size), so only what it returns is checked here."""
    glyph = normalize_cell(cell)
    if glyph is not None:
        assert glyph.shape == (GLYPH_SIZE, GLYPH_SIZE) and glyph.dtype == np.float32
        assert float(glyph.min()) >= 0.0 and float(glyph.max()) <= 1.0


def test_predict_gives_probabilities_and_rotations() -> None:
    model = Classifier.load()
    assert Classifier.load() is model  # read once per process
    glyphs = np.random.default_rng(3).random((5, GLYPH_SIZE, GLYPH_SIZE), dtype=np.float32)
    glyphs[0] = 0.0
    probabilities, rotations = model.predict(glyphs)
    assert probabilities.shape == (5, len(FACES))
    assert np.allclose(probabilities.sum(axis=1), 1.0) and (probabilities >= 0).all()
    assert rotations.shape == (5,) and set(rotations.tolist()) <= set(ROTATIONS)
    empty, none = model.predict(np.zeros((0, GLYPH_SIZE, GLYPH_SIZE), np.float32))
    assert empty.shape == (0, len(FACES)) and none.shape == (0,)
    with pytest.raises(ValueError):
        model.predict(np.zeros((2, 16, 16), np.float32))
