"""kg's own annotation of arXiv abstracts: from what an annotator writes to
offset records, checks, and agreement between annotators.

An annotator reads an abstract split into numbered sentences and writes one
JSON line per abstract, naming mentions by their text::

    {"id": "2502.05628",
     "concepts": [{"text": "LLMs", "type": "Method", "label": "large language model", "proposed": false}],
     "claims": [4, 5],
     "relations": [{"head": "AnyEdit", "type": "evaluatedOn", "tail": "UnKEBench", "sentence": 4}],
     "paper": {"tasks": ["knowledge editing"], "datasets": ["UnKEBench"], "methods": []}}

:func:`convert` finds every occurrence of each concept text (whole words,
case as written; ``"occurrences": [1, 3]`` keeps only those, 1-based), keeps
the longest of overlapping mentions (guideline rule 5), and turns sentence
numbers into offsets. The stored record (:data:`RECORD_KEYS`) holds the id,
offsets, types and labels, never the abstract's text.

    python -m kg.training.annotation check OUT.jsonl BATCH.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from kg.records import CONCEPT_TYPES, RELATION_SIGNATURES
from kg.training.arxiv import text_digest

__all__ = ["TYPES", "sentences", "convert", "agreement", "read_records"]

TYPES = CONCEPT_TYPES
PAPER_KEYS = {"tasks": "Task", "datasets": "Dataset", "methods": "Method"}


def sentences(nlp, text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, by the pinned English pipeline's parser (as kg splits them)."""
    doc = nlp(text)
    return [(s.start_char, s.end_char) for s in doc.sents]


def _occurrences(text: str, mention: str) -> list[tuple[int, int]]:
    left = r"(?<!\w)" if re.match(r"\w", mention) else ""
    right = r"(?!\w)" if re.search(r"\w$", mention) else ""
    return [(m.start(), m.end()) for m in re.finditer(left + re.escape(mention) + right, text)]


def convert(raw: dict, text: str, bounds: list[tuple[int, int]]) -> tuple[dict, list[str]]:
    """(record with offsets, problems). A problem names what could not be
    placed or does not fit the guideline; the record keeps everything else."""
    problems: list[str] = []
    spans: list[tuple[int, int, str, str, bool]] = []
    labels: dict[str, str] = {}
    for concept in raw.get("concepts", []):
        mention, kind = concept.get("text", ""), concept.get("type")
        label = concept.get("label") or mention
        if kind not in TYPES:
            problems.append(f"concept {mention!r}: type {kind!r} is not one of {', '.join(TYPES)}")
            continue
        if labels.setdefault(label, kind) != kind:
            problems.append(f"label {label!r} has two types, {labels[label]} and {kind}")
        found = _occurrences(text, mention) if mention else []
        if not found:
            problems.append(f"concept {mention!r} does not occur in the abstract (as whole words, case as written)")
            continue
        wanted = concept.get("occurrences")
        if wanted:
            found = [found[i - 1] for i in wanted if 1 <= i <= len(found)]
        spans.extend((s, e, kind, label, bool(concept.get("proposed", False))) for s, e in found)
    # Longest first, then leftmost: a mention inside a longer one is dropped (rule 5).
    kept: list[tuple[int, int, str, str, bool]] = []
    for span in sorted(set(spans), key=lambda s: (s[0] - s[1], s[0])):
        clash = [k for k in kept if k[0] < span[1] and span[0] < k[1]]
        if not clash:
            kept.append(span)
        elif any((k[0], k[1]) == (span[0], span[1]) and k[2:4] != span[2:4] for k in clash):
            problems.append(f"{text[span[0] : span[1]]!r} at {span[0]} is annotated twice with different types or labels")
    kept.sort()
    proposed = {label for *_, label, p in kept if p}
    concepts = [{"start": s, "end": e, "type": kind, "label": label, "proposed": label in proposed} for s, e, kind, label, _ in kept]
    present = {c["label"]: c["type"] for c in concepts}

    def sentence(number, what: str) -> tuple[int, int] | None:
        if not isinstance(number, int) or not 0 <= number < len(bounds):
            problems.append(f"{what}: sentence {number!r} is not one of 0..{len(bounds) - 1}")
            return None
        return bounds[number]

    claims = []
    for number in sorted(set(raw.get("claims", []))):
        if (b := sentence(number, "claim")) is not None:
            claims.append({"start": b[0], "end": b[1]})
    relations = []
    for rel in raw.get("relations", []):
        kind, head, tail = rel.get("type"), rel.get("head"), rel.get("tail")
        what = f"relation {head!r} {kind} {tail!r}"
        if kind not in RELATION_SIGNATURES:
            problems.append(f"{what}: unknown type")
            continue
        if present.get(head) != RELATION_SIGNATURES[kind][0] or present.get(tail) != RELATION_SIGNATURES[kind][1]:
            problems.append(
                f"{what}: needs a {RELATION_SIGNATURES[kind][0]} label as head and a {RELATION_SIGNATURES[kind][1]} label as tail"
            )
            continue
        if (b := sentence(rel.get("sentence"), what)) is not None:
            relations.append({"head": head, "type": kind, "tail": tail, "start": b[0], "end": b[1]})
    paper = {}
    for key, kind in PAPER_KEYS.items():
        names = list(dict.fromkeys((raw.get("paper") or {}).get(key, [])))
        for name in names:
            if present.get(name) != kind:
                problems.append(f"paper {key}: {name!r} is not a {kind} label of this abstract")
        paper[key] = sorted(n for n in names if present.get(n) == kind)
    if any(paper.values()) and not proposed:
        problems.append("paper-level relations need a proposed Method")
    record = {
        "id": raw["id"],
        "digest": text_digest(text),
        "concepts": concepts,
        "claims": claims,
        "relations": sorted(relations, key=lambda r: (r["start"], r["type"], r["head"], r["tail"])),
        "paper": paper,
    }
    return record, problems


