"""Concept hierarchy, only where the text gives it: ``skos:broader`` links.

- **head noun**: a concept whose lower-case label ends in another concept's
  label, same type, is narrower than it ("parameter-efficient fine-tuning"
  -> "fine-tuning"; "large language model" -> "language model"). Names
  ("Stable Diffusion") are never split. The nearest such concept is taken.
- **Hearst patterns** (``data/hearst_patterns.jsonl``): within one sentence,
  "<general> such as <specific>, <specific> and <specific>", "including",
  "e.g.", "like", and "<specific> and other <general>", between concepts of
  the same type. The sentence is kept as evidence.

Pairs asserted in both directions contradict each other and are dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kg.link.concepts import ConceptIndex
from kg.link.identity import concept_iri
from kg.link.normalise import DATA_DIR, concept_key
from kg.records import BroaderLink, Concept, Extraction, Mention

__all__ = [
    "HearstPattern",
    "broader_links",
    "head_noun_link",
    "head_noun_links",
    "head_suffixes",
    "hearst_links",
    "load_hearst_patterns",
    "without_contradictions",
]

HEAD_NOUN_CONFIDENCE = 0.8
HEAD_NOUN_RULE = "head-noun"
_LIST_SEPARATOR = re.compile(r"^(,|,?\s*and|,?\s*or|,?\s*as well as)$")
_LOWER_WORD = re.compile(r"^[a-z0-9][a-z0-9\-]*$")


@dataclass(frozen=True)
class HearstPattern:
    id: str
    order: str  # "general-first" or "specific-first"
    connector: re.Pattern
    confidence: float


def load_hearst_patterns(path: Path = DATA_DIR / "hearst_patterns.jsonl") -> tuple[HearstPattern, ...]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return tuple(HearstPattern(r["id"], r["order"], re.compile(r["connector"]), r["confidence"]) for r in rows)


def head_suffixes(pref_label: str) -> list[str]:
    """The keys a concept's head-noun link may point to, nearest (longest) first:
    none for names and single words."""
    words = pref_label.split(" ")
    if len(words) < 2 or not all(_LOWER_WORD.match(w) for w in words):
        return []
    return [concept_key(" ".join(words[i:])) for i in range(1, len(words))]


def head_noun_link(iri: str, concept_type: str, pref_label: str, exists: Callable[[tuple[str, str]], bool]) -> BroaderLink | None:
    """The head-noun link of a concept, given which (type, key) concepts ``exists``."""
    for key in head_suffixes(pref_label):
        if exists((concept_type, key)) and (broader := concept_iri(concept_type, key).value) != iri:
            return BroaderLink(iri, broader, HEAD_NOUN_RULE, HEAD_NOUN_CONFIDENCE)
    return None


def head_noun_links(concepts: Sequence[Concept]) -> list[BroaderLink]:
    keys = {(c.type, c.key) for c in concepts}
    links = (head_noun_link(c.iri, c.type, c.pref_label, keys.__contains__) for c in concepts)
    return [link for link in links if link is not None]


def _gap(text: str, left: Mention, right: Mention) -> str | None:
    """The text between two mentions of one sentence, lower-cased; None across sentences."""
    if left.sentence_start != right.sentence_start or right.start < left.end:
        return None
    return " ".join(text[left.end : right.start].split()).lower()


def _listed(text: str, mentions: list[Mention], first: int, step: int) -> list[Mention]:
    """``mentions[first]`` and the mentions listed after it (step 1) or before it (step -1)."""
    listed = [mentions[first]]
    i = first
    while 0 <= i + step < len(mentions):
        pair = (mentions[i], mentions[i + step]) if step > 0 else (mentions[i + step], mentions[i])
        gap = _gap(text, *pair)
        if gap is None or not _LIST_SEPARATOR.match(gap):
            break
        i += step
        listed.append(mentions[i])
    return listed


def hearst_links(
    extraction: Extraction,
    text: str,
    concept_of: Callable[[Mention], tuple[str, str]],
    patterns: Sequence[HearstPattern],
) -> list[BroaderLink]:
    """The Hearst-pattern links of one paper; ``concept_of`` gives a mention's concept IRI and type."""
    links = []
    mentions = sorted(extraction.mentions, key=lambda m: (m.start, m.end))
    for i, general in enumerate(mentions):
        for pattern in patterns:
            neighbour = i + 1 if pattern.order == "general-first" else i - 1
            if not 0 <= neighbour < len(mentions):
                continue
            pair = (general, mentions[neighbour]) if neighbour > i else (mentions[neighbour], general)
            gap = _gap(text, *pair)
            if gap is None or not pattern.connector.match(gap):
                continue
            broader, broader_type = concept_of(general)
            for specific in _listed(text, mentions, neighbour, 1 if neighbour > i else -1):
                narrower, narrower_type = concept_of(specific)
                if narrower_type == broader_type and narrower != broader:
                    links.append(
                        BroaderLink(
                            narrower,
                            broader,
                            f"hearst:{pattern.id}",
                            pattern.confidence,
                            extraction.paper_iri,
                            general.sentence_start,
                            general.sentence_end,
                        )
                    )
    return links


def without_contradictions(links: Iterable[BroaderLink]) -> list[BroaderLink]:
    """Drop pairs asserted in both directions; a stable order."""
    links = list(links)
    pairs = {(link.narrower, link.broader) for link in links}
    kept = [link for link in links if (link.broader, link.narrower) not in pairs]
    return sorted(set(kept), key=lambda link: (link.narrower, link.broader, link.rule, link.paper_iri or "", link.start or 0))


def broader_links(extractions: Sequence[Extraction], abstracts: Mapping[str, str], index: ConceptIndex) -> list[BroaderLink]:
    """Every broader link the corpus supports (extractions in memory; a build streams
    :func:`hearst_links` paper by paper and adds :func:`head_noun_links` at the end)."""
    patterns = load_hearst_patterns()
    links = head_noun_links(index.concepts)
    for extraction in extractions:

        def concept_of(mention: Mention, paper: str = extraction.paper_iri) -> tuple[str, str]:
            iri = index.mention_concept(paper, mention)
            return iri, index.by_iri[iri].type

        links += hearst_links(extraction, abstracts[extraction.paper_iri], concept_of, patterns)
    return without_contradictions(links)
