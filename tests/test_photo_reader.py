"""Reading a board from a photo of the tray: hostile files refused quickly and by name, the grid
found in synthetic photos of every preset (perspective, table and tray colours, light, blur,
noise, JPEG), the dice prior fixing planted misreadings, the whole pipeline's accuracy on
photos lettered in fonts the model never saw (per tile and per board, with 95% intervals,
split by board), and the command line and ``POST /api/read-board`` end to end."""

from __future__ import annotations

import io
import json
import math
import struct
import zlib
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("cv2")
pytest.importorskip("scipy")

from click.testing import CliRunner  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from PIL import Image  # noqa: E402

from bigboggle import Board, Rules  # noqa: E402
from bigboggle.cli import cli  # noqa: E402
from bigboggle.dice import CHALLENGE_CUBE, dice_set, shake  # noqa: E402
from bigboggle.errors import PhotoError  # noqa: E402
from bigboggle.limits import MAX_PHOTO_BYTES  # noqa: E402
from bigboggle.photo.faces import HELD_OUT_FONTS  # noqa: E402
from bigboggle.photo.grid import find_grid  # noqa: E402
from bigboggle.photo.image import decode_photo  # noqa: E402
from bigboggle.photo.prior import assign_dice  # noqa: E402
from bigboggle.photo.reader import CLASSES, read_board  # noqa: E402
from bigboggle.photo.tray import TrayPhoto, render_tray  # noqa: E402
from bigboggle.web.app import create_app  # noqa: E402
from conftest import FakeClock  # noqa: E402

pytestmark = pytest.mark.once

PRESETS = ("classic", "big", "superbig")


def held_out_font(index: int) -> str:
    package, path = HELD_OUT_FONTS[index % len(HELD_OUT_FONTS)]
    if not Path(path).is_file():
        pytest.skip(f"held-out font {path} missing (apt-get install {package})")
    return path


def tray(preset: str, seed: int, **options: float) -> tuple[str, TrayPhoto]:
    """A synthetic photo of a shake of ``preset``'s dice from ``seed`` (held-out font, random
    table, tray, angle, light), and the board it shows."""
    rules = Rules.preset(preset)
    shaken = shake(rules.dice, seed)
    rng = np.random.default_rng(seed)
    photo = render_tray(shaken, held_out_font(seed), rng, **options)  # type: ignore[arg-type]
    return str(shaken.board), photo


def wilson(successes: int, total: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    z = 1.96
    p = successes / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


# -- hostile files ---------------------------------------------------------------------------------


def png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width`` x ``height`` and whose data is a few bytes: a
    decompression bomb's shape (the pixels are never there)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 200, 200)).save(buffer, format="JPEG")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"not an image at all", "not a photo"),
        (b"GIF89a" + b"\0" * 100, "not a photo"),
        (png_declaring(100_000, 100_000), "limit"),
        (png_declaring(6000, 6000), "limit"),  # 36 MP of PNG: decoded whole, refused
        (jpeg(640, 480)[:300], "damaged or cut off"),
        (jpeg(20, 20), "too small"),
        (b"\xff\xd8" + b"\0" * (MAX_PHOTO_BYTES + 1), "limit is"),
        (jpeg(4000, 500), "a strip"),  # decoded whole at JPEG's reduced scales: refused first
        (jpeg(640, 480) + b"\xff\xda" * 500, "scans"),  # a progressive file's scans, repeated
    ],
    ids=[
        "empty",
        "text",
        "gif",
        "bomb",
        "big-png",
        "truncated",
        "tiny",
        "too-many-bytes",
        "strip",
        "scans",
    ],
)
def test_a_file_that_is_no_readable_photo_is_refused_by_name(data: bytes, message: str) -> None:
    with pytest.raises(PhotoError, match=message):
        decode_photo(data)


def test_a_damaged_exif_block_is_passed_over() -> None:
    """An EXIF block whose orientation cannot be applied (a text where a number belongs, which
    made Pillow's transpose raise): the photo is read as it lies, no error, no warning."""
    image = Image.new("RGB", (64, 48), (200, 100, 50))
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x010F] = "Cam"
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", exif=exif.tobytes())
    data = buffer.getvalue().replace(b"\x01\x0f\x00\x02", b"\x01\x56\x00\x02")
    assert decode_photo(data).shape[2] == 3
    turned = io.BytesIO()
    image.save(turned, "JPEG", exif=exif.tobytes())
    assert decode_photo(turned.getvalue()).shape[:2] == (64, 48)  # orientation 6: turned upright


