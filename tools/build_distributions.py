#!/usr/bin/env python3
"""Rebuild src/bigboggle/data/distributions.json: the statistics of shaken boards for every
built-in preset and dictionary, which `bigboggle solve`, `shake --band` and the web solver use
to say where a board stands.

    python tools/build_distributions.py            # 100,000 boards each (a few minutes)
    python tools/build_distributions.py --boards 20000

Boards are shaken with seeds 0, 1, 2, ... so the file is reproducible.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bigboggle import PRESETS, Dictionary, Rules
from bigboggle.analysis import shake_stats
from bigboggle.dictionary import BUILTIN_LEVELS

TARGET = Path(__file__).resolve().parents[1] / "src" / "bigboggle" / "data" / "distributions.json"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--boards", type=int, default=100_000, help="boards per preset and dictionary"
    )
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    table = {}
    for preset in PRESETS:
        for name in BUILTIN_LEVELS:
            started = time.perf_counter()
            stats = shake_stats(
                Rules.preset(preset),
                Dictionary.builtin(name),
                boards=args.boards,
                threads=args.threads,
            )
            entry = stats.to_json()
            del entry["best"], entry["worst"]
            table[f"{preset}/{name}"] = entry
            print(
                f"{preset}/{name}: mean {stats.points.mean:.1f} points, "
                f"{time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )
    document = {
        "about": "Points and words per board over shakes of each preset's dice (seeds 0..N-1); "
        "made by tools/build_distributions.py",
        "distributions": table,
    }
    TARGET.write_text(json.dumps(document, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {TARGET} ({TARGET.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