def read_records(path: str | Path) -> list[dict]:
    """The JSON lines of ``path`` (blank lines skipped)."""
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def _f1(a: set, b: set) -> float:
    return 1.0 if not a and not b else 2 * len(a & b) / (len(a) + len(b))


def agreement(first: Iterable[dict], second: Iterable[dict]) -> dict[str, float]:
    """F1 of one annotator's records against another's on the abstracts both
    annotated (symmetric): concept mentions (exact span and type), each type,
    proposed concepts, claim sentences and relations (labels, type, sentence)."""
    other = {r["id"]: r for r in second}
    sets: dict[str, tuple[set, set]] = {}

    def add(name: str, a: Iterable, b: Iterable) -> None:
        x, y = sets.setdefault(name, (set(), set()))
        x.update(a)
        y.update(b)

    for a in first:
        b = other.get(a["id"])
        if b is None:
            continue
        key = a["id"]
        for name, pick in [
            ("concepts", lambda c: True),
            *((kind, (lambda k: lambda c: c["type"] == k)(kind)) for kind in TYPES),
        ]:
            add(
                name,
                ((key, c["start"], c["end"], c["type"]) for c in a["concepts"] if pick(c)),
                ((key, c["start"], c["end"], c["type"]) for c in b["concepts"] if pick(c)),
            )
        add(
            "proposed",
            ((key, c["start"], c["end"]) for c in a["concepts"] if c["proposed"]),
            ((key, c["start"], c["end"]) for c in b["concepts"] if c["proposed"]),
        )
        add("claims", ((key, c["start"]) for c in a["claims"]), ((key, c["start"]) for c in b["claims"]))
        add(
            "relations",
            ((key, r["head"], r["type"], r["tail"], r["start"]) for r in a["relations"]),
            ((key, r["head"], r["type"], r["tail"], r["start"]) for r in b["relations"]),
        )
    return {name: round(_f1(x, y), 3) for name, (x, y) in sets.items()}


def _check(out: Path, batch: Path) -> int:
    items = {r["id"]: r for r in read_records(batch)}
    seen: set[str] = set()
    total = 0
    for raw in read_records(out):
        item = items.get(raw.get("id"))
        if item is None:
            print(f"{raw.get('id')}: not in the batch")
            total += 1
            continue
        if raw["id"] in seen:
            print(f"{raw['id']}: annotated twice")
            total += 1
        seen.add(raw["id"])
        _, problems = convert(raw, item["abstract"], [tuple(s[1:]) for s in item["sentences"]])
        for problem in problems:
            print(f"{raw['id']}: {problem}")
        total += len(problems)
    missing = [i for i in items if i not in seen]
    print(f"{len(seen)} of {len(items)} abstracts annotated, {len(missing)} to go, {total} problems")
    return 1 if total else 0


def build(outs: list[Path], batches: Path, dest: Path) -> dict[str, float]:
    """Gather the annotators' files (``NAME.jsonl``, batches of the same
    name) into ``dest``: ``test``, ``dev`` and ``train.jsonl`` by the seeded
    draw (each abstract as its first annotator wrote it, with ``annotator``),
    ``second.jsonl`` (the abstracts annotated twice, as the second annotator
    wrote them) and the agreement between the two."""
    from kg.training.arxiv import DEV_SIZE, draw

    test, train, more = draw()
    splits = {"test": test, "dev": train[-DEV_SIZE:], "train": train[:-DEV_SIZE] + more}
    first: dict[str, dict] = {}
    second: dict[str, dict] = {}
    for out in outs:
        items = {r["id"]: r for r in read_records(batches / out.name)}
        for raw in read_records(out):
            item = items[raw["id"]]
            record, problems = convert(raw, item["abstract"], [tuple(s[1:]) for s in item["sentences"]])
            if problems:
                raise ValueError(f"{out}: {raw['id']}: {problems[0]}")
            record["annotator"] = out.stem
            (second if raw["id"] in first else first)[raw["id"]] = record
    # A batch lists its own abstracts before the overlap, but files are read in name order:
    # the owner is whoever was assigned the abstract (its index in the draw, modulo 7).
    owners = {x: "ABCDEFG"[i % 7] for ids in (test, train) for i, x in enumerate(ids)}
    for key in list(second):
        if first[key]["annotator"] != owners[key]:
            first[key], second[key] = second[key], first[key]
    dest.mkdir(parents=True, exist_ok=True)
    for name, ids in splits.items():
        lines = [json.dumps(first[i], sort_keys=True) for i in ids if i in first]
        (dest / f"{name}.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (dest / "second.jsonl").write_text("".join(json.dumps(second[i], sort_keys=True) + "\n" for i in sorted(second)), encoding="utf-8")
    return agreement([first[i] for i in sorted(second)], [second[i] for i in sorted(second)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.training.annotation", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="list what in an annotator's file cannot be placed or breaks the guideline")
    check.add_argument("out", type=Path)
    check.add_argument("batch", type=Path)
    gather = sub.add_parser("build", help="gather annotators' files into the train, dev and test sets")
    gather.add_argument("outs", type=Path, nargs="+", help="the annotators' files, NAME.jsonl")
    gather.add_argument("--batches", type=Path, required=True, help="the folder of the batches they annotated")
    gather.add_argument("--dest", type=Path, default=Path("annotations") / "arxiv-cs-2025")
    args = parser.parse_args(argv)
    if args.command == "check":
        return _check(args.out, args.batch)
    print(json.dumps(build(args.outs, args.batches, args.dest), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