def test_a_large_jpeg_is_decoded_small() -> None:
    """A phone's 48-megapixel JPEG is decoded at a reduced scale straight away."""
    rgb = decode_photo(jpeg(8000, 6000))
    assert max(rgb.shape[:2]) <= 1600 and rgb.shape[2] == 3


def test_a_photo_with_no_board_says_so() -> None:
    rng = np.random.default_rng(3)
    noise = rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)
    for picture in (noise, np.full((480, 640, 3), 40, np.uint8)):
        with pytest.raises(PhotoError, match="no board found"):
            read_board(picture, Rules.preset("big"))
    # A blank light card on a dark table: a "grid" of nothing, refused rather than read as
    # the dice's likeliest faces.
    card = np.full((600, 800, 3), 50, np.uint8)
    card[150:450, 250:550] = 235
    with pytest.raises(PhotoError, match="no 5x5 board could be read"):
        read_board(card, Rules.preset("big"))
    # A tray read by the rules of another size: refused, naming the size the photo shows.
    for preset, other in (
        ("big", "superbig"),
        ("big", "classic"),
        ("classic", "big"),
        ("superbig", "big"),
    ):
        _, photo = tray(preset, 3)
        shown = Rules.preset(preset)
        wanted = Rules.preset(other)
        with pytest.raises(
            PhotoError,
            match=rf"shows a {shown.rows}x{shown.cols} grid of cubes, but the rules are for a "
            rf"{wanted.rows}x{wanted.cols} board",
        ):
            read_board(photo.jpeg, wanted)


# -- the grid ------------------------------------------------------------------------------------


#: A photo of a real tray as a phone takes it close up: the tray's walls between the cubes,
#: each cube's side seen below its face (with part of another letter), the tray filling the
#: photo; the first photos of a real tray read here failed on exactly these.
REAL_TRAY: dict[str, float] = {"gap": 0.22, "sides": 0.18, "fill": 0.88}
#: ... and half in the shadow of the phone that takes it (60% of the light gone).
IN_SHADOW: dict[str, float] = {**REAL_TRAY, "shadow": 0.6}
CONDITIONS = pytest.mark.parametrize(
    "options", [{}, REAL_TRAY, IN_SHADOW], ids=["flat", "real-tray", "in-shadow"]
)


@pytest.mark.parametrize("preset", PRESETS)
@CONDITIONS
def test_the_grid_is_found_in_every_presets_photos(preset: str, options: dict[str, float]) -> None:
    """The grid's corners within a few tenths of a pitch of the truth (the cell lattice's). In
    a shadow, the darkest cubes may be missed and the corner beyond them is extrapolated from
    the others: a looser bound there (the letters are still read: see the accuracy test)."""
    rules = Rules.preset(preset)
    bound = 0.4 if options.get("shadow") else 0.3
    for seed in range(8):
        _, photo = tray(preset, seed, **options)
        found = find_grid(decode_photo(photo.jpeg), rules.rows, rules.cols)
        pitch = np.linalg.norm(photo.corners[1] - photo.corners[0]) / rules.cols
        error = np.linalg.norm(found.corners - photo.corners, axis=1).max()
        assert error < bound * pitch, (seed, error, pitch)


def test_blobs_on_top_of_one_another_are_no_lattice() -> None:
    """Squares each inside a square ring (two blobs with one centre: a lattice step of zero
    length, which made the numbering invert a singular matrix and the API answer 500): a
    refusal, never another error."""
    import cv2

    picture = np.zeros((800, 800, 3), np.uint8)
    for row in range(8):
        for col in range(8):
            x, y = 40 + col * 90, 40 + row * 90
            cv2.rectangle(picture, (x, y), (x + 63, y + 63), (255, 255, 255), -1)
            cv2.rectangle(picture, (x + 4, y + 4), (x + 59, y + 59), (0, 0, 0), -1)
            cv2.rectangle(picture, (x + 7, y + 7), (x + 56, y + 56), (255, 255, 255), -1)
    with pytest.raises(PhotoError):
        read_board(picture, Rules.preset("big"))


