"""The README's pictures of the views, from real builds: the concept map of
the shipped corpus and of a 20,000-abstract arXiv build, a focus page, a
drawn answer (`kg ask --viz`), the paper map and the trend chart.

    python benchmarks/arxiv_sample.py --size 20000 --out /tmp/arxiv-20k.jsonl
    kg build /tmp/arxiv-20k.jsonl --store /tmp/arxiv-20k/store --jobs 2 --no-page
    kg build                                   # the shipped corpus, into .kg/store
    python docs/screenshots.py --shipped .kg/store --arxiv /tmp/arxiv-20k/store
    python docs/screenshots.py --shipped .kg/store   # only the shipped corpus's pictures

Pages are written with kg's own commands into a temporary folder, opened in
headless chromium (every request blocked) and saved as PNG under
``docs/images/``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
IMAGES = HERE / "images"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]


def kg(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "kg", *args], check=True)


def shoot(browser, page_file: Path, out: Path, click: str | None = None, width: int = 1400, height: int = 900) -> None:
    page = browser.new_page(viewport={"width": width, "height": height})
    url = page_file.as_uri()
    page.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
    page.goto(url)
    if page_file.name.startswith("trends"):
        page.screenshot(path=str(out), full_page=False)
    else:
        page.wait_for_function("window.kgView && window.kgView.drawn", timeout=120_000)
        if click:
            page.evaluate(click)
        page.screenshot(path=str(out))
    page.close()
    print(f"wrote {out}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shipped", type=Path, required=True, help="the store of the shipped corpus")
    parser.add_argument(
        "--arxiv", type=Path, help="the store of a 20,000-abstract arXiv build (without it: only the shipped corpus's pictures)"
    )
    parser.add_argument("--focus", default="LoRA3D", help="the focus page's node (shipped corpus)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    IMAGES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        kg("viz", "--store", str(args.shipped), "--out", str(tmp / "map-shipped.html"))
        kg("viz", "--store", str(args.shipped), "--focus", args.focus, "--depth", "2", "--out", str(tmp / "focus.html"))
        kg("ask", "methods-on-dataset", "--dataset", "Waymo", "--viz", "--store", str(args.shipped), "--out", str(tmp / "answer.html"))
        if args.arxiv:
            kg("viz", "--store", str(args.arxiv), "--out", str(tmp / "map-arxiv.html"))
            kg("viz", "--store", str(args.arxiv), "--papers", "--out", str(tmp / "papers-arxiv.html"))
            kg("trends", "--store", str(args.arxiv), "--no-chart", "--limit", "3")
            kg("trends", "--store", str(args.arxiv), "--chart", str(tmp / "trends-arxiv.html"), "--limit", "7")
        select_biggest = "(() => { const n = kgView.data.nodes.reduce((a, b) => a.kgPapers > b.kgPapers ? a : b); kgView.network.selectNodes([n.id]); kgView.showNode(n.id); kgView.network.redraw(); })()"
        select_focus = "(() => { const n = kgView.data.nodes.find(n => n.role === 'focus' || n.borderWidth === 5); if (n) { kgView.network.selectNodes([n.id]); kgView.showNode(n.id); } })()"
        select_evaluation = "(() => { const e = kgView.data.edges.find(e => e.kgRelation === 'kg:evaluatedOn' && e.from.includes('lora3d')); kgView.network.selectEdges([e.id]); kgView.showEdge(e.id); })()"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            shoot(browser, tmp / "map-shipped.html", IMAGES / "concept-map-shipped.png", select_biggest)
            shoot(browser, tmp / "focus.html", IMAGES / "focus.png", select_focus)
            shoot(browser, tmp / "answer.html", IMAGES / "answer-waymo.png", select_evaluation, width=1100, height=640)
            if args.arxiv:
                shoot(browser, tmp / "map-arxiv.html", IMAGES / "concept-map-arxiv-20k.png", select_biggest)
                shoot(browser, tmp / "papers-arxiv.html", IMAGES / "paper-map-arxiv-20k.png")
                shoot(browser, tmp / "trends-arxiv.html", IMAGES / "trends-arxiv-20k.png", width=1100, height=1000)
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
