"""Concept linking: one node per idea across the corpus, every merge explained.

Extraction labels each mention within its own abstract. This stage, run once
over all extractions of a build, decides which labels are one concept:

1. **acronym in paper**: a short form the abstract defines takes its long
   form's label ("RASP" in a paper that writes "Retrieval-Augmented Semantic
   Parsing (RASP)").
2. **acronym in corpus**: a bare short form ("LLMs", "OOD detection") takes
   the long form that the rest of the corpus gives it, when at least two
   abstracts define it and all give the same one, the short form is not a lexicon name,
   and the label is a plain phrase, not a name this paper coins. Definitions of names a paper coins
   ("we introduce ... (RASP)") are that paper's own and are never applied
   elsewhere, so another paper's "RASP" stays apart.
3. **alias**: a label whose normalised form is a lexicon name or alias
   (``kg/data/lexicon.tsv``) becomes that entry, with its type and its
   Wikidata link.
4. **normalised**: labels with the same :func:`~kg.link.normalise.concept_key`
   (case, hyphens, spacing, determiners, spelling) meet.
5. **plural in corpus**: a lower-case label whose last word is a plural of
   another label of the same type in the corpus joins it (the extraction's
   lemmatizer singularises most plurals; this catches the rest).

Merges never cross types: a Dataset and a Method with the same label are two
concepts (except through a lexicon entry, which fixes the type). A concept's
IRI is minted from its type and normalised key, never from counts, so adding
papers never renames a concept; its ``skos:prefLabel`` is the lexicon name or
the most frequent label (ties to the longer).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kg.lexicon import LexiconEntry, load_lexicon, wikidata_iri
from kg.link.identity import concept_iri
from kg.link.normalise import concept_key
from kg.records import AcronymDefinition, Concept, ConceptForm, Extraction, Mention

__all__ = ["ConceptIndex", "link_concepts", "short_form_key", "RULES"]

#: Merge rules, in the order they are tried; see the module docstring.
RULES = ("same label", "normalised", "acronym in paper", "acronym in corpus", "alias", "plural in corpus")

#: How many abstracts must define a short form, all alike, before bare uses elsewhere are expanded.
MIN_DEFINING_ABSTRACTS = 2
_SHORT_FORM = re.compile(r"^[A-Za-z0-9]*[A-Z][A-Za-z0-9\-]*$")


def short_form_key(short: str) -> str:
    """"LLMs" and "LLM" are one short form; "COGS" keeps its capital S."""
    if len(short) > 2 and short.endswith("s") and short[-2].isupper():
        return short[:-1]
    return short


def _is_short_form(word: str) -> bool:
    """"LLMs", "OoD", "RoPE": mostly capitals; "HYPerspherical" is a coined word."""
    letters = [c for c in word if c.isalpha()]
    capitals = sum(c.isupper() for c in letters)
    return capitals >= 2 and capitals >= 0.4 * len(letters) and bool(_SHORT_FORM.match(word))


def _is_plain_phrase(label: str) -> bool:
    """No word but short forms has a capital past its first letter: "OOD detection"
    is a phrase, "HYPerspherical OOD generalization" a coined name."""
    return all(part[1:] == part[1:].lower() for word in label.split(" ") if not _is_short_form(word) for part in word.split("-"))


@dataclass
class _Choice:
    """How one mention (or relation end) was resolved."""

    type: str
    key: str
    label: str  # the label after expansion, what prefLabel is chosen from
    rules: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    entry: LexiconEntry | None = None


@dataclass(frozen=True)
class _CorpusAcronym:
    long_label: str
    papers: int


class ConceptIndex:
    """The concepts of a corpus, and which one each mention and relation end means."""

    def __init__(self, concepts: Sequence[Concept], mentions: dict[tuple[str, int, int, str], str], relation_ends: dict[tuple[str, str, str], str]):
        self.concepts = tuple(concepts)
        self.by_iri = {c.iri: c for c in self.concepts}
        self._mentions = mentions
        self._relation_ends = relation_ends

    def mention_concept(self, paper_iri: str, mention: Mention) -> str:
        """The IRI of the concept ``mention`` (of that paper) names."""
        return self._mentions[(paper_iri, mention.start, mention.end, mention.concept_type)]

    def relation_end_concept(self, paper_iri: str, concept_type: str, label: str) -> str:
        """The IRI of the concept a relation of that paper means by ``label``."""
        return self._relation_ends[(paper_iri, concept_type, label)]


class _Linker:
    def __init__(self, extractions: Sequence[Extraction], lexicon: Sequence[LexiconEntry]):
        self.lexicon: dict[str, LexiconEntry] = {}
        for entry in lexicon:
            for name in (entry.name, *entry.aliases):
                self.lexicon.setdefault(concept_key(name), entry)
        self.corpus_acronyms = self._corpus_acronyms(extractions)

    # -- pass 1: what short forms mean across the corpus ---------------------

    @staticmethod
    def coined(extraction: Extraction, definition: AcronymDefinition) -> bool:
        """The paper introduces the defined name itself ("we propose X (Y)")."""
        return any(m.proposed and m.start < definition.end and definition.start < m.end for m in extraction.mentions)

    def _corpus_acronyms(self, extractions: Sequence[Extraction]) -> dict[str, _CorpusAcronym]:
        meanings: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
        for extraction in extractions:
            for definition in extraction.acronyms:
                if not self.coined(extraction, definition):
                    short = short_form_key(definition.short)
                    meanings[short][concept_key(definition.long_label)][definition.long_label] += 1
        table = {}
        for short, by_key in meanings.items():
            labels = next(iter(by_key.values()))
            # Ambiguous short forms are left alone, and so are those one abstract alone defines:
            # a single definition is too little evidence that the bare form means the same elsewhere.
            if len(by_key) == 1 and sum(labels.values()) >= MIN_DEFINING_ABSTRACTS:
                label = min(labels, key=lambda text: (-labels[text], text))
                table[short] = _CorpusAcronym(label, sum(labels.values()))
        return table

    # -- pass 2: each label in its paper -------------------------------------

    def resolve(self, extraction: Extraction, concept_type: str, label: str, proposed: bool) -> _Choice:
        choice = _Choice(concept_type, concept_key(label), label)
        local = {short_form_key(d.short): d for d in extraction.acronyms}
        defined = local.get(short_form_key(label))
        if defined is not None and concept_key(_expand_local(defined.long_label, local)) != choice.key:
            choice.label = _expand_local(defined.long_label, local)
            choice.key = concept_key(choice.label)
            choice.rules.append("acronym in paper")
            choice.notes.append(f"{defined.short} = {defined.long}, defined in the paper")
        elif choice.key not in self.lexicon and not proposed and _is_plain_phrase(label):
            self._expand_from_corpus(choice, local)
        entry = self.lexicon.get(choice.key)
        if entry is not None:
            if concept_key(entry.name) != choice.key:
                choice.rules.append("alias")
                choice.notes.append(f"{choice.label} is an alias of {entry.name} (lexicon.tsv line {entry.line})")
            choice.type, choice.key, choice.entry = entry.type, concept_key(entry.name), entry
        return choice

    def _expand_from_corpus(self, choice: _Choice, local: dict[str, AcronymDefinition]) -> None:
        words = choice.label.split(" ")
        expanded = []
        for word in words:
            short = short_form_key(word)
            meaning = self.corpus_acronyms.get(short) if _is_short_form(word) and short not in local else None
            if meaning is None or concept_key(word) in self.lexicon:
                expanded.append(word)
                continue
            expanded.append(meaning.long_label)
            papers = "1 abstract" if meaning.papers == 1 else f"{meaning.papers} abstracts"
            choice.notes.append(f"{short} = {meaning.long_label}, as {papers} of the corpus define it")
        if expanded != words:
            choice.label = " ".join(expanded)
            choice.key = concept_key(choice.label)
            choice.rules.append("acronym in corpus")


def _mention_label(mention: Mention, local: dict[str, AcronymDefinition]) -> str:
    """A short form the paper defines means its long form: "GANs" after "pre-trained
    generative adversarial networks (GANs)" is "generative adversarial network",
    whatever wider phrase extraction labelled it with."""
    definition = local.get(short_form_key(mention.text))
    return _expand_local(definition.long_label, local) if definition is not None else mention.label or mention.text


def _expand_local(label: str, local: dict[str, AcronymDefinition]) -> str:
    """Short forms the paper defines, spelled out inside a label, as extraction
    does for its own labels: "HYPerspherical OOD generalization" after
    "Out-of-distribution (OOD)" is "HYPerspherical out-of-distribution generalization"."""
    words = label.split(" ")
    return " ".join(local[short_form_key(w)].long_label if short_form_key(w) in local and len(words) > 1 else w for w in words)


def _local_acronym_note(text: str, local: dict[str, AcronymDefinition]) -> str | None:
    """Which short forms the paper defines appear in ``text`` ("OOD generalization")."""
    found = [local[short_form_key(w)] for w in re.split(r"[\s\-/()]+", text) if short_form_key(w) in local]
    return "; ".join(f"{d.short} = {d.long}, defined in the paper" for d in found) or None


def _plural_targets(labels: dict[tuple[str, str], list[str]]) -> dict[tuple[str, str], tuple[str, str]]:
    """Groups whose key ends in a plural of another group's key, same type,
    when every label of the group ends in a lower-case word ("COGS" is a name)."""
    targets = {}
    for (concept_type, key), group_labels in labels.items():
        if not all(label.split(" ")[-1].islower() for label in group_labels):
            continue
        head, _, last = key.rpartition("-")
        singulars = [last[:-3] + "y"] if last.endswith("ies") else []
        if last.endswith(("ses", "xes", "ches", "shes")):
            singulars.append(last[:-2])
        if last.endswith("s") and not last.endswith("ss"):
            singulars.append(last[:-1])
        for singular in singulars:
            target = (concept_type, f"{head}-{singular}" if head else singular)
            if target in labels:
                targets[(concept_type, key)] = target
                break
    return targets


def link_concepts(extractions: Iterable[Extraction], lexicon: Sequence[LexiconEntry] | None = None) -> ConceptIndex:
    """Decide the concepts of ``extractions`` (all of a build's, at once)."""
    extractions = list(extractions)
    linker = _Linker(extractions, load_lexicon() if lexicon is None else lexicon)
    choices: dict[tuple[str, str, str], _Choice] = {}  # (paper, type, label) -> its resolution
    uses: list[tuple[_Choice, Mention, str | None]] = []  # with a note when the surface is a defined short form
    mention_lookups: dict[tuple[str, int, int, str], tuple[str, str, str]] = {}
    relation_lookups: dict[tuple[str, str, str], tuple[str, str, str]] = {}

    def choose(extraction: Extraction, concept_type: str, label: str, proposed: bool) -> tuple[str, str, str]:
        lookup = (extraction.paper_iri, concept_type, label)
        if lookup not in choices:
            choices[lookup] = linker.resolve(extraction, concept_type, label, proposed)
        return lookup

    for extraction in extractions:
        paper = extraction.paper_iri
        local = {short_form_key(d.short): d for d in extraction.acronyms}
        first_use: dict[tuple[str, str], str] = {}  # extraction label -> label its first mention resolved by
        for mention in sorted(extraction.mentions, key=lambda m: (m.start, m.end)):
            label = _mention_label(mention, local)
            first_use.setdefault((mention.concept_type, mention.label or mention.text), label)
            lookup = choose(extraction, mention.concept_type, label, mention.proposed)
            mention_lookups[(paper, mention.start, mention.end, mention.concept_type)] = lookup
            uses.append((choices[lookup], mention, _local_acronym_note(mention.text, local)))
        for relation in extraction.relations:
            for concept_type, label in ((relation.head_type, relation.head), (relation.tail_type, relation.tail)):
                lookup = choose(extraction, concept_type, first_use.get((concept_type, label), label), False)
                relation_lookups[(paper, concept_type, label)] = lookup

    labels: dict[tuple[str, str], list[str]] = defaultdict(list)
    for choice in choices.values():
        labels[(choice.type, choice.key)].append(choice.label)
    plurals = _plural_targets(labels)
    for choice in choices.values():
        target = plurals.get((choice.type, choice.key))
        if target is not None:
            choice.rules.append("plural in corpus")
            choice.notes.append(f"{choice.label} is a plural of a label the corpus also uses")
            choice.key = target[1]

    members: dict[tuple[str, str], list[tuple[_Choice, Mention | None, str | None]]] = defaultdict(list)
    for choice, mention, note in uses:
        members[(choice.type, choice.key)].append((choice, mention, note))
    concepts = {group: _concept(*group, group_members) for group, group_members in members.items()}
    for choice in choices.values():  # a relation end no mention names: its own concept
        group = (choice.type, choice.key)
        if group not in concepts:
            concepts[group] = _concept(*group, [(choice, None, None)])
    iri_of = {lookup: concepts[(c.type, c.key)].iri for lookup, c in choices.items()}
    return ConceptIndex(
        sorted(concepts.values(), key=lambda c: c.iri),
        {place: iri_of[lookup] for place, lookup in mention_lookups.items()},
        {end: iri_of[lookup] for end, lookup in relation_lookups.items()},
    )


def _concept(concept_type: str, key: str, members: list[tuple[_Choice, Mention | None, str | None]]) -> Concept:
    entry = next((c.entry for c, _, _ in members if c.entry is not None), None)
    label_counts = Counter(choice.label for choice, _, _ in members)
    preferred = entry.name if entry else min(label_counts, key=lambda label: (-label_counts[label], -len(label), label))
    # Each surface form with the rules that brought it here, gathered over every mention.
    rules: dict[str, set[str]] = defaultdict(set)
    notes: dict[str, set[str]] = defaultdict(set)
    counts: Counter = Counter()
    for choice, mention, short_form_note in members:
        if mention is None:
            continue
        text = mention.text
        counts[text] += 1
        rules[text].update(choice.rules)
        notes[text].update(choice.notes)
        if short_form_note and concept_key(text) != key and not choice.rules:
            rules[text].add("acronym in paper")  # extraction already gave the short form its long form's label
            notes[text].add(short_form_note)
    for text in counts:
        if rules[text]:
            continue
        if text == preferred:
            rules[text].add("same label")
        elif entry is not None and concept_key(text) in {concept_key(a) for a in entry.aliases}:
            rules[text].add("alias")  # extraction's span ruler already named it by the lexicon
            notes[text].add(f"{text} is an alias of {entry.name} (lexicon.tsv line {entry.line})")
        else:
            rules[text].add("normalised")
            labels = sorted({c.label for c, m, _ in members if m is not None and m.text == text})
            notes[text].add(f"labelled {', '.join(labels)}; normalised label {key} (case, hyphens, spelling, plural, bracketed short form set aside)")
    forms = tuple(ConceptForm(text, tuple(sorted(rules[text])), tuple(sorted(notes[text])), counts[text]) for text in sorted(counts))
    return Concept(
        iri=concept_iri(concept_type, key).value,
        type=concept_type,
        key=key,
        pref_label=preferred,
        alt_labels=tuple(sorted((set(label_counts) | set(counts)) - {preferred})),
        forms=forms,
        exact_match=wikidata_iri(entry.wikidata) if entry and entry.wikidata else None,
        lexicon_line=entry.line if entry else None,
    )
