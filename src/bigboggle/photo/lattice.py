"""The cubes one by one: each cube's light face as its own blob, and the lattice they sit on.

In a real tray the cubes stand apart, the tray's walls between them, and each cube's face (with
the side a camera sees below it) is a light blob of its own. Where those blobs are many and of
one size, their centres lie on a lattice seen in perspective: two directions, one pitch, each
cube a whole number of pitches from the others. Numbering the cubes on it (row and column, from
the photo's top left) and fitting the perspective that carries those numbers to the centres
places the grid's edge half a pitch outside the outer cubes, whether the tray's rim is in the
photo or cut off, whatever its colour; and the numbers say how many rows and columns of cubes
the photo holds, so a tray of another size than the rules' is named rather than misread.

This works on the mask of light pixels the grid finder makes (:mod:`bigboggle.photo.grid`);
where cubes touch (a photo too small or blurred to show the gaps between them), no lattice of
separate blobs is found and the grid finder falls back to the block of cubes as a whole.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

#: A blob is a cube's if its area is at least this share of the photo's (cubes a few pixels
#: wide are not read anyway) and at most its share of the photo with this slack (a photo of
#: the tray alone: each cube a 1/(rows x cols) of it, or of a smaller tray's).
_SMALLEST_CUBE = 0.0004
_LARGEST_SLACK = 1.6
#: A cube's blob fills most of its convex hull and is not long and thin (a face with its side
#: seen below it is up to about 1.7 times as long as wide).
_SOLIDITY = 0.75
_LONGEST = 2.0
#: Cubes are of one size: within this factor of the blob size most blobs share.
_SIZE_SPREAD = 1.7
#: Lattice steps: the second runs at least this angle (radians) off the first's line; a cube
#: is a whole number of steps from another to within this fraction of a step.
_ACROSS = np.radians(30)
#: A step shorter than this (pixels) is no step: blob centres on top of one another.
_SHORTEST_STEP = 2.0
_STEP_TOLERANCE = 0.3
#: At least this share of the grid's cubes found as blobs (of a grid no larger than Classic
#: Boggle's), and at least this many.
_FOUND_SHARE = 0.6
_FOUND_LEAST = 4
#: More cube-like blobs than this (or three times the grid's cubes) are not a tray.
_MOST_CUBES = 150
#: How far the mask is worn away from its edges in each try, a fraction of the largest pitch
#: the grid can have in the photo (the photo's shorter side over the cubes across).
_WEAR = (0.0, 0.05, 0.1, 0.16)
#: Cubes seen on a lattice beyond the grid that are strays (a die beside the tray, a light
#: patch in line with the cubes); more show a larger tray.
STRAY_CUBES = 2
_SMALL_TRAY = 16


@dataclass(frozen=True)
class Lattice:
    """Cubes found on a lattice: the perspective ``transform`` from lattice coordinates
    (x = column, y = row, a cube's centre at half-integers, the grid's top-left corner at 0, 0)
    to the photo's pixels, and the lattice's size in cubes (``rows`` x ``cols``: where cubes were
    found, which may differ from the rules'); ``found`` cubes were seen as blobs in it, and
    ``outside`` more beyond it (a lattice larger than the rules' grid is cut to it; ``span``
    is its whole size, rows and columns)."""

    transform: np.ndarray
    rows: int
    cols: int
    found: int
    outside: int
    span: tuple[int, int]

    @property
    def complete(self) -> bool:
        """Whether every place of the lattice holds a cube seen."""
        return self.found == self.rows * self.cols

    def corners(self) -> np.ndarray:
        """The grid's corners in the photo (TL, TR, BR, BL), half a pitch outside the outer
        cubes' centres."""
        square = np.array(
            [[0, 0], [self.cols, 0], [self.cols, self.rows], [0, self.rows]], dtype=np.float64
        )
        return np.asarray(cv2.perspectiveTransform(square[None], self.transform)[0], np.float64)


def find_lattice(light: np.ndarray, rows: int, cols: int) -> Lattice | None:
    """The lattice of separate cube blobs in the mask ``light`` (uint8, 255 = light), for a
    grid of about ``rows`` x ``cols`` cubes; None when there is none to trust (too few blobs
    of one size, or no consistent numbering). A lattice larger than the grid (a stray cube
    beside the tray) is cut to the ``rows`` x ``cols`` window holding the most cubes.

    Cubes seen at a slant, or blurred, touch in the mask (a cube's side against the next one's
    face): the mask is also tried worn away from its edges (:data:`_WEAR`), which cuts the thin
    joins and leaves each cube's core. Of the lattices found, the one with the most cubes seen
    is taken (:func:`_rank`)."""
    side = min(light.shape) / max(rows, cols)
    best: Lattice | None = None
    inside: np.ndarray | None = None  # how far each pixel of the filled mask is from its edge
    for wear in _WEAR:
        radius = round(wear * side)
        if radius == 0:
            mask = light
        else:
            if inside is None:
                inside = cv2.distanceTransform(
                    _filled(light, rows, cols), cv2.DIST_L2, cv2.DIST_MASK_PRECISE
                )
            mask = (inside > radius).astype(np.uint8) * 255
        found = _lattice(mask, rows, cols)
        if found is not None and (
            best is None or _rank(found, rows, cols) > _rank(best, rows, cols)
        ):
            best = found
        if (
            best is not None
            and best.complete
            and (best.rows, best.cols) == (rows, cols)
            and best.outside == 0
        ):
            break  # every cube of the grid seen, nothing beyond: wearing cannot do better
    return best


def _rank(lattice: Lattice, rows: int, cols: int) -> tuple[int, bool]:
    """How much to trust a lattice for a grid of ``rows`` x ``cols``: the more cubes seen on it
    the better (a mask worn too far loses the outer cubes, and may leave a smaller lattice that
    seems to fit); then one of the grid's size (no more than :data:`STRAY_CUBES` beyond it)."""
    fits = (lattice.rows, lattice.cols) == (rows, cols) and lattice.outside <= STRAY_CUBES
    return lattice.found + lattice.outside, fits


def _filled(light: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """``light`` with the holes in its blobs filled that are smaller than a cube (a letter is a
    hole in its cube's blob: worn away, a ring would break up; filled, the cube's core stays
    whole). A larger hole (the tray, in a white table's blob) stays. One labelling of the dark
    parts finds the holes (those clear of the photo's edge), whatever their number."""
    height, width = light.shape
    dark = (light == 0).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=4)
    left, top = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    right = left + stats[:, cv2.CC_STAT_WIDTH]
    bottom = top + stats[:, cv2.CC_STAT_HEIGHT]
    hole = (left > 0) & (top > 0) & (right < width) & (bottom < height)
    hole &= stats[:, cv2.CC_STAT_AREA] < light.size / (rows * cols)
    hole[0] = False  # the light pixels' label
    filled: np.ndarray = np.where(hole[labels], 255, light).astype(np.uint8)
    return filled


def _lattice(light: np.ndarray, rows: int, cols: int) -> Lattice | None:
    """:func:`find_lattice` on one mask as it is."""
    centres, whole = _cube_centres(light, rows, cols)
    # As many as a small tray's share (a tray of another size than the rules' is named).
    least = max(_FOUND_LEAST, round(_FOUND_SHARE * min(rows * cols, _SMALL_TRAY)))
    if len(centres) < least:
        return None
    steps = _steps(centres)
    if steps is None:
        return None
    numbers = _number(centres, *steps)
    if numbers is None:
        return None
    fitted = _fit(centres, whole, numbers, float(np.linalg.norm(steps[0])))
    if fitted is None:
        return None
    transform, places = fitted
    if len(places) < least:
        return None
    span = places.max(axis=0) + 1
    # The window of the rules' size (or the whole lattice, if smaller) with the most cubes.
    width, height = min(int(span[0]), cols), min(int(span[1]), rows)
    best = max(
        (
            int(
                np.count_nonzero(
                    np.all((places >= (x, y)) & (places < (x + width, y + height)), axis=1)
                )
            ),
            x,
            y,
        )
        for x in range(int(span[0]) - width + 1)
        for y in range(int(span[1]) - height + 1)
    )
    found, left, top = best
    if found < least:
        return None
    shift = np.eye(3)
    shift[:2, 2] = (left, top)
    return Lattice(
        np.asarray(transform @ shift, np.float64),
        height,
        width,
        found,
        len(places) - found,
        (int(span[1]), int(span[0])),
    )


def _cube_centres(light: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """The centres (x, y) of the light blobs that are cubes: holes filled (a letter is a hole
    in its cube's blob), solid, not long, of the size most of them share; and whether each is
    whole (clear of the photo's edge: a cube cut off there has its centre pulled inwards)."""
    height, width = light.shape
    opened = cv2.morphologyEx(light, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, hierarchy = cv2.findContours(opened, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return np.empty((0, 2)), np.empty(0, dtype=bool)
    smallest = _SMALLEST_CUBE * height * width
    largest = _LARGEST_SLACK * height * width / min(rows * cols, _SMALL_TRAY)
    areas, centres, whole = [], [], []
    for contour, links in zip(contours, hierarchy[0], strict=True):
        if links[3] >= 0:
            continue  # a hole's outline (a letter's), not a blob's
        area = cv2.contourArea(contour)
        if not smallest <= area <= largest:
            continue
        hull_area = cv2.contourArea(cv2.convexHull(contour))
        (_, _), (side_a, side_b), _ = cv2.minAreaRect(contour)
        if hull_area <= 0 or area / hull_area < _SOLIDITY:
            continue
        if min(side_a, side_b) <= 0 or max(side_a, side_b) / min(side_a, side_b) > _LONGEST:
            continue
        moments = cv2.moments(contour)
        if moments["m00"] <= 0:
            continue
        areas.append(area)
        centres.append((moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]))
        x, y, w, h = cv2.boundingRect(contour)
        whole.append(x > 0 and y > 0 and x + w < width and y + h < height)
    if not areas:
        return np.empty((0, 2)), np.empty(0, dtype=bool)
    sizes = np.array(areas)
    # The size most blobs share: the blob with the most others within the spread of it.
    company = [
        int(np.count_nonzero((sizes >= size / _SIZE_SPREAD) & (sizes <= size * _SIZE_SPREAD)))
        for size in sizes
    ]
    typical = sizes[int(np.argmax(np.array(company) + sizes / sizes.max() / 2))]
    keep = (sizes >= typical / _SIZE_SPREAD) & (sizes <= typical * _SIZE_SPREAD)
    if np.count_nonzero(keep) > max(_MOST_CUBES, 3 * rows * cols):
        # Far more cube-like blobs than any tray has: a tiled floor, a keyboard, a pattern (and
        # the lattice's work grows with the square of their number).
        return np.empty((0, 2)), np.empty(0, dtype=bool)
    return np.array(centres, dtype=np.float64)[keep], np.array(whole, dtype=bool)[keep]


def _steps(centres: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The lattice's two steps (one column right, one row down). The lattice's lines run the
    way the centres' nearest neighbours point (their directions folded onto a quarter turn);
    along each of the two lines, each centre's nearest neighbour on it gives a step, and the
    median of those is the step. The two may differ in length and be off square (a photo seen
    at a slant, or stretched), so each is measured on its own."""
    if len(centres) < 3:
        return None
    differences = centres[None, :, :] - centres[:, None, :]
    distances = np.linalg.norm(differences, axis=2)
    np.fill_diagonal(distances, np.inf)
    near = np.argsort(distances, axis=1)[:, : min(4, len(centres) - 1)]
    vectors = differences[np.arange(len(centres))[:, None], near].reshape(-1, 2)
    angles = np.arctan2(vectors[:, 1], vectors[:, 0])
    mean_x, mean_y = np.cos(4 * angles).mean(), np.sin(4 * angles).mean()
    if np.hypot(mean_x, mean_y) < 0.3:
        return None  # the neighbours point every way: no lattice
    first_line = np.arctan2(mean_y, mean_x) / 4
    steps = []
    for line in (first_line, first_line + np.pi / 2):
        direction = np.array([np.cos(line), np.sin(line)])
        along = differences @ direction
        on_line = np.abs(along) >= np.cos(_ACROSS) * distances
        reach = np.where(on_line, distances, np.inf)
        reachable = np.isfinite(reach.min(axis=1))
        if reachable.sum() < 2:
            return None
        rows = np.flatnonzero(reachable)
        chosen = differences[rows, reach.argmin(axis=1)[rows]]
        chosen = np.where((chosen @ direction)[:, None] < 0, -chosen, chosen)
        steps.append(np.asarray(np.median(chosen, axis=0), np.float64))
    first, second = steps
    # The more level step is one column right; the other, one row down.
    right, down = (first, second) if abs(first[0]) >= abs(second[0]) else (second, first)
    right = right if right[0] >= 0 else -right
    down = down if down[1] >= 0 else -down
    lengths = float(np.linalg.norm(right)), float(np.linalg.norm(down))
    if min(lengths) < _SHORTEST_STEP:
        return None  # centres on top of one another (a blob in another's hole): no lattice
    area = float(right[0] * down[1] - right[1] * down[0])  # of the parallelogram they span
    if abs(area) < 0.3 * lengths[0] * lengths[1]:
        return None  # nearly parallel: no lattice
    return right, down


def _number(centres: np.ndarray, right: np.ndarray, down: np.ndarray) -> np.ndarray | None:
    """Each centre's whole (column, row) on the lattice, found step by step from the middle
    cube (each step from a cube already numbered, so a perspective's changing pitch is
    followed within :data:`_STEP_TOLERANCE` of a step at each hop), then shifted to start at 0; a
    centre reached by no step, or two on one place, is dropped (row -1); None if fewer than
    half are numbered."""
    count = len(centres)
    try:
        basis = np.linalg.inv(np.column_stack([right, down]))
    except np.linalg.LinAlgError:
        return None
    numbers = np.full((count, 2), -(10**6), dtype=np.int64)
    start = int(np.argmin(np.linalg.norm(centres - np.median(centres, axis=0), axis=1)))
    numbers[start] = (0, 0)
    taken = {(0, 0): start}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        offsets = (centres - centres[here]) @ basis.T  # in steps, along right and down
        whole = np.round(offsets)
        close = np.abs(offsets - whole).max(axis=1) <= _STEP_TOLERANCE
        one_step = np.abs(whole).sum(axis=1) == 1
        for other in np.flatnonzero(close & one_step):
            place = (
                int(numbers[here][0] + whole[other][0]),
                int(numbers[here][1] + whole[other][1]),
            )
            if numbers[other][0] != -(10**6) or place in taken:
                continue
            numbers[other] = place
            taken[place] = int(other)
            queue.append(int(other))
    numbered = numbers[:, 0] != -(10**6)
    if numbered.sum() < count / 2:
        return None
    numbers[numbered] -= numbers[numbered].min(axis=0)
    numbers[~numbered] = -1
    return numbers


def _fit(
    centres: np.ndarray, whole: np.ndarray, numbers: np.ndarray, pitch: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """The perspective from lattice to photo fitted to the numbered centres (robustly: a blob
    off its place does not pull it; the whole cubes only, when there are enough), and the
    places of the cubes that agree with it, shifted to start at 0 (the transform with them)."""
    numbered = numbers[:, 0] >= 0
    if numbered.sum() < _FOUND_LEAST:
        return None
    transform = None
    for fitted in (numbered & whole, numbered):  # the whole cubes if they are enough to fit
        if fitted.sum() >= _FOUND_LEAST:
            transform, _ = cv2.findHomography(
                numbers[fitted].astype(np.float64) + 0.5, centres[fitted], cv2.RANSAC, 0.25 * pitch
            )
        if transform is not None:
            break
    if transform is None:
        return None
    # The cubes that agree with it: a whole cube within a quarter of a pitch of its place, a
    # cut one (its centre pulled inwards) within two fifths.
    places = numbers[numbered]
    seen = cv2.perspectiveTransform(places.astype(np.float64)[None] + 0.5, transform)[0]
    off = np.linalg.norm(seen - centres[numbered], axis=1)
    kept = places[off <= np.where(whole[numbered], 0.25, 0.4) * pitch]
    if len(kept) == 0:
        return None
    low = kept.min(axis=0)
    shift = np.eye(3)
    shift[:2, 2] = low
    return np.asarray(transform, np.float64) @ shift, kept - low
