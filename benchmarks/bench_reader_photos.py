"""Board reader on real photos: how many cubes and boards of labelled photos of real trays are
read right, and how fast, one run.

The photos are not shipped (they are other people's); point this at a folder of them with their
labels, in either of two forms:

* **Pascal VOC** (what labelling tools such as labelImg and Roboflow export): an ``.xml`` per
  photo with one ``<object>`` per cube, its ``<name>`` the face (``a``..``z``, ``qu`` or ``q``,
  two-letter faces, ``wild`` for Super Big Boggle's blank) and its ``<bndbox>``. A cube read is
  matched to the labelled box nearest the centre of its cell, so a board read turned is scored
  as it lies. 16, 25 or 36 boxes make a Classic, Big or Super Big Boggle photo.
* **An index** (``--index FILE``): lines ``photo | 4x4 | TNTB/GDAR/ELTE/SISH | note``, the board
  row by row from the photo's top (``Qu`` and two-letter faces as written, ``#`` a blank,
  ``?`` a cube not to be scored), scored in whichever quarter turn matches best.

A photo the reader refuses counts all its cubes wrong. Prints per-tile and whole-board accuracy
with 95% Wilson intervals by size, the CPU time per photo on one core, what was refused and the
commonest misreadings.

    python benchmarks/bench_reader_photos.py PHOTOS_DIR
    python benchmarks/bench_reader_photos.py PHOTOS_DIR --index PHOTOS_DIR/INDEX.txt --no-dice
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):  # one core: CPU time is per core
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import collections  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import xml.etree.ElementTree as ElementTree  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from bench_reader import wilson  # noqa: E402  (beside this script)
from bigboggle import Rules  # noqa: E402
from bigboggle.errors import PhotoError  # noqa: E402
from bigboggle.photo.classifier import Classifier  # noqa: E402
from bigboggle.photo.reader import Reading, read_board  # noqa: E402

#: The preset of each board size.
PRESETS = {4: "classic", 5: "big", 6: "superbig"}


@dataclass(frozen=True)
class Labelled:
    """A photo and its truth: ``faces`` row by row ("" a blank, None not scored), or ``boxes``
    (face, centre x, centre y in the photo's pixels) in any order."""

    path: Path
    side: int
    faces: list[str | None] | None = None
    boxes: list[tuple[str, float, float]] | None = None


def voc_face(name: str) -> str:
    """A VOC label as a face: ``q``/``qu`` is Qu, ``wild`` a blank, two letters capitalised."""
    name = name.strip().strip("\\").lower()
    if name in ("q", "qu"):
        return "Qu"
    if name == "wild":
        return ""
    return name[:1].upper() + name[1:]


def from_voc(folder: Path) -> list[Labelled]:
    """The photos under ``folder`` that a VOC file labels with 16, 25 or 36 cubes."""
    photos = {
        path.name: path
        for path in folder.rglob("*")
        if path.suffix.lower() in {".jpg", ".jpeg", ".png", ".webp"}
    }
    found: dict[str, Labelled] = {}
    for xml in sorted(folder.rglob("*.xml")):
        root = ElementTree.parse(xml).getroot()
        name = root.findtext("filename") or ""
        boxes = []
        for item in root.iter("object"):
            box = item.find("bndbox")
            if box is None:
                continue
            left, top, right, bottom = (
                float(box.findtext(k) or 0) for k in ("xmin", "ymin", "xmax", "ymax")
            )
            boxes.append(
                (voc_face(item.findtext("name") or ""), (left + right) / 2, (top + bottom) / 2)
            )
        side = round(math.sqrt(len(boxes)))
        if name in photos and side in PRESETS and side * side == len(boxes):
            found[name] = Labelled(photos[name], side, boxes=boxes)
    return list(found.values())


def from_index(index: Path, folder: Path) -> list[Labelled]:
    """The photos an index file lists (see the module's docstring)."""
    found = []
    for line in index.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, size, board, *_ = (part.strip() for part in line.split("|"))
        side = int(size.split("x")[0])
        faces: list[str | None] = [
            None if token == "?" else "" if token == "#" else token
            for token in re.findall(r"[A-Z][a-z]?|#|\?", board)
        ]
        if len(faces) != side * side:
            raise SystemExit(f"{index}: {name!r} lists {len(faces)} cubes, not {side}x{side}")
        found.append(Labelled(folder / name, side, faces=faces))
    return found


def score_faces(reading: Reading, truth: list[str | None], side: int) -> list[tuple[str, str]]:
    """(truth, read) for each scored cube, in the quarter turn of the board that matches best."""
    grid = [
        [cell.face for cell in reading.cells[row * side : (row + 1) * side]] for row in range(side)
    ]
    best: list[tuple[str, str]] = []
    for _ in range(4):
        flat = [face for row in grid for face in row]
        pairs = [(want, got) for want, got in zip(truth, flat, strict=True) if want is not None]
        if not best or sum(a == b for a, b in pairs) > sum(a == b for a, b in best):
            best = pairs
        grid = [list(row) for row in zip(*grid[::-1], strict=True)]
    return best


def score_boxes(
    reading: Reading, boxes: list[tuple[str, float, float]], side: int, shape: tuple[int, int]
) -> list[tuple[str, str]]:
    """(truth, read) for each labelled cube: the cube read in the cell whose centre is nearest
    its box ("(none)" when no cell centre is within 0.6 of a pitch)."""
    height, width = shape
    corners = (np.array(reading.corners) * (width, height)).astype(np.float32)
    square = np.array([[0, 0], [side, 0], [side, side], [0, side]], dtype=np.float32)
    transform = cv2.getPerspectiveTransform(square, corners)
    middles = np.array([[(c + 0.5, r + 0.5) for r in range(side) for c in range(side)]], np.float32)
    centres = cv2.perspectiveTransform(middles, transform)[0]
    pitch = float(np.linalg.norm(corners[1] - corners[0])) / side
    pairs = []
    for face, x, y in boxes:
        distances = np.linalg.norm(centres - (x, y), axis=1)
        cell = int(distances.argmin())
        pairs.append(
            (face, reading.cells[cell].face if distances[cell] < 0.6 * pitch else "(none)")
        )
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the photos (and their VOC .xml labels)")
    parser.add_argument("--index", type=Path, help="an index of boards instead of VOC labels")
    parser.add_argument("--no-dice", action="store_true", help="read without the dice prior")
    args = parser.parse_args()
    photos = from_index(args.index, args.folder) if args.index else from_voc(args.folder)
    if not photos:
        raise SystemExit(f"no labelled photos of 4x4, 5x5 or 6x6 boards in {args.folder}")
    classifier = Classifier.load()
    tally: dict[int, list[int]] = collections.defaultdict(
        lambda: [0, 0, 0, 0]
    )  # tiles, right, boards, right
    refused: collections.Counter[str] = collections.Counter()
    confusions: collections.Counter[tuple[str, str]] = collections.Counter()
    seconds = []
    for photo in photos:
        data = photo.path.read_bytes()
        rules = Rules.preset(PRESETS[photo.side])
        started = time.process_time()
        try:
            reading = read_board(data, rules, use_dice=not args.no_dice, classifier=classifier)
        except PhotoError as error:
            seconds.append(time.process_time() - started)
            count = len(photo.boxes or []) or sum(face is not None for face in photo.faces or [])
            tally[photo.side][0] += count
            tally[photo.side][2] += 1
            refused[str(error).split(":")[0]] += 1
            continue
        seconds.append(time.process_time() - started)
        if photo.boxes is not None:
            decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
            assert decoded is not None  # the reader decoded it
            shape = decoded.shape[:2]
            pairs = score_boxes(reading, photo.boxes, photo.side, shape)
        else:
            pairs = score_faces(reading, photo.faces or [], photo.side)
        right = sum(want == got for want, got in pairs)
        confusions.update((want, got) for want, got in pairs if want != got)
        counts = tally[photo.side]
        counts[0] += len(pairs)
        counts[1] += right
        counts[2] += 1
        counts[3] += right == len(pairs)
    print(f"{len(photos)} photos, dice prior {'off' if args.no_dice else 'on'}")
    totals = [sum(counts[i] for counts in tally.values()) for i in range(4)]
    for label, (tiles, right, boards, whole) in [
        *((f"{s}x{s}", tally[s]) for s in sorted(tally)),
        ("all", totals),
    ]:
        tile_low, tile_high = wilson(right, tiles)
        board_low, board_high = wilson(whole, boards)
        print(
            f"  {label:>4}: tiles {right}/{tiles} = {right / max(tiles, 1):.2%} (95% CI {tile_low:.2%}-{tile_high:.2%}); "
            f"boards {whole}/{boards} = {whole / max(boards, 1):.1%} (95% CI {board_low:.1%}-{board_high:.1%})"
        )
    print(
        f"  CPU per photo: median {statistics.median(seconds) * 1000:.0f} ms, "
        f"90th percentile {np.percentile(seconds, 90) * 1000:.0f} ms"
    )
    print(f"  refused: {sum(refused.values())}", dict(refused.most_common(4)))
    print(
        "  commonest misreadings (truth > read):",
        ", ".join(f"{a or '_'}>{b or '_'} {n}" for (a, b), n in confusions.most_common(12)),
    )


if __name__ == "__main__":
    main()
