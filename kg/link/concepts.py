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

__all__ = ["ConceptIndex", "ConceptLinker", "PaperConcepts", "link_concepts", "short_form_key", "RULES"]

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
    def __init__(self, lexicon: Sequence[LexiconEntry]):
        self.lexicon: dict[str, LexiconEntry] = {}
        for entry in lexicon:
            for name in (entry.name, *entry.aliases):
                self.lexicon.setdefault(concept_key(name), entry)
        self.meanings: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
        self.corpus_acronyms: dict[str, _CorpusAcronym] = {}

    # -- pass 1: what short forms mean across the corpus ---------------------

    @staticmethod
    def coined(extraction: Extraction, definition: AcronymDefinition) -> bool:
        """The paper introduces the defined name itself ("we propose X (Y)")."""
        return any(m.proposed and m.start < definition.end and definition.start < m.end for m in extraction.mentions)

    def add_definitions(self, extraction: Extraction) -> None:
        for definition in extraction.acronyms:
            if not self.coined(extraction, definition):
                short = short_form_key(definition.short)
                self.meanings[short][concept_key(definition.long_label)][definition.long_label] += 1

    def finish_definitions(self) -> None:
        table = {}
        for short, by_key in self.meanings.items():
            labels = next(iter(by_key.values()))
            # Ambiguous short forms are left alone, and so are those one abstract alone defines:
            # a single definition is too little evidence that the bare form means the same elsewhere.
            if len(by_key) == 1 and sum(labels.values()) >= MIN_DEFINING_ABSTRACTS:
                label = min(labels, key=lambda text: (-labels[text], text))
                table[short] = _CorpusAcronym(label, sum(labels.values()))
        self.corpus_acronyms = table
        self.meanings.clear()

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


def _plural_targets(lowercase: dict[tuple[str, str], bool]) -> dict[tuple[str, str], tuple[str, str]]:
    """Groups whose key ends in a plural of another group's key, same type,
    when every label of the group ends in a lower-case word ("COGS" is a name)."""
    targets = {}
    for (concept_type, key), all_lowercase in lowercase.items():
        if not all_lowercase:
            continue
        head, _, last = key.rpartition("-")
        singulars = [last[:-3] + "y"] if last.endswith("ies") else []
        if last.endswith(("ses", "xes", "ches", "shes")):
            singulars.append(last[:-2])
        if last.endswith("s") and not last.endswith("ss"):
            singulars.append(last[:-1])
        for singular in singulars:
            target = (concept_type, f"{head}-{singular}" if head else singular)
            if target in lowercase:
                targets[(concept_type, key)] = target
                break
    return targets


class PaperConcepts:
    """Which concept each mention and relation end of one paper means."""

    def __init__(self, paper_iri: str):
        self.paper_iri = paper_iri
        self.mentions: dict[tuple[int, int, str], tuple[str, str]] = {}  # (start, end, type) -> (IRI, concept type)
        self.relation_ends: dict[tuple[str, str], str] = {}  # (type, label) -> IRI

    def mention_concept(self, paper_iri: str, mention: Mention) -> str:
        return self.mentions[(mention.start, mention.end, mention.concept_type)][0]

    def mention_type(self, mention: Mention) -> str:
        return self.mentions[(mention.start, mention.end, mention.concept_type)][1]

    def relation_end_concept(self, paper_iri: str, concept_type: str, label: str) -> str:
        return self.relation_ends[(concept_type, label)]


class _Group:
    """What the corpus says about one concept, gathered mention by mention."""

    __slots__ = ("entry", "labels", "form_count", "form_rules", "form_notes", "form_labels")

    def __init__(self) -> None:
        self.entry: LexiconEntry | None = None
        self.labels: Counter = Counter()
        self.form_count: Counter = Counter()
        self.form_rules: dict[str, set[str]] = defaultdict(set)
        self.form_notes: dict[str, set[str]] = defaultdict(set)
        self.form_labels: dict[str, set[str]] = defaultdict(set)


