"""Where the cubes are in a photo: the grid's four corners, and the photo warped square.

The cubes' faces are light and the walls between them, and the tray around them, are darker.
First the cubes are found one by one (:mod:`bigboggle.photo.lattice`: each face a light blob,
the lattice they sit on, the perspective fitted to it), in the light parts of the whole photo,
then, for a tray partly in shadow, in what is light for where it is. A lattice of the rules'
size gives the grid; one that is surely another size is refused, naming it. Failing that, the
light part of the photo, its gaps between cubes closed, is one blob for the whole grid; of the
blobs that do not run off the photo's edge (a white table does), the largest is the grid. Its
outline, brought down to four corners, is the grid's outer edge in perspective. A grid whose
outer letters the photo cuts off is refused, naming the edge. Warping it to a square gives each
cube the same square cell, in the order of the board's rows and columns (the top-left corner is
the photo's top-left-most: a tray photographed turned by a quarter is read turned by a quarter,
which is the same board for play)"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

from ..errors import PhotoError
from .lattice import STRAY_CUBES, Lattice, find_lattice

# A photo is read on one core: the server reads photos side by side in its worker pool, where
# OpenCV's own threads only spun against each other (twice the CPU for the same time).
cv2.setNumThreads(1)

#: Pixels a side of one cell of the warped grid.
CELL_PIXELS = 64
#: How much of a neighbour's side each cell's crop takes in, as a fraction of a cell: the
#: crop is a little larger than the cell, so a grid found a few pixels off still holds the
#: whole letter (the glyph finder ignores what touches the crop's border).
CELL_MARGIN = 0.12
_MARGIN = round(CELL_MARGIN * CELL_PIXELS)
#: The side, in pixels, the photo is brought down to for finding the grid.
DETECT_SIDE = 800


@dataclass(frozen=True)
class Grid:
    """A grid found in a photo: its corners in the photo (top-left, top-right, bottom-right,
    bottom-left; x, y in pixels of the photo given) and the photo warped square (grayscale,
    ``rows * CELL_PIXELS`` by ``cols * CELL_PIXELS``, with a margin of ``CELL_MARGIN`` cells
    all round)."""

    rows: int
    cols: int
    corners: np.ndarray
    warped: np.ndarray

    def cell(self, row: int, col: int) -> np.ndarray:
        """Cell ``(row, col)``'s square crop of the warped photo, margin included."""
        side = CELL_PIXELS + 2 * _MARGIN
        top, left = row * CELL_PIXELS, col * CELL_PIXELS  # the cell starts _MARGIN further in
        return self.warped[top : top + side, left : left + side]

    def cells(self) -> list[np.ndarray]:
        """Every cell's crop, row by row."""
        return [self.cell(r, c) for r in range(self.rows) for c in range(self.cols)]


