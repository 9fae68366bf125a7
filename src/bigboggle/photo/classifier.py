"""The letter model: a glyph (:func:`~bigboggle.photo.glyphs.normalize_cell`) to the face it
shows and the rotation it lies in.

The model is a small neural network (one hidden layer of rectified units, then a softmax) over
every face in every rotation: :data:`~bigboggle.photo.faces.FACES` x (0, 90, 180, 270). Reading
the rotation with the letter is what tells M from W and N from Z (each is the other turned,
but the bar under it is below the letter only when upright). A glyph is read in all four
quarter turns, each reading turned back, and the four averaged: the model, trained on every
rotation alike, is then exactly as sure of a face in any rotation. The weights ship as
``bigboggle/data/board-reader.npz`` (``tools/train_board_reader.py`` makes it) and run in plain
numpy: no machine-learning library at run time.
"""

from __future__ import annotations

import functools
import os

import numpy as np

import bigboggle

from .faces import FACES, ROTATIONS
from .glyphs import GLYPH_SIZE

#: The version of the .npz layout this module reads (``format`` in the file).
FORMAT = 1
#: Where the shipped model is.
DEFAULT_PATH = os.path.join(os.path.dirname(bigboggle.__file__), "data", "board-reader.npz")


class Classifier:
    """A trained letter model: :meth:`load` it, then :meth:`predict` glyphs."""

    def __init__(
        self,
        hidden_weights: np.ndarray,
        hidden_bias: np.ndarray,
        output_weights: np.ndarray,
        output_bias: np.ndarray,
    ) -> None:
        """A model from its layers: ``hidden_weights`` (GLYPH_SIZE² x H), ``hidden_bias`` (H),
        ``output_weights`` (H x len(FACES)·4: face-major, rotation-minor) and ``output_bias``."""
        classes = len(FACES) * len(ROTATIONS)
        if (
            hidden_weights.shape[0] != GLYPH_SIZE * GLYPH_SIZE
            or hidden_bias.shape != (hidden_weights.shape[1],)
            or output_weights.shape != (hidden_weights.shape[1], classes)
            or output_bias.shape != (classes,)
        ):
            raise ValueError("the letter model's layers do not fit together")
        self.hidden_weights = hidden_weights.astype(np.float32)
        self.hidden_bias = hidden_bias.astype(np.float32)
        self.output_weights = output_weights.astype(np.float32)
        self.output_bias = output_bias.astype(np.float32)

    @classmethod
    def load(cls, path: str | None = None) -> Classifier:
        """The model in the .npz at ``path`` (None: the shipped one), read once per process.
        ``ValueError`` if the file is not a letter model this version can read (another
        format, other faces or glyph size)."""
        return _load(os.path.abspath(path) if path is not None else DEFAULT_PATH)

    def logits(self, glyphs: np.ndarray) -> np.ndarray:
        """The model's raw scores for ``glyphs`` (N x GLYPH_SIZE x GLYPH_SIZE) as they lie, one
        per face and rotation (N x len(FACES) x 4)."""
        flat = glyphs.reshape(len(glyphs), GLYPH_SIZE * GLYPH_SIZE).astype(np.float32)
        hidden = np.maximum(flat @ self.hidden_weights + self.hidden_bias, 0.0)
        scores: np.ndarray = hidden @ self.output_weights + self.output_bias
        return scores.reshape(len(glyphs), len(FACES), len(ROTATIONS))

    def predict(self, glyphs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each glyph of ``glyphs`` (N x GLYPH_SIZE x GLYPH_SIZE float32, from
        :func:`~bigboggle.photo.glyphs.normalize_cell`): how likely each face of
        :data:`~bigboggle.photo.faces.FACES` is, whatever its rotation (N x len(FACES), rows
        summing to 1), and the rotation of the likeliest reading (N, degrees counter-clockwise:
        0, 90, 180 or 270). ``ValueError`` for another shape."""
        glyphs = np.asarray(glyphs, dtype=np.float32)
        if glyphs.ndim != 3 or glyphs.shape[1:] != (GLYPH_SIZE, GLYPH_SIZE):
            raise ValueError(f"glyphs must be N x {GLYPH_SIZE} x {GLYPH_SIZE}, not {glyphs.shape}")
        count = len(glyphs)
        if count == 0:
            return np.zeros((0, len(FACES))), np.zeros(0, dtype=int)
        # The glyph turned by k quarters shows the face turned k quarters further: its
        # reading of (face, rotation + k) is a reading of (face, rotation) here.
        turned = np.concatenate([np.rot90(glyphs, k, axes=(1, 2)) for k in range(4)])
        scores = self.logits(turned).reshape(4, count, len(FACES), len(ROTATIONS))
        scores -= scores.max(axis=(2, 3), keepdims=True)
        probabilities = np.exp(scores)
        probabilities /= probabilities.sum(axis=(2, 3), keepdims=True)
        joint = sum(np.roll(probabilities[k], -k, axis=2) for k in range(4)) / 4
        faces = joint.sum(axis=2)
        faces /= faces.sum(axis=1, keepdims=True)
        best = faces.argmax(axis=1)
        rotations = np.asarray(ROTATIONS)[joint[np.arange(count), best].argmax(axis=1)]
        return faces.astype(np.float64), rotations.astype(int)


@functools.cache
def _load(path: str) -> Classifier:
    """The model at ``path`` (absolute), read and checked once."""
    with np.load(path, allow_pickle=False) as data:
        if int(data["format"]) != FORMAT:
            raise ValueError(f"{path}: letter model format {int(data['format'])}, not {FORMAT}")
        if tuple(str(face) for face in data["faces"]) != FACES:
            raise ValueError(f"{path}: the letter model's faces are not FACES")
        if int(data["glyph_size"]) != GLYPH_SIZE or tuple(data["rotations"]) != ROTATIONS:
            raise ValueError(f"{path}: the letter model's glyphs are not {GLYPH_SIZE} pixels")
        return Classifier(
            data["hidden_weights"], data["hidden_bias"], data["output_weights"], data["output_bias"]
        )
