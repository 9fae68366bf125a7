"""One cube's crop to its letter alone: :func:`normalize_cell`.

A cell's crop holds the cube's face roughly centred, and at its borders the cube's edge, the
tray's gap and the neighbours' sides; it may be small, blurred, unevenly lit, noisy and
JPEG-compressed, and the letter lies in any of four rotations. The crop is brought to a fixed
small size (so the cost is the same for any crop) and, unless it is Super Big Boggle's blank
face (a solid square printed on it: :func:`_solid_square`), the paper's brightness estimated
everywhere (a grey closing that wipes out the strokes): "ink" is how much darker than the
paper around it each pixel is, whatever the light. A pixel is marked where its ink passes half
the darkest ink near it, which keeps a faint or blurred stroke and not the paper beside a
darker gap.

Of the marked blobs, those that touch the crop's border or span most of it are the cube's
outline and its neighbours. The letter's main blob is the largest near the centre; then come
its other pieces, each as dark as the letter and placed as a piece of text is (a stroke cut off
by the threshold, a two-letter face's other letter beside it, the bar under M, W, N and Z
centred below it and shorter than it), while a piece of the face's edge, lighter, longer,
further out or pulling the text off centre, is left out. Their box, padded square and scaled
to :data:`GLYPH_SIZE`, is what the classifier reads: the same for any crop size and lighting,
in the rotation the letter lies in. No letter-sized ink near the centre: a blank face (None).
"""

from __future__ import annotations

import cv2
import numpy as np

#: Pixels a side of a normalized glyph.
GLYPH_SIZE = 32
#: Pixels a side the crop is brought to first: large enough for the strokes of a letter in a
#: 24-pixel crop (upsampled) and the bar under it, small enough to cost well under 1 ms.
_WORK = 96
#: The glyph's margin, in pixels, around the letter's box.
_PAD = 2

# Marking the ink.
#: The neighbourhood whose darkest ink sets each pixel's threshold (half of it): a few
#: strokes wide.
_AROUND = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15))
#: Ink fainter than this, or than this share of the darkest ink near the centre (the 99th
#: percentile of the central square, _CENTRE), is never marked: the paper's grain and noise.
_FLOOR = 0.1
_FLOOR_SHARE = 0.3
_CENTRE = slice(round(_WORK * 0.2), round(_WORK * 0.8))

# Super Big Boggle's blank face, a solid square: on average darker than this share of the
# face's light, at least this share of the inner square's area, filling this share of the
# rectangle around it and of its hull, and this square. (Measured on real photos and rendered
# cells: every printed square passes, about one bold letter in 5,000 does.)
_SQUARE_DARK = 0.6
_SQUARE_AREA = 0.15
_SQUARE_FILL = 0.9
_SQUARE_SOLID = 0.95
_SQUARE_ASPECT = 1.2

# The main blob.
#: Blobs wider or higher than this fraction of the crop are the cube's outline, not a letter.
_WIDEST = 0.78
#: How far from the centre (fraction of the crop) the main blob's box centre may be.
_MAIN_CENTRAL = 0.22
#: The inner square (half its side, fraction of the crop) where at least _INSIDE_SHARE of
#: the main blob's pixels lie: the letter is well inside the face, its outline is not.
_INNER = 0.27
_INSIDE_SHARE = 0.5
_INNER_SLICE = slice(round(_WORK * (0.5 - _INNER)), round(_WORK * (0.5 + _INNER)))
#: Fewer ink pixels than this fraction of the crop is not a letter (speckle, or a blank face).
_SMALLEST_LETTER = 0.004
#: The main blob's mean ink, relative to the paper, below which the face is blank.
_BLANK_CONTRAST = 0.15