def find_grid(rgb: np.ndarray, rows: int, cols: int) -> Grid:
    """The ``rows`` x ``cols`` grid of cubes in the photo ``rgb`` (H x W x 3 uint8).
    :class:`PhotoError` if no grid is found, the photo shows a tray of another size, or it cuts
    off cubes of the grid."""
    height, width = rgb.shape[:2]
    scale = min(1.0, DETECT_SIDE / max(height, width))
    small = (
        cv2.resize(
            rgb,
            (max(1, round(width * scale)), max(1, round(height * scale))),
            interpolation=cv2.INTER_AREA,
        )
        if scale < 1
        else rgb
    )
    try:
        quad = _grid_quad(small, rows, cols)
    except (np.linalg.LinAlgError, cv2.error) as error:
        # Defence in depth: a degenerate arrangement of blobs that no check above foresaw is
        # a photo with no board to read, never an error of the server's.
        raise PhotoError(f"no board found in the photo ({type(error).__name__})") from None
    corners = quad / scale
    _check_inside(corners, rows, cols, width, height)
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    margin = _MARGIN
    target = np.array(
        [
            [margin, margin],
            [margin + cols * CELL_PIXELS, margin],
            [margin + cols * CELL_PIXELS, margin + rows * CELL_PIXELS],
            [margin, margin + rows * CELL_PIXELS],
        ],
        dtype=np.float32,
    )
    transform = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
    size = (cols * CELL_PIXELS + 2 * margin, rows * CELL_PIXELS + 2 * margin)
    warped = cv2.warpPerspective(
        gray, transform, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    return Grid(rows, cols, corners, warped)


#: The pitches tried for light relative to what is near (fractions of the photo's shorter side,
#: shared among the grid's cubes), and how far "near" is, in pitches.
_LATTICE_FRACTIONS = (0.8, 0.5, 0.3)
_REACH = 1.5
#: The kernel's side, in pixels, at which the lightest near each pixel is found.
_LIGHTEST_KERNEL = 15


def _grid_quad(rgb: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The grid's four corners in ``rgb``'s pixels, ordered TL, TR, BR, BL: from the lattice
    of separate cubes in the light parts of the photo (:func:`_light`; under a shadow, light
    relative to what is near, :func:`_lit_locally`), else from the block of cubes as a whole.
    :class:`PhotoError` if neither is found, or the photo shows a tray of another size."""
    height, width = rgb.shape[:2]
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    # Cube faces are pale: a strongly coloured light region (a yellow tray) is not a face.
    coloured = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)[:, :, 1] > 110
    light = _light(gray, coloured)
    side = min(height, width)
    # The pitches a grid may have in the photo: filling it, to a quarter of it.
    pitches = [fraction * side / max(rows, cols) for fraction in (0.5, 0.35, 0.25)]
    reach = _REACH * side / max(rows, cols)
    local: dict[float, np.ndarray] = {}

    def lit_locally(fraction: float) -> np.ndarray:
        """:func:`_lit_locally` at the pitch ``fraction`` stands for, made once, when needed."""
        if fraction not in local:
            local[fraction] = _lit_locally(gray, coloured, reach * fraction)
        return local[fraction]

    other: tuple[int, int] | None = None
    for mask in itertools.chain([light], map(lit_locally, _LATTICE_FRACTIONS)):
        lattice = find_lattice(mask, rows, cols)
        if lattice is None:
            continue
        if (lattice.rows, lattice.cols) == (rows, cols) and lattice.outside <= STRAY_CUBES:
            return lattice.corners()
        if other is None:
            other = _other_shown(lattice, rows, cols)
    if other is not None:
        raise PhotoError(_other_size(other, rows, cols))
    # Close the gaps between cubes (and the letters' holes): a kernel of about a third of a
    # cube, whatever the grid's size in the photo (tried from large grids to small ones).
    for mask in (light, lit_locally(_LATTICE_FRACTIONS[0])):
        for pitch in pitches:
            size = max(3, int(pitch * 0.35) | 1)
            # Round, so that a tray turned in the photo is closed and opened alike in every
            # direction (a square kernel clipped the corners of a grid turned by 45 degrees).
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
            closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
            opened = cv2.morphologyEx(closed, cv2.MORPH_OPEN, kernel)
            quad = _best_blob(opened, rows, cols)
            if quad is not None:
                return quad
    raise PhotoError(
        "no board found in the photo: photograph the tray from above, the whole grid of "
        "cubes in the picture, on a surface darker than the cubes"
    )


def _light(gray: np.ndarray, coloured: np.ndarray) -> np.ndarray:
    """The photo's light parts (uint8 mask, 255 = light): lighter than Otsu's threshold over
    the whole photo, and not strongly coloured."""
    blurred = cv2.GaussianBlur(gray, (5, 5), 0)
    _, light = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    light[coloured] = 0
    return np.asarray(light)


def _lit_locally(gray: np.ndarray, coloured: np.ndarray, reach: float) -> np.ndarray:
    """The photo's parts that are light for where they are (uint8 mask): each pixel against the
    lightest near it (within ``reach`` pixels, about two cubes: a cube's face is always near),
    so that cubes in a shadow (the phone's, the player's) are as light as those in the sun.
    The lightest is found on the photo brought down to a few pixels a cube (a large kernel at
    full size costs a hundred times more) and brought back up smoothly."""
    blurred = cv2.GaussianBlur(gray, (5, 5), 0).astype(np.float32)
    height, width = blurred.shape
    shrink = min(1.0, _LIGHTEST_KERNEL / max(reach, 1.0))
    small = cv2.resize(
        blurred,
        (max(1, round(width * shrink)), max(1, round(height * shrink))),
        interpolation=cv2.INTER_AREA,
    )
    size = max(3, int(reach * shrink) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    lightest = cv2.blur(cv2.dilate(small, kernel), (size, size))
    lightest = cv2.resize(lightest, (width, height), interpolation=cv2.INTER_LINEAR)
    ratio = np.clip(blurred / np.maximum(lightest, 1.0) * 255, 0, 255).astype(np.uint8)
    _, light = cv2.threshold(ratio, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    light[coloured] = 0
    return np.asarray(light)


def _other_shown(lattice: Lattice, rows: int, cols: int) -> tuple[int, int] | None:
    """The size of tray a lattice shows if it is surely not the rules' ``rows`` x ``cols``
    (every tray is square): a square lattice larger than the grid with most of its places
    seen, or a complete square one smaller than it with nothing beyond; None when it may be
    the rules' grid with cubes missed (a shadow, glare) or cut off, or strays beside it."""
    span_rows, span_cols = lattice.span
    if span_rows != span_cols or (span_rows, span_cols) == (rows, cols):
        return None
    seen = lattice.found + lattice.outside
    if span_rows > rows and span_cols > cols and seen >= _MOSTLY_SEEN * span_rows * span_cols:
        return lattice.span
    if lattice.outside == 0 and lattice.complete and span_rows < rows and span_cols < cols:
        return lattice.span
    return None


#: The share of a larger square lattice's places that must hold cubes seen for it to be named
#: as the tray in the photo.
_MOSTLY_SEEN = 0.8

#: Half the side of the square, around each cube's centre (a fraction of the pitch), where its
#: letter is: it must be in the photo.
_LETTER_HALF = 0.2


def _check_inside(corners: np.ndarray, rows: int, cols: int, width: int, height: int) -> None:
    """:class:`PhotoError` naming the edges where the photo cuts off cubes' letters (a photo
    taken too close, the grid found but running off it): those cubes cannot be read."""
    square = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], dtype=np.float32)
    transform = cv2.getPerspectiveTransform(square, corners.astype(np.float32))
    centres = np.array(
        [(c + 0.5, r + 0.5) for r in range(rows) for c in range(cols)], dtype=np.float64
    )
    offsets = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], dtype=np.float64) * _LETTER_HALF
    letters = (centres[:, None, :] + offsets[None, :, :]).reshape(-1, 1, 2)
    points = cv2.perspectiveTransform(letters, transform).reshape(rows * cols, 4, 2)
    slack = 0.02 * min(width, height)
    edges = {
        "left": points[:, :, 0].min(axis=1) < -slack,
        "right": points[:, :, 0].max(axis=1) > width + slack,
        "top": points[:, :, 1].min(axis=1) < -slack,
        "bottom": points[:, :, 1].max(axis=1) > height + slack,
    }
    cut = np.logical_or.reduce(list(edges.values()))
    if cut.any():
        where = " and ".join(name for name, outside in edges.items() if outside.any())
        raise PhotoError(
            f"the photo cuts off {int(cut.sum())} of the {rows * cols} cubes (at its {where} "
            "edge): photograph the whole tray, a little further away"
        )