def test_a_tray_cut_short_is_not_named_as_the_rules_own_size() -> None:
    """A Super Big Boggle tray with its bottom row cut off, read by Big Boggle's rules: refused,
    and never as "the photo shows a 5x5 grid ... the rules are for a 5x5 board" (the window
    cut to the rules' size was named as the tray's)."""
    for seed in range(3):
        _, photo = tray("superbig", seed, **REAL_TRAY)
        bottom = int(photo.corners[:, 1].max())
        pitch = np.linalg.norm(photo.corners[1] - photo.corners[0]) / 6
        cut = np.ascontiguousarray(photo.rgb[: bottom - int(0.7 * pitch)])
        with pytest.raises(PhotoError) as refused:
            read_board(cut, Rules.preset("big"))
        assert "shows a 5x5" not in str(refused.value), seed


def test_a_photo_that_cuts_off_cubes_is_refused_naming_the_edge() -> None:
    """Taken too close: the grid is found, but the letters of its outer cubes are outside the
    photo. Refused, naming where, rather than read as whatever the edge shows."""
    rules = Rules.preset("big")
    _, photo = tray("big", 4, **REAL_TRAY)
    width = photo.rgb.shape[1]
    left_edge = int(photo.corners[:, 0].min())
    pitch = np.linalg.norm(photo.corners[1] - photo.corners[0]) / rules.cols
    cut = photo.rgb[:, left_edge + int(0.6 * pitch) : width]
    with pytest.raises(PhotoError, match=r"cuts off [1-5] of the 25 cubes \(at its left edge\)"):
        read_board(np.ascontiguousarray(cut), rules)


def test_a_tray_turned_in_the_photo_is_read_turned() -> None:
    """A tray photographed turned by 40-52 degrees: its grid's four corners are four (none
    picked twice), and the board read is the tray's, turned by a quarter if at all (the same
    board for play)."""
    import cv2

    rules = Rules.preset("big")
    for seed, degrees in ((2, 42), (6, 46), (9, 49), (12, 52)):
        truth, photo = tray("big", seed, tilt=0.2, size=(1000, 1000))  # type: ignore[arg-type]
        turn = cv2.getRotationMatrix2D((500, 500), degrees, 0.8)
        turned = cv2.warpAffine(photo.rgb, turn, (1000, 1000), borderValue=(50, 55, 60))
        reading = read_board(turned, rules)
        assert len({tuple(corner) for corner in np.round(reading.corners, 4)}) == 4
        grid = [list(row) for row in np.array(reading.board.cell_faces).reshape(5, 5)]
        turns = []
        for _ in range(4):
            turns.append([face for row in grid for face in row])
            grid = [list(row) for row in zip(*grid[::-1], strict=True)]
        assert list(shake(rules.dice, seed).board.cell_faces) in turns, (seed, truth)


def test_the_challenge_cube_is_found_and_marked() -> None:
    """A tray with the challenge cube in place of one die, read by rules with the challenge:
    the cube is found among the dice (a second Qu is the challenge cube's, not a misreading)
    and its cell is marked on the board."""
    rules = Rules.preset("big", challenge=True)
    for seed in (32, 40):
        shaken = shake(rules.dice, seed, challenge=True)
        photo = render_tray(shaken, held_out_font(seed), np.random.default_rng(seed))
        reading = read_board(photo.jpeg, rules)
        assert reading.board.cell_faces == shaken.board.cell_faces
        marked = reading.board.challenge
        assert marked is not None and reading.board[marked] in CHALLENGE_CUBE
        if seed == 32:  # its challenge cube shows the second Qu: no other die could
            assert reading.board.challenge == shaken.board.challenge
        # (Seed 40's shows an M, as two other cubes do: which of them is the challenge cube
        # the letters cannot say, and one of them is marked.)


def test_a_reading_the_dice_overrode_is_doubtful() -> None:
    """The classifier sure of a W that the cell's die cannot show: the dice's face is taken,
    and marked for a person to check, on the classifier's scale."""
    from bigboggle.photo.reader import _cell_reading

    seen = np.full(len(CLASSES), 0.001)
    seen[CLASSES.index("W")] = 0.95
    seen[CLASSES.index("M")] = 0.03
    seen /= seen.sum()
    final = np.zeros(len(CLASSES))
    final[CLASSES.index("M")] = 0.9996
    final[CLASSES.index("E")] = 0.0004
    cell = _cell_reading(final, seen, 0)
    assert cell.face == "M" and cell.doubtful and cell.confidence < 0.1
    assert cell.alternatives[0][0] == "W"


# -- the dice ------------------------------------------------------------------------------------