# The letter's other pieces.
#: A piece has at least this share of the main blob's pixels, and this fraction of the
#: crop's (the bar under a small letter, a line or two of pixels, the smaller one).
_PIECE_SHARE = 0.03
_SMALLEST_PIECE = 0.002
_SMALLEST_BAR = 0.001
#: A piece has at least this share of the main blob's mean ink; the bar under a letter,
#: thinner than the strokes, loses more of its ink to blur.
_PIECE_STRENGTH = 0.6
_BAR_STRENGTH = 0.35
#: A stroke cut off the letter lies within this gap of it: a fraction of the crop, or of the
#: letter's smaller side, whichever is more; and mostly in the inner square.
_PIECE_GAP = 0.12
_PIECE_GAP_SHARE = 0.5
#: The next letter of a two-letter face: at least this share of the main blob's ink, within
#: this gap (a fraction of the crop), its nearer end lined up with the letter's to within
#: this share of the longer one.
_NEIGHBOUR_STRENGTH = 0.7
_NEIGHBOUR_GAP = 0.08
_NEIGHBOUR_ALIGN = 0.2
#: ... or further off (a fraction of the letter's height), if as dark and lined up exactly.
_FAR_NEIGHBOUR_GAP = 0.5
_FAR_NEIGHBOUR_STRENGTH = 0.85
_FAR_NEIGHBOUR_ALIGN = 0.1
#: The bar under a letter: at most this far from it and this thick (fractions of the letter's
#: depth across the bar), at most this long and its centre at most this far from the
#: letter's (fractions of the letter's side along it).
_BAR_GAP = 0.25
_BAR_THICKNESS = 0.32
_BAR_LENGTH = 0.92
_BAR_OFFSET = 0.2
#: A bar is at least this many times as long as it is thick (blur rounds a short one off).
_BAR_ASPECT = 1.3
#: The face, for the letter's other pieces: its hull worn in by this fraction of the crop; used
#: only when it covers this much of the crop (less: not found; more: its edge is not in the
#: crop); a piece keeps at least this share of its pixels on it.
_FACE_IN = 0.04
_FACE_LEAST = 0.2
_FACE_MOST = 0.85
_ON_FACE = 0.6
#: A piece that would put the letter's box's centre further than this from the crop's, moving
#: it away by more than _AWAY (fractions of the crop), is not part of the letter.
_OFF_CENTRE = 0.13
_AWAY = 0.03


