#!/usr/bin/env python3
"""Train the board reader's letter model and write ``src/bigboggle/data/board-reader.npz``.

    python tools/train_board_reader.py                       # the shipped model (a few minutes)
    python tools/train_board_reader.py --samples-per-class 100 --out /tmp/model.npz  # quick

Every face of ``bigboggle.photo.faces.FACES``, in each of its four rotations, is drawn
``--samples-per-class`` times in the training fonts (``TRAINING_FONTS``, taken in turn) as a
phone photo's cell shows it (``synthetic_cell``: neighbours at the margins, the crop off centre
and in perspective, uneven light, blur, noise, JPEG) and cut out by ``normalize_cell``, the
very code the reader runs, so the model learns from what it will be given. Each glyph is used
in all four quarter turns (``numpy.rot90``: the face in the next rotation), four times the
drawings for free. The model is one hidden layer of rectified units and a softmax over every
face in every rotation, trained with Adam on minibatches in plain numpy; its weights are
stored as float16. The held-out fonts (``HELD_OUT_FONTS``) are never drawn here: ``--evaluate``
measures the new model on them, as ``tests/test_photo_glyphs.py`` does.

Seeds: the drawings of face f in rotation r come from ``numpy.random.default_rng((seed, f, r))``,
so the data are the same for any ``--jobs``.
"""

from __future__ import annotations

import os

# Modest by default: one thread for numpy's BLAS (the machine may be busy); before numpy loads.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from bigboggle.photo.classifier import FORMAT, Classifier  # noqa: E402
from bigboggle.photo.faces import (  # noqa: E402
    FACES,
    HELD_OUT_FONTS,
    ROTATIONS,
    TRAINING_FONTS,
    synthetic_cell,
)
from bigboggle.photo.glyphs import GLYPH_SIZE, normalize_cell  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "src" / "bigboggle" / "data" / "board-reader.npz"
#: Seeds of the evaluation's drawings start here, far from any training seed.
EVALUATION_SEED = 1_000_000


def draw(task: tuple[int, int, int, int, tuple[str, ...]]) -> tuple[np.ndarray, np.ndarray, int]:
    """Glyphs of one face in one rotation: ``task`` is (seed, face index, rotation index,
    count, fonts). Returns the glyphs (M x GLYPH_SIZE x GLYPH_SIZE float32), their labels
    (face index * 4 + rotation index) and how many drawings gave no glyph."""
    seed, face, rotation, count, fonts = task
    rng = np.random.default_rng((seed, face, rotation))
    glyphs, lost = [], 0
    for index in range(count):
        cell = synthetic_cell(FACES[face], fonts[index % len(fonts)], ROTATIONS[rotation], rng)
        glyph = normalize_cell(cell)
        if glyph is None:
            lost += 1
        else:
            glyphs.append(glyph)
    stack = np.stack(glyphs) if glyphs else np.zeros((0, GLYPH_SIZE, GLYPH_SIZE), np.float32)
    return stack, np.full(len(glyphs), face * 4 + rotation), lost


