"""Record the CDP snapshots the VIPS tests read (run by hand; needs Playwright and Chromium).

    python tests/make_vips_fixtures.py

Each tests/pages/vips/NAME.html is rendered offline at 1366 x 768 with JavaScript on and
its ``DOMSnapshot.captureSnapshot`` written to NAME.snapshot.json, so the algorithm's tests
run on a real Chromium layout without a browser.
"""

import json
from pathlib import Path

from scrapy_boilerplate.extractors.vips.render import render_snapshot

HERE = Path(__file__).parent / "pages" / "vips"

if __name__ == "__main__":
    for page in sorted(HERE.glob("*.html")):
        snapshot = render_snapshot(url=page.resolve().as_uri())
        snapshot.pop("timings", None)
        out = page.with_suffix(".snapshot.json")
        out.write_text(json.dumps(snapshot, separators=(",", ":")), encoding="utf-8")
        print(out, out.stat().st_size, "bytes")