def normalize_cell(cell: np.ndarray) -> np.ndarray | None:
    """The letter in one cube's grayscale crop ``cell`` (2-D uint8, any size, the face roughly
    centred) as a :data:`GLYPH_SIZE` x :data:`GLYPH_SIZE` float32 array in [0, 1] (1 = ink):
    the letter(s) and the bar under them if any, scaled to fit (aspect kept) and centred, in
    the rotation they lie in. None when the face is blank (no letter-sized ink near the centre)
    or ``cell`` is not a usable image. Never raises on a 2-D array; costs about 0.4 ms."""
    work = _prepared(cell)
    if work is None or _solid_square(work):
        return None
    ink = _ink(work)
    # Half the darkest ink around each pixel: a stroke's core, however faint or blurred, and
    # not the paper beside a darker neighbour (the tray's gap next to a thin letter); never
    # fainter than a share of the darkest ink near the centre (the paper's grain).
    centre = ink[_CENTRE, _CENTRE]
    darkest = float(np.partition(centre.ravel(), -centre.size // 100)[-centre.size // 100])
    around = cv2.dilate(ink, _AROUND)
    floor = max(_FLOOR, _FLOOR_SHARE * darkest)
    marked = (ink > np.maximum(0.5 * around, floor)).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(marked, connectivity=8)
    inside = np.bincount(labels[_INNER_SLICE, _INNER_SLICE].ravel(), minlength=count)
    ink_sums = np.bincount(labels.ravel(), weights=ink.ravel(), minlength=count)
    strength = ink_sums / np.maximum(stats[:, cv2.CC_STAT_AREA], 1).astype(np.float64)
    kept = _letter_blobs(stats[1:count], inside[1:count], strength[1:count])
    if not kept or strength[kept[0] + 1] < _BLANK_CONTRAST:
        return None
    face = _face(work)
    if face is not None:
        # The letter's other pieces lie on the face: a piece mostly beyond it is the face's own
        # rounded edge, or a neighbour's side, seen where a slanted photo puts them near it.
        on_face = np.bincount(labels.ravel(), weights=face.ravel(), minlength=count)
        share = on_face / np.maximum(stats[:, cv2.CC_STAT_AREA], 1)
        kept = kept[:1] + [index for index in kept[1:] if share[index + 1] >= _ON_FACE]
    return _glyph(labels, stats, [index + 1 for index in kept])


def _face(work: np.ndarray) -> np.ndarray | None:
    """Where the cube's face is in ``work`` (1 = on it, a little in from its edge), or None if
    it is not clear: the light region (Otsu's threshold) that covers most of the middle, its
    convex hull (a rounded square, the letter in it), worn in from its edge by :data:`_FACE_IN`.
    None when that is most of the crop (the face's edge not seen) or little of it."""
    pixels = np.clip(work, 0, 255).astype(np.uint8)
    _, light = cv2.threshold(pixels, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    count, labels = cv2.connectedComponents(light, connectivity=4)
    middle = np.bincount(labels[_INNER_SLICE, _INNER_SLICE].ravel(), minlength=count)
    middle[0] = 0
    label = int(np.argmax(middle))
    if middle[label] == 0:
        return None
    points = cv2.findNonZero((labels == label).astype(np.uint8))
    hull = cv2.convexHull(points)
    face = np.zeros_like(pixels)
    cv2.fillConvexPoly(face, hull, 1)
    inward = round(_FACE_IN * _WORK)
    face = cv2.erode(face, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * inward + 1,) * 2))
    share = float(face.mean())
    if not _FACE_LEAST <= share <= _FACE_MOST:
        return None
    return face.astype(np.float64)


def _prepared(cell: np.ndarray) -> np.ndarray | None:
    """``cell`` as a :data:`_WORK`-pixel square float32 image, lightly smoothed; None if it is
    not a 2-D image of at least 8 pixels a side. Time is bounded whatever its size: a large
    crop is thinned by striding before it is resized."""
    array = np.asarray(cell)
    if array.ndim != 2 or min(array.shape) < 8:
        return None
    rows, cols = (max(1, side // (4 * _WORK)) for side in array.shape)
    array = array[::rows, ::cols]
    if array.dtype != np.uint8:  # not the contract, but no reason to fail on it
        try:
            array = np.clip(np.nan_to_num(array.astype(np.float64)), 0, 255).astype(np.uint8)
        except (TypeError, ValueError):
            return None
    interpolation = cv2.INTER_AREA if min(array.shape) > _WORK else cv2.INTER_LINEAR
    work = cv2.resize(np.ascontiguousarray(array), (_WORK, _WORK), interpolation=interpolation)
    return np.asarray(cv2.GaussianBlur(work.astype(np.float32), (0, 0), 1.0), np.float32)


def _solid_square(work: np.ndarray) -> bool:
    """Whether the face in ``work`` is Super Big Boggle's blank: a solid dark square printed in
    the middle (no letter; the ink measure, made for strokes, sees only its edges). The dark
    region (Otsu's threshold over the face's inner part) under its centre is large, fills the
    rectangle around it and its own hull, is square and much darker than the face: no letter
    is all of these at once (a bold O or D leaves its hole, an I is long, a blurred B or M is
    notched)."""
    low, high = _INNER_SLICE.start, _INNER_SLICE.stop
    inner = work[low:high, low:high]
    side = inner.shape[0]
    pixels = np.clip(inner, 0, 255).astype(np.uint8)
    _, dark = cv2.threshold(pixels, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    label = int(labels[side // 2, side // 2])
    if label == 0 or stats[label, cv2.CC_STAT_AREA] < _SQUARE_AREA * side * side:
        return False
    region = labels == label
    if float(inner[region].mean()) > _SQUARE_DARK * float(np.percentile(inner, 95)):
        return False
    contours, _ = cv2.findContours(
        region.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    outline = max(contours, key=cv2.contourArea)
    area = float(stats[label, cv2.CC_STAT_AREA])
    (_, _), (width, height), _ = cv2.minAreaRect(outline)
    hull = cv2.contourArea(cv2.convexHull(outline))
    return (
        min(width, height) > 0
        and area >= _SQUARE_FILL * width * height
        and area >= _SQUARE_SOLID * hull
        and max(width, height) <= _SQUARE_ASPECT * min(width, height)
    )


def _ink(work: np.ndarray) -> np.ndarray:
    """How much darker than the paper around it each pixel of ``work`` is (0 = as light, 1 =
    black). The paper's level is a grey closing at a quarter of the size (a stroke is at most
    a few pixels wide there, so the closing fills it in), brought back up smoothly: uneven
    light and shadows divide out."""
    quarter = _WORK // 4
    small = cv2.resize(work, (quarter, quarter), interpolation=cv2.INTER_AREA)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    paper = cv2.morphologyEx(small, cv2.MORPH_CLOSE, kernel)
    paper = cv2.resize(paper, (_WORK, _WORK), interpolation=cv2.INTER_LINEAR)
    paper = np.maximum(paper, 1.0)
    return np.asarray(np.clip(1.0 - work / paper, 0.0, 1.0), np.float32)


def _letter_blobs(stats: np.ndarray, inside: np.ndarray, strength: np.ndarray) -> list[int]:
    """Which of the blobs (rows of ``stats``: x, y, width, height, area; ``inside``: how many
    of each one's pixels lie in the inner square, :data:`_INNER`; ``strength``: their mean
    ink) make up the letter, main blob first; empty when there is none.

    A blob that touches the border or spans most of the crop is the cube's outline or a
    neighbour. The main blob is the largest near the centre that lies mostly in the inner
    square (a piece of the outline runs round it). Then come the letter's other pieces, as
    dark as it (the cube's bevelled edge is lighter than the ink): a stroke the threshold cut
    off, in or by the letter's box; a two-letter face's other letter, beside it as the next
    letter of a word is (:func:`_is_neighbour`). Last, at most one bar under the letter
    (:func:`_bar_gap`): the nearest thin stroke beside one of its sides, centred on it and
    shorter than it (the face's edge, a stroke as thin, runs longer and further out). A piece
    beside the letter that would pull its box off the crop's centre (:func:`_off_centre`) is
    the face's edge: the text is centred on the face, and the face on the crop."""
    if len(stats) == 0:
        return []
    x, y, width, height, area = (stats[:, i].astype(np.float64) for i in range(5))
    centre_x, centre_y = x + width / 2 - _WORK / 2, y + height / 2 - _WORK / 2
    candidate = (
        (x > 0)
        & (y > 0)
        & (x + width < _WORK)
        & (y + height < _WORK)
        & (width <= _WIDEST * _WORK)
        & (height <= _WIDEST * _WORK)
    )
    within = inside >= _INSIDE_SHARE * area
    near = (np.abs(centre_x) <= _MAIN_CENTRAL * _WORK) & (np.abs(centre_y) <= _MAIN_CENTRAL * _WORK)
    distance = np.hypot(centre_x, centre_y) / (0.25 * _WORK)
    score = np.where(candidate & near & within, area / (1.0 + distance**2), -1.0)
    main = int(np.argmax(score))
    if score[main] < 0 or area[main] < _SMALLEST_LETTER * _WORK * _WORK:
        return []
    boxes = np.stack([x, y, x + width, y + height], axis=1)
    kept = [main]
    box = boxes[main].copy()
    large = candidate & (area >= _PIECE_SHARE * area[main])
    large[main] = False
    ratio = strength / max(float(strength[main]), 1e-6)
    pieces = large & (ratio >= _PIECE_STRENGTH) & (area >= _SMALLEST_PIECE * _WORK * _WORK)
    grown, barred = True, False
    while grown:
        grown = False
        for index in np.flatnonzero(pieces):
            piece = boxes[index]
            gaps = np.maximum(box[:2] - piece[2:], piece[:2] - box[2:])
            merged = _union(box, piece)
            if (merged[2:] - merged[:2]).max() > _WIDEST * _WORK:
                continue
            close = max(_PIECE_GAP * _WORK, _PIECE_GAP_SHARE * float((box[2:] - box[:2]).min()))
            fragment = within[index] and gaps.max() <= close and _bar_gap(piece, box) is None
            if gaps.max() > 0 and _off_centre(merged, box):
                continue
            if fragment or _is_neighbour(piece, box, gaps, ratio[index]):
                box = merged
                kept.append(int(index))
                pieces[index] = large[index] = False
                grown = True
                # A thin stroke beside the letter taken as part of it: no room for a bar.
                barred |= bool(gaps.max() >= 0 and _thin(piece))
    if barred:
        return kept
    bars = [
        (gap, int(index))
        for index in np.flatnonzero(
            large & (ratio >= _BAR_STRENGTH) & (area >= _SMALLEST_BAR * _WORK * _WORK)
        )
        if (gap := _bar_gap(boxes[index], box)) is not None
        and not _off_centre(_union(box, boxes[index]), box)
    ]
    if bars:
        kept.append(min(bars)[1])
    return kept


def _union(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The smallest box (x0, y0, x1, y1) holding both boxes."""
    return np.concatenate([np.minimum(first[:2], second[:2]), np.maximum(first[2:], second[2:])])


def _bar_gap(bar: np.ndarray, letter: np.ndarray) -> float | None:
    """If the box ``bar`` (x0, y0, x1, y1) has the shape and place of the bar under a letter
    with box ``letter``, the letter turned any way, the gap between them as a share of the
    letter's depth across the bar; None otherwise. A bar is thin, beside one of the letter's
    sides, centred on it, and shorter than it."""
    for along in (0, 1):  # 0: the bar runs along x (above or below the letter); 1: along y
        across = 1 - along
        side = letter[along + 2] - letter[along]
        depth = letter[across + 2] - letter[across]
        length = bar[along + 2] - bar[along]
        thickness = bar[across + 2] - bar[across]
        offset = abs((bar[along] + bar[along + 2]) - (letter[along] + letter[along + 2])) / 2
        gap = max(letter[across] - bar[across + 2], bar[across] - letter[across + 2])
        if (
            -0.05 * depth <= gap <= _BAR_GAP * depth
            and thickness <= _BAR_THICKNESS * depth
            and _BAR_ASPECT * thickness <= length <= _BAR_LENGTH * side
            and offset <= _BAR_OFFSET * side
        ):
            return float(gap / max(depth, 1.0))
    return None


def _off_centre(merged: np.ndarray, box: np.ndarray) -> bool:
    """Whether taking in a piece, so that the letter's box ``box`` becomes ``merged``, moves
    it off the crop's centre: a face's text is centred on it, and the face on the crop, so a
    piece that does is more likely the face's edge than part of the text."""
    centre = (merged[:2] + merged[2:]) / 2 - _WORK / 2
    before = (box[:2] + box[2:]) / 2 - _WORK / 2
    away = np.abs(centre) - np.abs(before)
    return bool(np.any((np.abs(centre) > _OFF_CENTRE * _WORK) & (away > _AWAY * _WORK)))


def _thin(box: np.ndarray) -> bool:
    """Whether the box is a thin stroke's: at least three times as long as it is thick."""
    sides = box[2:] - box[:2]
    return bool(sides.max() >= 3 * sides.min())


def _is_neighbour(piece: np.ndarray, letter: np.ndarray, gaps: np.ndarray, ratio: float) -> bool:
    """Whether the box ``piece`` sits beside the box ``letter`` as the next letter of a word
    does ("In", "Th": ``gaps`` are the gaps between them along x and y, negative where they
    overlap; ``ratio`` is the piece's ink over the letter's): as dark, close along one axis,
    mostly overlapping along the other, not much longer there than the letter, and lined up
    with it at one end (the baseline, or the tops of capitals and ascenders). A piece of the
    face's edge is lighter, or further, or longer, or out of line."""
    if ratio < _NEIGHBOUR_STRENGTH:
        return False
    for axis in (0, 1):  # 0: side by side along x; 1: along y
        other = 1 - axis
        span = piece[other + 2] - piece[other]
        letter_span = letter[other + 2] - letter[other]
        overlap = min(piece[other + 2], letter[other + 2]) - max(piece[other], letter[other])
        misalign = min(
            abs(piece[other] - letter[other]), abs(piece[other + 2] - letter[other + 2])
        ) / max(span, letter_span)
        if overlap < 0.5 * span or span > 1.6 * letter_span:
            continue
        if gaps[axis] <= _NEIGHBOUR_GAP * _WORK and misalign <= _NEIGHBOUR_ALIGN:
            return True
        # Further off (a wide gap, as between "I" and "n" in some fonts): only as dark as the
        # letter, about as long, and lined up exactly.
        if (
            gaps[axis] <= _FAR_NEIGHBOUR_GAP * letter_span
            and ratio >= _FAR_NEIGHBOUR_STRENGTH
            and misalign <= _FAR_NEIGHBOUR_ALIGN
            and span >= 0.8 * letter_span
        ):
            return True
    return False


def _glyph(labels: np.ndarray, stats: np.ndarray, kept: list[int]) -> np.ndarray:
    """The blobs ``kept`` (labels in ``labels``) cut out by their joint box, centred in a
    square and scaled to :data:`GLYPH_SIZE` (less :data:`_PAD` each side), as float32 in
    [0, 1]."""
    left = int(min(stats[i, 0] for i in kept))
    top = int(min(stats[i, 1] for i in kept))
    right = int(max(stats[i, 0] + stats[i, 2] for i in kept))
    bottom = int(max(stats[i, 1] + stats[i, 3] for i in kept))
    crop = np.isin(labels[top:bottom, left:right], kept).astype(np.float32)
    height, width = crop.shape
    side = max(height, width)
    square = np.zeros((side, side), np.float32)
    row, col = (side - height) // 2, (side - width) // 2
    square[row : row + height, col : col + width] = crop
    inner = GLYPH_SIZE - 2 * _PAD
    interpolation = cv2.INTER_AREA if side > inner else cv2.INTER_LINEAR
    scaled = cv2.resize(square, (inner, inner), interpolation=interpolation)
    glyph = np.zeros((GLYPH_SIZE, GLYPH_SIZE), np.float32)
    glyph[_PAD : _PAD + inner, _PAD : _PAD + inner] = np.clip(scaled, 0.0, 1.0)
    return glyph