def test_the_dice_fix_readings_no_die_left_could_show() -> None:
    """Certain readings of a real shake, with three cells misread (fairly surely) as faces
    their dice do not have: the assignment puts each die back and each cell's face with it."""
    rules = Rules.preset("big")
    shaken = shake(rules.dice, 5)
    truth = list(shaken.board.cell_faces)
    probabilities = np.full((25, len(CLASSES)), 0.001)
    for cell, face in enumerate(truth):
        probabilities[cell, CLASSES.index(face)] = 0.9
    planted = {}
    for cell in (0, 7, 19):
        die = shaken.dice[cell]
        wrong = next(face for face in ("X", "Qu", "J", "Z") if face not in die)
        probabilities[cell, CLASSES.index(wrong)] = 0.95  # sure, and wrong
        planted[cell] = wrong
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    dice = list(dice_set(rules.dice).dice)
    assignment = assign_dice(probabilities, CLASSES, dice)
    assert sorted(assignment) == list(range(25))  # each die once
    for cell, die in enumerate(assignment):
        assert truth[cell] in dice[die]
    best = [CLASSES[int(np.argmax(row))] for row in probabilities]
    assert all(best[cell] == wrong for cell, wrong in planted.items())  # misread before


# -- the whole reader ----------------------------------------------------------------------------

#: Boards per preset in the accuracy test (held-out fonts; each board a new shake, angle, table
#: and light): the split is by board, so a board's 16-36 tiles never straddle two sets.
BOARDS_PER_PRESET = 12


