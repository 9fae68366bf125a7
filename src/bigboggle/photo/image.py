"""A photo's bytes to pixels, within bounds, whatever a stranger sends.

The size of the file and the pixels its header declares are checked before any pixel is
decoded (Pillow's decompression-bomb guard, at :data:`~bigboggle.limits.MAX_PHOTO_PIXELS`); a
JPEG is decoded straight at a reduced scale (``draft``), so a 50-megapixel phone photo costs
about what a 3-megapixel one does; the phone's EXIF orientation is applied; and everything that
is not an image, or is damaged or truncated, is a :class:`~bigboggle.errors.PhotoError` naming
what is wrong.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
from PIL import Image, UnidentifiedImageError

from ..errors import PhotoError
from ..limits import (
    MAX_JPEG_SCANS,
    MAX_PHOTO_ASPECT,
    MAX_PHOTO_BYTES,
    MAX_PHOTO_PIXELS,
    MAX_PHOTO_PIXELS_DECODED_WHOLE,
    PHOTO_WORK_SIDE,
)

#: The formats a photo may be in: what phones and cameras save, and PNG for screenshots (a
#: camera's MPO, JPEG with a second picture, is read by the JPEG reader as its first).
PHOTO_FORMATS = ("JPEG", "PNG", "WEBP")


def decode_photo(data: bytes, *, side: int = PHOTO_WORK_SIDE) -> np.ndarray:
    """The photo in ``data`` as an RGB uint8 array whose longer side is at most ``side``
    pixels, upright as the phone held it. :class:`PhotoError` if it is not a photo in one of
    :data:`PHOTO_FORMATS`, is larger than the limits, or is damaged."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise PhotoError(f"a photo is bytes, not {type(data).__name__}")
    if len(data) == 0:
        raise PhotoError("the photo is empty (0 bytes)")
    if len(data) > MAX_PHOTO_BYTES:
        raise PhotoError(f"the photo is {len(data):,} bytes; the limit is {MAX_PHOTO_BYTES:,}")
    with warnings.catch_warnings():
        # Pillow warns, then raises, past its bomb limit: both become our error below. Its
        # other warnings (a damaged EXIF block) are not the caller's concern.
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data), formats=PHOTO_FORMATS)
            width, height = image.size
            if width < 1 or height < 1 or width * height > MAX_PHOTO_PIXELS:
                raise PhotoError(
                    f"the photo is {width}x{height} pixels; the limit is "
                    f"{MAX_PHOTO_PIXELS:,} pixels ({MAX_PHOTO_PIXELS // 1_000_000} megapixels)"
                )
            if max(width, height) > MAX_PHOTO_ASPECT * min(width, height):
                raise PhotoError(
                    f"the photo is {width}x{height} pixels: a strip, not a photo of a tray "
                    f"(the longer side may be at most {MAX_PHOTO_ASPECT} times the shorter)"
                )
            if image.format == "JPEG" or image.format == "MPO":
                scans = bytes(data).count(b"\xff\xda")  # start-of-scan markers
                if scans > MAX_JPEG_SCANS:
                    raise PhotoError(
                        f"the JPEG has {scans} scans; a photo has at most a few dozen "
                        f"(the limit is {MAX_JPEG_SCANS})"
                    )
                # Decoded at 1/2, 1/4 or 1/8 scale: as small as still gives ``side`` pixels
                # along the longer side.
                longest = max(width, height)
                image.draft(
                    "RGB", (max(1, side * width // longest), max(1, side * height // longest))
                )
            elif width * height > MAX_PHOTO_PIXELS_DECODED_WHOLE:
                raise PhotoError(
                    f"the {image.format} image is {width}x{height} pixels; the limit is "
                    f"{MAX_PHOTO_PIXELS_DECODED_WHOLE:,} pixels (send a JPEG for more)"
                )
            image.load()
            rgb = image.convert("RGB")
            if max(rgb.size) > side:
                rgb.thumbnail((side, side), Image.Resampling.BILINEAR)
            rgb = _upright(image, rgb)
        except PhotoError:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise PhotoError(
                f"the photo declares more than {MAX_PHOTO_PIXELS:,} pixels; the limit is "
                f"{MAX_PHOTO_PIXELS // 1_000_000} megapixels"
            ) from None
        except UnidentifiedImageError:
            raise PhotoError("the file is not a photo: send a JPEG, PNG or WebP image") from None
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise PhotoError(f"the photo is damaged or cut off: {exc}") from None
    if min(rgb.size) < 32:
        raise PhotoError(f"the photo is {rgb.size[0]}x{rgb.size[1]} pixels: too small to read")
    return np.asarray(rgb, dtype=np.uint8)


#: EXIF orientations (tag 274) and the turn or flip that makes each upright.
_ORIENTATIONS = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def _upright(image: Image.Image, rgb: Image.Image) -> Image.Image:
    """``rgb`` (the decoded, shrunk ``image``) turned as the photo's EXIF orientation says; as
    it is when the EXIF block is missing or damaged (reading it must not fail the photo)."""
    try:
        orientation = image.getexif().get(274)
    except Exception:  # a damaged EXIF block: Pillow's errors here vary (struct, type, value)
        return rgb
    turn = _ORIENTATIONS.get(orientation) if isinstance(orientation, int) else None
    return rgb.transpose(turn) if turn is not None else rgb
