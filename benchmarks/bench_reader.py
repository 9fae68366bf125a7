"""Board reader benchmark: how well and how fast photos of the tray are read, one run.

Renders synthetic photos (:func:`bigboggle.photo.tray.render_tray`: a shake of each preset's
dice, lettered in the fonts held out of the model's training, on a random table and tray, in
perspective, under uneven light, blurred, noisy, JPEG) and reads each with
:func:`bigboggle.photo.reader.read_board`. Prints, per condition and overall: per-tile and
whole-board accuracy with 95% Wilson intervals (tiles are counted by board: a board's tiles are
never split between sets), the CPU time per photo on one core (median and 90th percentile:
decoding, grid, glyphs, model and dice), the misread cells, and the model's size.

    python benchmarks/bench_reader.py                       # 30 photos per preset and condition
    python benchmarks/bench_reader.py --boards 100 --no-dice
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):  # one core: CPU time is per core
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from bigboggle import Rules, shake  # noqa: E402
from bigboggle.photo.classifier import DEFAULT_PATH, Classifier  # noqa: E402
from bigboggle.photo.faces import HELD_OUT_FONTS  # noqa: E402
from bigboggle.photo.reader import read_board  # noqa: E402
from bigboggle.photo.tray import render_tray  # noqa: E402

#: The conditions photos are rendered in: render_tray's options.
CONDITIONS: dict[str, dict[str, object]] = {
    "ordinary": {},
    "hard": {"blur": 2.0, "tilt": 0.2, "noise": 8.0, "quality": 60, "size": (800, 600)},
    "large photo": {"size": (4000, 3000), "pitch": 260},
    "real tray": {"gap": 0.22, "sides": 0.18, "fill": 0.88},
    "real tray in shadow": {"gap": 0.22, "sides": 0.18, "fill": 0.88, "shadow": 0.6},
}


def wilson(right: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of right / total (all of [0, 1] when there is none)."""
    if total == 0:
        return 0.0, 1.0
    p = right / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=30, help="photos per preset and condition")
    parser.add_argument("--no-dice", action="store_true", help="read without the dice prior")
    args = parser.parse_args()
    classifier = Classifier.load()
    print(f"model {DEFAULT_PATH}: {os.path.getsize(DEFAULT_PATH):,} bytes")
    fonts = [path for _, path in HELD_OUT_FONTS if os.path.isfile(path)]
    for condition, options in CONDITIONS.items():
        tiles = right_tiles = boards = right_boards = 0
        seconds: list[float] = []
        misread: list[str] = []
        for preset in ("classic", "big", "superbig"):
            rules = Rules.preset(preset)
            for seed in range(1000, 1000 + args.boards):
                shaken = shake(rules.dice, seed)
                font = fonts[seed % len(fonts)]
                photo = render_tray(shaken, font, np.random.default_rng(seed), **options)  # type: ignore[arg-type]
                start = time.process_time()
                reading = read_board(
                    photo.jpeg, rules, use_dice=not args.no_dice, classifier=classifier
                )
                seconds.append(time.process_time() - start)
                truth = shaken.board.cell_faces
                read = [cell.face for cell in reading.cells]
                right = sum(a == b for a, b in zip(truth, read, strict=True))
                tiles += len(truth)
                right_tiles += right
                boards += 1
                right_boards += right == len(truth)
                misread += [
                    f"{preset} {seed} cell {i}: {truth[i] or 'blank'} read "
                    f"{read[i] or 'blank'} ({reading.cells[i].confidence:.2f})"
                    for i in range(len(truth))
                    if truth[i] != read[i]
                ]
        low, high = wilson(right_tiles, tiles)
        board_low, board_high = wilson(right_boards, boards)
        ms = sorted(1000 * s for s in seconds)
        print(
            f"{condition:12} tiles {right_tiles}/{tiles} = {right_tiles / tiles:.3%} "
            f"(95% CI {low:.2%}-{high:.2%}); boards {right_boards}/{boards} = "
            f"{right_boards / boards:.1%} ({board_low:.1%}-{board_high:.1%}); CPU per photo "
            f"median {statistics.median(ms):.0f} ms, p90 {ms[int(0.9 * (len(ms) - 1))]:.0f} ms"
        )
        for line in misread[:10]:
            print("    " + line)


if __name__ == "__main__":
    main()
