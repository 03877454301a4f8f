#!/usr/bin/env python3
"""Fills the decks' placeholders from one report folder (scripts/slides.sh runs it).

usage: scripts/fill_slides.py [--student] [--copy-figures] REPORT_DIR OUT_DIR
       scripts/fill_slides.py --reference DEFAULT.pptx OUT.pptx

For every slides/labNN_*.md writes OUT_DIR/labNN_*.md with
    {{KEY}}            the value of KEY in REPORT_DIR/numbers.json ({{meta.gpu}}, {{meta.date}}, ...)
    {{figure:NAME}}    an image of REPORT_DIR/figures/NAME.png
replaced. Exits 1, naming the deck and the key or figure, when a placeholder cannot be filled.

--student       leaves out the slides for instructors only: each slide (from its "## " title to
                the next) whose title says "(for instructors)", such as "The shape of the code
                (for instructors)" with its solution excerpt.
--copy-figures  copies the figures used into OUT_DIR/figures/ and points the decks there
                (a folder that stands on its own, e.g. the student repository's slides/).

--reference turns pandoc's default reference deck into the one the decks use: body text and
code small enough for a 60-column code excerpt, titles on one line.
"""
import glob
import json
import os
import re
import shutil
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLACEHOLDER = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")


def show(value):
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and abs(value) >= 100000:
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


# Font sizes (hundredths of a point) of pandoc's default master, and what the decks use instead.
MASTER_SIZES = {
    "<p:titleStyle>": {"3300": "2800"},
    "<p:bodyStyle>": {"2400": "2000", "2100": "1800", "1800": "1600", "1500": "1400"},
}


def make_reference(default, out):
    with zipfile.ZipFile(default) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "ppt/slideMasters/slideMaster1.xml":
                text = data.decode("utf-8")
                for style, sizes in MASTER_SIZES.items():
                    start = text.index(style)
                    end = text.index(style.replace("<p:", "</p:"), start)
                    part = text[start:end]
                    for old, new in sizes.items():
                        part = part.replace(f'sz="{old}"', f'sz="{new}"')
                    text = text[:start] + part + text[end:]
                data = text.encode("utf-8")
            dst.writestr(item, data)
    return 0


# A slide for instructors only: its "## " title says so.
INSTRUCTOR_SLIDE = re.compile(r"^## .*\(for instructors\)", re.M)


def student_deck(text):
    """The deck without its instructor-only slides (each from its title to the next slide)."""
    parts = re.split(r"(?m)^(?=## )", text)
    return "".join(p for p in parts if not INSTRUCTOR_SLIDE.match(p))


def main(argv):
    if len(argv) == 3 and argv[0] == "--reference":
        return make_reference(argv[1], argv[2])
    student = "--student" in argv
    copy_figures = "--copy-figures" in argv
    argv = [a for a in argv if a not in ("--student", "--copy-figures")]
    if len(argv) != 2 or any(a.startswith("--") for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    report, out = (os.path.abspath(a) for a in argv)
    path = os.path.join(report, "numbers.json")
    if not os.path.exists(path):
        print(f"fill_slides: {path} is missing: no report to fill the decks from", file=sys.stderr)
        return 1
    numbers = json.load(open(path))
    values = {k: v for k, v in numbers.items() if k != "meta"}
    values.update({f"meta.{k}": v for k, v in numbers.get("meta", {}).items()})
    decks = sorted(glob.glob(os.path.join(ROOT, "slides", "lab*.md")))
    if not decks:
        print("fill_slides: no decks in slides/", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    problems = []
    for deck in decks:
        name = os.path.relpath(deck, ROOT)

        def fill(m):
            key = m.group(1)
            if key.startswith("figure:"):
                figure = os.path.join(report, "figures", key[7:] + ".png")
                if not os.path.exists(figure):
                    problems.append(f"{name}: missing figure {key[7:]} ({figure})")
                    return m.group(0)
                if copy_figures:
                    os.makedirs(os.path.join(out, "figures"), exist_ok=True)
                    shutil.copyfile(figure, os.path.join(out, "figures", key[7:] + ".png"))
                    return f"![](figures/{key[7:]}.png)"
                return f"![]({figure})"
            if key not in values or values[key] is None:
                problems.append(f"{name}: unfilled placeholder {{{{{key}}}}} (no such key in {path})")
                return m.group(0)
            return show(values[key])

        text = open(deck).read()
        if student:
            text = student_deck(text)
        text = PLACEHOLDER.sub(fill, text)
        with open(os.path.join(out, os.path.basename(deck)), "w") as f:
            f.write(text)
    for p in problems:
        print("fill_slides: " + p, file=sys.stderr)
    if problems and numbers.get("meta", {}).get("gpu") in (None, "", "none"):
        print(f"fill_slides: {report} was made without a GPU: the decks need its GPU rows "
              "(run scripts/report.sh on a GPU, or use the committed reference run in report/)",
              file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