class ConceptLinker:
    """Concept linking in three passes over a build's extractions, so a build
    streams them (from disk) instead of holding them all:

    1. :meth:`add_definitions` for every extraction, then :meth:`finish_definitions`
       (what each short form means across the corpus);
    2. :meth:`add_labels` for every extraction, then :meth:`finish_labels`
       (which concepts exist, so plurals can meet their singulars);
    3. :meth:`link` for every extraction: the concept of each mention and
       relation end of that paper; then :meth:`concepts`.

    Memory grows with the number of distinct concepts and spellings, not
    with the number of mentions.
    """

    def __init__(self, lexicon: Sequence[LexiconEntry] | None = None):
        self._linker = _Linker(load_lexicon() if lexicon is None else lexicon)
        self._lowercase: dict[tuple[str, str], bool] = {}  # concept -> every label ends in a lower-case word
        self._plurals: dict[tuple[str, str], tuple[str, str]] = {}
        self._groups: dict[tuple[str, str], _Group] = defaultdict(_Group)
        self._relation_only: dict[tuple[str, str], _Choice] = {}

    def prepare(self, extractions: Iterable[Extraction]) -> None:
        """Passes 1 and 2 over ``extractions``, which must be iterable twice (a list, a spill file)."""
        for extraction in extractions:
            self.add_definitions(extraction)
        self.finish_definitions()
        for extraction in extractions:
            self.add_labels(extraction)
        self.finish_labels()

    def add_definitions(self, extraction: Extraction) -> None:
        self._linker.add_definitions(extraction)

    def finish_definitions(self) -> None:
        self._linker.finish_definitions()

    def _choices(self, extraction: Extraction) -> tuple[list, list]:
        """(mention, choice, note) for each mention and (type, label, choice) for each relation end."""
        local = {short_form_key(d.short): d for d in extraction.acronyms}
        choices: dict[tuple[str, str], _Choice] = {}
        first_use: dict[tuple[str, str], str] = {}  # extraction label -> label its first mention resolved by
        mentions, ends = [], []

        def choose(concept_type: str, label: str, proposed: bool) -> _Choice:
            if (concept_type, label) not in choices:
                choices[(concept_type, label)] = self._linker.resolve(extraction, concept_type, label, proposed)
            return choices[(concept_type, label)]

        for mention in sorted(extraction.mentions, key=lambda m: (m.start, m.end)):
            label = _mention_label(mention, local)
            first_use.setdefault((mention.concept_type, mention.label or mention.text), label)
            mentions.append((mention, choose(mention.concept_type, label, mention.proposed), _local_acronym_note(mention.text, local)))
        for relation in extraction.relations:
            for concept_type, label in ((relation.head_type, relation.head), (relation.tail_type, relation.tail)):
                ends.append((concept_type, label, choose(concept_type, first_use.get((concept_type, label), label), False)))
        return mentions, ends

    def add_labels(self, extraction: Extraction) -> None:
        mentions, ends = self._choices(extraction)
        for choice in {id(c): c for c in [c for _, c, _ in mentions] + [c for _, _, c in ends]}.values():
            group = (choice.type, choice.key)
            self._lowercase[group] = self._lowercase.get(group, True) and choice.label.split(" ")[-1].islower()

    def finish_labels(self) -> None:
        self._plurals = _plural_targets(self._lowercase)
        self._lowercase.clear()

    def _final(self, choice: _Choice) -> _Choice:
        target = self._plurals.get((choice.type, choice.key))
        if target is not None:
            choice.rules.append("plural in corpus")
            choice.notes.append(f"{choice.label} is a plural of a label the corpus also uses")
            choice.key = target[1]
        return choice

    def link(self, extraction: Extraction) -> PaperConcepts:
        mentions, ends = self._choices(extraction)
        final = {id(c): self._final(c) for c in [c for _, c, _ in mentions] + [c for _, _, c in ends]}
        paper = PaperConcepts(extraction.paper_iri)
        for mention, choice, note in mentions:
            choice = final[id(choice)]
            group_key = (choice.type, choice.key)
            group = self._groups[group_key]
            group.entry = group.entry or choice.entry
            group.labels[choice.label] += 1
            text = mention.text
            group.form_count[text] += 1
            group.form_rules[text].update(choice.rules)
            group.form_notes[text].update(choice.notes)
            group.form_labels[text].add(choice.label)
            if note and concept_key(text) != choice.key and not choice.rules:
                group.form_rules[text].add("acronym in paper")  # extraction already gave the short form its long form's label
                group.form_notes[text].add(note)
            paper.mentions[(mention.start, mention.end, mention.concept_type)] = (concept_iri(*group_key).value, choice.type)
        for concept_type, label, choice in ends:
            choice = final[id(choice)]
            self._relation_only.setdefault((choice.type, choice.key), choice)
            paper.relation_ends[(concept_type, label)] = concept_iri(choice.type, choice.key).value
        return paper

    def concepts(self) -> list[Concept]:
        """Every concept linked so far, by IRI."""
        found = {group: _concept(*group, data) for group, data in self._groups.items()}
        for group, choice in self._relation_only.items():  # a relation end no mention names: its own concept
            if group not in found:
                data = _Group()
                data.entry = choice.entry
                data.labels[choice.label] += 1
                found[group] = _concept(*group, data)
        return sorted(found.values(), key=lambda c: c.iri)


def link_concepts(extractions: Iterable[Extraction], lexicon: Sequence[LexiconEntry] | None = None) -> ConceptIndex:
    """Decide the concepts of ``extractions`` held in memory (a build streams them through :class:`ConceptLinker`)."""
    extractions = list(extractions)
    linker = ConceptLinker(lexicon)
    linker.prepare(extractions)
    mentions, relation_ends = {}, {}
    for extraction in extractions:
        paper = linker.link(extraction)
        mentions.update({(paper.paper_iri, *place): iri for place, (iri, _) in paper.mentions.items()})
        relation_ends.update({(paper.paper_iri, *end): iri for end, iri in paper.relation_ends.items()})
    return ConceptIndex(linker.concepts(), mentions, relation_ends)


def _concept(concept_type: str, key: str, group: _Group) -> Concept:
    entry = group.entry
    label_counts = group.labels
    preferred = entry.name if entry else min(label_counts, key=lambda label: (-label_counts[label], -len(label), label))
    rules, notes = group.form_rules, group.form_notes
    for text in group.form_count:
        if rules[text]:
            continue
        if text == preferred:
            rules[text].add("same label")
        elif entry is not None and concept_key(text) in {concept_key(a) for a in entry.aliases}:
            rules[text].add("alias")  # extraction's span ruler already named it by the lexicon
            notes[text].add(f"{text} is an alias of {entry.name} (lexicon.tsv line {entry.line})")
        else:
            rules[text].add("normalised")
            labels = sorted(group.form_labels[text])
            notes[text].add(f"labelled {', '.join(labels)}; normalised label {key} (case, hyphens, spelling, plural, bracketed short form set aside)")
    forms = tuple(ConceptForm(text, tuple(sorted(rules[text])), tuple(sorted(notes[text])), group.form_count[text]) for text in sorted(group.form_count))
    return Concept(
        iri=concept_iri(concept_type, key).value,
        type=concept_type,
        key=key,
        pref_label=preferred,
        alt_labels=tuple(sorted((set(label_counts) | set(group.form_count)) - {preferred})),
        forms=forms,
        exact_match=wikidata_iri(entry.wikidata) if entry and entry.wikidata else None,
        lexicon_line=entry.line if entry else None,
    )
