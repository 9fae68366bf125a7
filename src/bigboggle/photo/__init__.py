"""Reading a board from a photo of the tray (``pip install 'bigboggle[camera]'``).

:func:`~bigboggle.photo.reader.read_board` finds the cube grid in a photo
(:mod:`~bigboggle.photo.grid`), reads each cube's face in any of its four rotations
(:mod:`~bigboggle.photo.glyphs`, :mod:`~bigboggle.photo.classifier`) and uses the preset's real
dice, each of which lies in the tray once, to fix readings no die could show
(:mod:`~bigboggle.photo.prior`). :mod:`~bigboggle.photo.faces` and :mod:`~bigboggle.photo.tray`
render cube faces and whole trays, for the model's training and the tests.
"""

import importlib.util

#: The modules the reader needs beyond the core's (the ``camera`` extra).
NEEDS = ("cv2", "numpy", "PIL", "scipy")


def available() -> bool:
    """Whether this installation can read photos (the ``camera`` extra is installed), found
    without importing any of it."""
    return all(importlib.util.find_spec(name) is not None for name in NEEDS)