def dataset(
    seed: int, per_class: int, fonts: tuple[str, ...], jobs: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Glyphs and labels of every face in every rotation, ``per_class`` drawings each, and how
    many drawings gave no glyph."""
    tasks = [
        (seed, face, rotation, per_class, fonts)
        for face in range(len(FACES))
        for rotation in range(len(ROTATIONS))
    ]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(draw, tasks, chunksize=4))
    else:
        parts = [draw(task) for task in tasks]
    glyphs = np.concatenate([part[0] for part in parts])
    labels = np.concatenate([part[1] for part in parts])
    return glyphs, labels, sum(part[2] for part in parts)


def quarter_turns(glyphs: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each glyph in its four quarter turns: turned by k quarters (counter-clockwise, as
    ``numpy.rot90``), a face in rotation r is that face in rotation r + k."""
    faces, rotations = labels // 4, labels % 4
    turned = [np.rot90(glyphs, k, axes=(1, 2)) for k in range(4)]
    turned_labels = [faces * 4 + (rotations + k) % 4 for k in range(4)]
    return np.concatenate(turned), np.concatenate(turned_labels)


def train(
    inputs: np.ndarray,
    labels: np.ndarray,
    *,
    hidden: int,
    epochs: int,
    seed: int,
    batch: int = 256,
    rate: float = 2e-3,
    decay: float = 1e-4,
    smoothing: float = 0.02,
) -> dict[str, np.ndarray]:
    """A one-hidden-layer network fitted to ``inputs`` (N x D float32) and ``labels`` (class
    indices) by Adam on shuffled minibatches, the rate falling along a cosine to zero, with
    weight decay and a little label smoothing (so its probabilities are not overconfident)."""
    rng = np.random.default_rng(seed)
    count, features = inputs.shape
    classes = len(FACES) * len(ROTATIONS)
    params = {
        "hidden_weights": (rng.normal(0, math.sqrt(2 / features), (features, hidden))),
        "hidden_bias": np.zeros(hidden),
        "output_weights": rng.normal(0, math.sqrt(1 / hidden), (hidden, classes)),
        "output_bias": np.zeros(classes),
    }
    params = {name: value.astype(np.float32) for name, value in params.items()}
    first = {name: np.zeros_like(value) for name, value in params.items()}
    second = {name: np.zeros_like(value) for name, value in params.items()}
    steps_per_epoch = math.ceil(count / batch)
    total = epochs * steps_per_epoch
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(count)
        loss_sum, right = 0.0, 0
        started = time.perf_counter()
        for start in range(0, count, batch):
            chosen = order[start : start + batch]
            x, y = inputs[chosen], labels[chosen]
            pre = x @ params["hidden_weights"] + params["hidden_bias"]
            act = np.maximum(pre, 0)
            scores = act @ params["output_weights"] + params["output_bias"]
            scores -= scores.max(axis=1, keepdims=True)
            prob = np.exp(scores)
            prob /= prob.sum(axis=1, keepdims=True)
            target = np.full_like(prob, smoothing / classes)
            target[np.arange(len(y)), y] += 1 - smoothing
            loss_sum += float(-(target * np.log(prob + 1e-9)).sum())
            right += int((prob.argmax(axis=1) // 4 == y // 4).sum())
            grad_scores = (prob - target) / len(y)
            grads = {
                "output_weights": act.T @ grad_scores,
                "output_bias": grad_scores.sum(axis=0),
            }
            grad_act = grad_scores @ params["output_weights"].T
            grad_act[pre <= 0] = 0
            grads["hidden_weights"] = x.T @ grad_act
            grads["hidden_bias"] = grad_act.sum(axis=0)
            step += 1
            now = rate * 0.5 * (1 + math.cos(math.pi * step / total))
            for name, value in params.items():
                grad = grads[name]
                if name.endswith("weights"):
                    grad = grad + decay * value
                first[name] = 0.9 * first[name] + 0.1 * grad
                second[name] = 0.999 * second[name] + 0.001 * grad * grad
                corrected = first[name] / (1 - 0.9**step)
                scale = np.sqrt(second[name] / (1 - 0.999**step)) + 1e-8
                value -= (now * corrected / scale).astype(np.float32)
        print(
            f"  epoch {epoch + 1}/{epochs}: loss {loss_sum / count:.4f}, "
            f"faces read right {right / count:.4f} ({time.perf_counter() - started:.1f} s)",
            flush=True,
        )
    return params


def evaluate(
    model: Classifier, seed: int, per_class: int, fonts: tuple[str, ...], jobs: int
) -> tuple[int, int]:
    """How many of the held-out tiles (``per_class`` per face and rotation in ``fonts``) the
    model reads right (face only), and how many there are (a tile with no glyph found is
    wrong)."""
    glyphs, labels, lost = dataset(seed, per_class, fonts, jobs)
    probabilities, _ = model.predict(glyphs)
    right = int((probabilities.argmax(axis=1) == labels // 4).sum())
    return right, len(labels) + lost


def wilson(right: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``right / total``."""
    if total == 0:
        return 0.0, 1.0
    share = right / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total))
    return centre - half / (1 + z * z / total), centre + half / (1 + z * z / total)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the .npz to write")
    parser.add_argument(
        "--samples-per-class",
        type=int,
        default=400,
        help="drawings of each face in each rotation (each also used in 4 quarter turns)",
    )
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--hidden", type=int, default=192, help="hidden units")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=1, help="processes drawing the data")
    parser.add_argument(
        "--evaluate",
        type=int,
        default=0,
        metavar="N",
        help="then read N tiles per face and rotation in the held-out fonts, and report",
    )
    args = parser.parse_args(argv)
    began = time.perf_counter()
    fonts = tuple(path for _, path in TRAINING_FONTS)
    missing = [f"{path} ({package})" for package, path in TRAINING_FONTS if not Path(path).exists()]
    if missing:
        print("missing training fonts: " + ", ".join(missing), file=sys.stderr)
        return 1

    print(f"drawing {args.samples_per_class} x {len(FACES)} faces x 4 rotations...", flush=True)
    glyphs, labels, lost = dataset(args.seed, args.samples_per_class, fonts, args.jobs)
    print(
        f"  {len(glyphs)} glyphs ({lost} drawings gave none) in "
        f"{time.perf_counter() - began:.0f} s",
        flush=True,
    )
    glyphs, labels = quarter_turns(glyphs, labels)
    inputs = glyphs.reshape(len(glyphs), -1).astype(np.float32)
    print(f"training on {len(inputs)} glyphs, {args.hidden} hidden units...", flush=True)
    params = train(inputs, labels, hidden=args.hidden, epochs=args.epochs, seed=args.seed)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "wb") as file:
        np.savez_compressed(
            file,
            format=np.int64(FORMAT),
            faces=np.array(FACES),
            rotations=np.array(ROTATIONS),
            glyph_size=np.int64(GLYPH_SIZE),
            **{name: value.astype(np.float16) for name, value in params.items()},
        )
    print(
        f"wrote {args.out} ({args.out.stat().st_size:,} bytes) after "
        f"{time.perf_counter() - began:.0f} s",
        flush=True,
    )

    if args.evaluate:
        held_out = [path for _, path in HELD_OUT_FONTS if Path(path).exists()]
        model = Classifier.load(str(args.out))
        right, total = evaluate(model, EVALUATION_SEED, args.evaluate, tuple(held_out), args.jobs)
        low, high = wilson(right, total)
        print(
            f"held-out fonts: {right}/{total} tiles read right, {right / total:.4%} "
            f"(95% interval {low:.4%} to {high:.4%})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