@CONDITIONS
def test_boards_are_read_from_photos_in_fonts_the_model_never_saw(
    options: dict[str, float], capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole pipeline (decode, grid, glyphs, model, dice) on synthetic photos of every
    preset lettered in the held-out fonts: per-tile and whole-board accuracy, with their 95%
    intervals, printed; the floors asserted are the issue's targets (99.5% of tiles, 90% of
    boards), which it passes with room (a seeded run: the same photos every time)."""
    tiles = right_tiles = boards = right_boards = 0
    misread: list[str] = []
    for preset in PRESETS:
        rules = Rules.preset(preset)
        for seed in range(100, 100 + BOARDS_PER_PRESET):
            truth, photo = tray(preset, seed, **options)
            reading = read_board(photo.jpeg, rules)
            read = [cell.face for cell in reading.cells]
            expected = list(Board.parse(truth).cell_faces)
            correct = sum(a == b for a, b in zip(read, expected, strict=True))
            tiles += len(expected)
            right_tiles += correct
            boards += 1
            right_boards += correct == len(expected)
            if correct != len(expected):
                misread.append(f"{preset} seed {seed}: {truth} read {reading.board}")
    tile_low, tile_high = wilson(right_tiles, tiles)
    board_low, board_high = wilson(right_boards, boards)
    with capsys.disabled():
        print(
            f"\nphoto reader, held-out fonts, {options or 'flat'}: tiles {right_tiles}/{tiles} "
            f"({right_tiles / tiles:.2%}, 95% CI {tile_low:.2%}-{tile_high:.2%}); "
            f"boards {right_boards}/{boards} ({right_boards / boards:.0%}, "
            f"95% CI {board_low:.0%}-{board_high:.0%})"
        )
        for line in misread:
            print("  " + line)
    assert right_tiles / tiles >= 0.995, misread  # the targets
    assert right_boards / boards >= 0.9, misread


def test_the_command_line_reads_a_photo_and_solves_it(tmp_path: Path) -> None:
    truth, photo = tray("big", 7)
    path = tmp_path / "tray.jpg"
    path.write_bytes(photo.jpeg)
    runner = CliRunner()
    done = runner.invoke(cli, ["read", str(path), "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["rules"] == "big" and data["rows"] == 5 and len(data["cells"]) == 25
    assert data["board"] == truth
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in data["grid"])
    text = runner.invoke(cli, ["read", str(path)])
    assert text.exit_code == 0 and f"Board: {truth}" in text.stdout
    solved = runner.invoke(cli, ["solve", "--photo", str(path), "--json"])
    assert solved.exit_code == 0, solved.output
    answer = json.loads(solved.stdout)
    assert answer["board"] == truth and answer["reading"]["board"] == truth
    assert answer["total_score"] > 0
    for args, message in (
        (["read", str(tmp_path / "missing.jpg")], "cannot be read"),
        (["read", str(tmp_path)], "is a directory"),
        (["solve", "LINES/TQARD/HEMOP/ABCKI/PSTEW", "--photo", str(path)], "not two"),
    ):
        bad = runner.invoke(cli, args)
        assert bad.exit_code == 2 and message in bad.output, (args, bad.output)
    (tmp_path / "text.jpg").write_text("hello")
    bad = runner.invoke(cli, ["read", str(tmp_path / "text.jpg")])
    assert bad.exit_code == 2 and "not a photo" in bad.output
    assert "Traceback" not in bad.output


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> TestClient:
    return TestClient(create_app(db_url, clock=clock))


def test_the_api_reads_a_photo_sent_as_a_form_or_as_the_body(client: TestClient) -> None:
    truth, photo = tray("classic", 11)
    form = client.post(
        "/api/read-board?rules=classic", files={"photo": ("tray.jpg", photo.jpeg, "image/jpeg")}
    )
    assert form.status_code == 200, form.text
    assert form.json()["board"] == truth and form.json()["rules"] == "classic"
    raw = client.post(
        "/api/read-board?rules=classic",
        content=photo.jpeg,
        headers={"Content-Type": "image/jpeg"},
    )
    assert raw.status_code == 200 and raw.json() == form.json()


@pytest.mark.parametrize(
    ("request_args", "status", "message"),
    [
        ({"content": b"hello", "headers": {"Content-Type": "image/jpeg"}}, 400, "not a photo"),
        ({"content": b"", "headers": {"Content-Type": "image/jpeg"}}, 400, "empty"),
        (
            {"content": png_declaring(100_000, 100_000), "headers": {"Content-Type": "image/png"}},
            400,
            "limit",
        ),
        ({"content": b"{}", "headers": {"Content-Type": "application/json"}}, 415, "multipart"),
        ({"files": {"picture": ("x.jpg", b"abc", "image/jpeg")}}, 400, "no file 'photo'"),
        ({"files": {"photo": (None, "text, not a file")}}, 400, "no file 'photo'"),
    ],
    ids=["text", "empty", "bomb", "json", "wrong-field", "field-not-file"],
)
def test_the_api_refuses_what_is_no_photo(
    client: TestClient, request_args: dict[str, object], status: int, message: str
) -> None:
    answer = client.post("/api/read-board", **request_args)  # type: ignore[arg-type]
    assert answer.status_code == status, answer.text
    assert message in answer.json()["error"]


def test_the_api_refuses_a_photo_past_its_limit_and_an_unknown_preset(client: TestClient) -> None:
    huge = client.post(
        "/api/read-board",
        content=b"\xff" * 31_000_001,
        headers={"Content-Type": "image/jpeg"},
    )
    assert huge.status_code == 413 and "MAX_PHOTO_BODY_BYTES" in huge.json()["error"]

    def chunks() -> object:  # no Content-Length: the limit is found while reading
        for _ in range(40):
            yield b"x" * 1_000_000

    form = client.post(
        "/api/read-board",
        content=chunks(),  # type: ignore[arg-type]
        headers={"Content-Type": "multipart/form-data; boundary=abc"},
    )
    assert form.status_code == 413, form.text  # the body's limit, not a form's 400
    unknown = client.post(
        "/api/read-board?rules=mega", content=jpeg(64, 64), headers={"Content-Type": "image/jpeg"}
    )
    assert unknown.status_code == 400 and "mega" in unknown.json()["error"]


def test_without_the_camera_extra_the_reader_says_what_to_install(
    tmp_path: Path, db_url: str, clock: FakeClock
) -> None:
    """An installation without OpenCV (``cv2`` made unimportable, as where it is missing):
    ``read`` says which extra to install; the server answers 501 saying so, and the solver
    page offers no photo button."""
    import subprocess
    import sys

    path = tmp_path / "tray.jpg"
    path.write_bytes(jpeg(64, 64))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['cv2'] = None; sys.argv[0] = 'bigboggle'; "
            "from bigboggle.cli import main; main()",
            "read",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "pip install 'bigboggle[camera]'" in done.stderr
    assert "Traceback" not in done.stderr
    import bigboggle.photo

    original = bigboggle.photo.NEEDS
    bigboggle.photo.NEEDS = ("a_module_nobody_has",)  # as find_spec finds no cv2
    try:
        client = TestClient(create_app(db_url, clock=clock))
        answer = client.post(
            "/api/read-board", content=jpeg(64, 64), headers={"Content-Type": "image/jpeg"}
        )
        assert answer.status_code == 501 and "bigboggle[camera]" in answer.json()["error"]
        assert all(
            'id="photo-reader"' not in client.get(page).text for page in ("/solve", "/score")
        )
    finally:
        bigboggle.photo.NEEDS = original
    assert 'id="photo-reader"' in TestClient(create_app(db_url, clock=clock)).get("/solve").text