def _other_size(shown: tuple[int, int], rows: int, cols: int) -> str:
    """The message for a tray of another size (``shown``, rows and columns) than the rules'."""
    return (
        f"the photo shows a {shown[0]}x{shown[1]} grid of cubes, but the rules are for a {rows}x{cols} board: choose the "
        "rules of the tray's size"
    )


def _best_blob(mask: np.ndarray, rows: int, cols: int) -> np.ndarray | None:
    """The quad of the largest blob that could be the grid: clear of the photo's edge, a
    good part of the photo, close to a quadrilateral of about the grid's proportions."""
    height, width = mask.shape
    # Every blob's outline, those inside another's hole too (the grid lies in a hole of a
    # white table's blob): the outer outlines of a two-level hierarchy.
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    best: tuple[float, np.ndarray] | None = None
    outer = [c for c, h in zip(contours, hierarchy[0], strict=True) if h[3] < 0] if contours else []
    for contour in outer:
        area = cv2.contourArea(contour)
        if area < 0.04 * height * width:
            continue
        x, y, w, h = cv2.boundingRect(contour)
        if x <= 1 or y <= 1 or x + w >= width - 1 or y + h >= height - 1:
            continue  # runs off the photo: the table, not the tray
        hull = cv2.convexHull(contour)
        quad = _four_corners(hull)
        if quad is None:
            continue
        quad_area = cv2.contourArea(quad.astype(np.float32))
        if quad_area <= 0 or area / quad_area < 0.8:
            continue  # not a filled quadrilateral
        top = np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])
        side = np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])
        ratio = (top / side) / (cols / rows) if side > 0 else 0
        if not 0.5 < ratio < 2:
            continue
        if best is None or area > best[0]:
            best = (area, quad)
    return None if best is None else best[1]


def _four_corners(hull: np.ndarray) -> np.ndarray | None:
    """A convex hull brought down to its four corners (TL, TR, BR, BL), or ``None``."""
    perimeter = cv2.arcLength(hull, True)
    for epsilon in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, epsilon * perimeter, True)
        if len(approx) == 4:
            return _ordered(approx.reshape(4, 2).astype(np.float64))
    if len(hull) < 4:
        return None
    box: np.ndarray = cv2.boxPoints(cv2.minAreaRect(hull))
    return _ordered(box.astype(np.float64))


def _ordered(points: np.ndarray) -> np.ndarray | None:
    """Four corners of a convex quadrilateral as top-left, top-right, bottom-right,
    bottom-left: clockwise on the screen around their centre, starting from the one nearest
    the photo's top-left (a tray turned by 45 degrees has no unambiguous top-left by sums of
    coordinates: two corners could be picked twice). ``None`` if two corners coincide."""
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    clockwise = points[np.argsort(angles)]  # y grows downwards: increasing angle is clockwise
    first = int(np.argmin(clockwise.sum(axis=1)))
    ordered = np.roll(clockwise, -first, axis=0)
    sides = np.linalg.norm(ordered - np.roll(ordered, -1, axis=0), axis=1)
    if sides.min() < 0.2 * sides.max():
        return None
    return ordered
