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

import functools
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
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
    """ "LLMs" and "LLM" are one short form; "COGS" keeps its capital S."""
    if len(short) > 2 and short.endswith("s") and short[-2].isupper():
        return short[:-1]
    return short


def _is_short_form(word: str) -> bool:
    """ "LLMs", "OoD", "RoPE": mostly capitals; "HYPerspherical" is a coined word."""
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


class ConceptIndex:
    """The concepts of a corpus, and which one each mention and relation end means."""

    def __init__(
        self, concepts: Sequence[Concept], mentions: dict[tuple[str, int, int, str], str], relation_ends: dict[tuple[str, str, str], str]
    ):
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
        self.corpus_acronyms: dict[str, str] = {}  # short form -> the long label the corpus gives it
        self.bare_uses: set[str] = set()  # short forms some label uses undefined, where the table above would apply

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
                table[short] = min(labels, key=lambda text: (-labels[text], text))
        self.corpus_acronyms = table

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
            if not _is_short_form(word) or short in local:
                expanded.append(word)
                continue
            self.bare_uses.add(short)
            meaning = self.corpus_acronyms.get(short)
            if meaning is None or concept_key(word) in self.lexicon:
                expanded.append(word)
                continue
            expanded.append(meaning)
            # No count in the note: it would change with every paper that defines the short form,
            # and so would the notes of every concept it expanded (an incremental build could not keep up).
            choice.notes.append(f"{short} = {meaning}, as {MIN_DEFINING_ABSTRACTS} or more abstracts of the corpus define it, all alike")
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

    def concept_of(self, mention: Mention) -> tuple[str, str]:
        """The mention's concept IRI and type (what :func:`kg.link.hierarchy.hearst_links` asks)."""
        return self.mention_concept(self.paper_iri, mention), self.mention_type(mention)

    def relation_end_concept(self, paper_iri: str, concept_type: str, label: str) -> str:
        return self.relation_ends[(concept_type, label)]


class _Group:
    """What the corpus says about one concept, gathered mention by mention.

    Every field adds up (counts) or unions (sets), so the groups of two parts
    of a corpus merge into the group of the whole: what lets an incremental
    build (:mod:`kg.incremental`) add papers to a stored group.
    """

    __slots__ = ("entry", "labels", "form_count", "form_rules", "form_notes", "form_labels")

    def __init__(self) -> None:
        self.entry: LexiconEntry | None = None
        self.labels: Counter = Counter()
        self.form_count: Counter = Counter()
        self.form_rules: dict[str, set[str]] = defaultdict(set)
        self.form_notes: dict[str, set[str]] = defaultdict(set)
        self.form_labels: dict[str, set[str]] = defaultdict(set)

    def merge(self, other: _Group) -> None:
        self.entry = self.entry or other.entry
        self.labels.update(other.labels)
        self.form_count.update(other.form_count)
        for mine, theirs in (
            (self.form_rules, other.form_rules),
            (self.form_notes, other.form_notes),
            (self.form_labels, other.form_labels),
        ):
            for text, values in theirs.items():
                mine[text] |= values

    def to_json(self) -> str:
        sets = [
            {text: sorted(values) for text, values in by_text.items()} for by_text in (self.form_rules, self.form_notes, self.form_labels)
        ]
        return json.dumps(
            [self.entry.line if self.entry else None, self.labels, self.form_count, *sets], ensure_ascii=False, sort_keys=True
        )

    @classmethod
    def from_json(cls, data: str, entries: dict[int, LexiconEntry]) -> _Group:
        line, labels, form_count, rules, notes, form_labels = json.loads(data)
        group = cls()
        group.entry = entries[line] if line is not None else None
        group.labels.update(labels)
        group.form_count.update(form_count)
        for mine, stored in ((group.form_rules, rules), (group.form_notes, notes), (group.form_labels, form_labels)):
            for text, values in stored.items():
                mine[text] = set(values)
        return group


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
        self._relation_paper: dict[tuple[str, str], str] = {}  # the paper the first such relation end came from

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
            if (choice.type, choice.key) not in self._relation_only:
                self._relation_only[(choice.type, choice.key)] = choice
                self._relation_paper[(choice.type, choice.key)] = extraction.paper_iri
            paper.relation_ends[(concept_type, label)] = concept_iri(choice.type, choice.key).value
        return paper

    def concepts(self) -> list[Concept]:
        """Every concept linked so far, by IRI."""
        found = {group: _concept(*group, data) for group, data in self._groups.items()}
        for group, choice in self._relation_only.items():  # a relation end no mention names: its own concept
            if group not in found:
                found[group] = _concept(*group, _relation_group(choice.label, choice.entry))
        return sorted(found.values(), key=lambda c: c.iri)

    # -- what an incremental build stores and resumes from (kg.incremental) ----

    def definition_rows(self) -> Iterator[tuple[str, str, str, int]]:
        """(short form, long form key, long label, abstracts) of pass 1."""
        for short, by_key in self._linker.meanings.items():
            for key, labels in by_key.items():
                for label, count in labels.items():
                    yield short, key, label, count

    def case_rows(self) -> Iterator[tuple[str, str, bool]]:
        """(type, key, every label ends in a lower-case word) of pass 2."""
        for (concept_type, key), lowercase in self._lowercase.items():
            yield concept_type, key, lowercase

    def group_rows(self) -> Iterator[tuple[str, str, str]]:
        """(type, key, JSON) of every concept some mention names."""
        for (concept_type, key), group in self._groups.items():
            yield concept_type, key, group.to_json()

    def relation_end_rows(self) -> Iterator[tuple[str, str, str, str]]:
        """(type, key, paper IRI, JSON) of the first relation end that resolved to
        each concept, and the paper it came from (a concept no mention names is
        labelled by it)."""
        for (concept_type, key), choice in self._relation_only.items():
            data = json.dumps([choice.label, choice.entry.line if choice.entry else None], ensure_ascii=False)
            yield concept_type, key, self._relation_paper[(concept_type, key)], data

    def resume(self, definition_rows: Iterable[tuple[str, str, str, int]], case_rows: Iterable[tuple[str, str, bool]]) -> None:
        """Start passes 1 and 2 from what a previous build stored, so that adding
        papers' extractions gives the tables of the whole corpus."""
        for short, key, label, count in definition_rows:
            self._linker.meanings[short][key][label] += count
        self._lowercase.update(((t, k), bool(lower)) for t, k, lower in case_rows)

    def bare_short_forms(self) -> set[str]:
        """Short forms some label used without its paper defining them: only for
        these does what the corpus says they mean (pass 1) decide a concept."""
        return set(self._linker.bare_uses)

    def acronym_table(self) -> dict[str, str]:
        """Pass 1's result: short form -> the long label bare uses take (after :meth:`finish_definitions`)."""
        return dict(self._linker.corpus_acronyms)

    def plural_targets(self) -> dict[tuple[str, str], tuple[str, str]]:
        """Pass 2's result: concept -> the concept its plural label joins (after :meth:`finish_labels`)."""
        return dict(self._plurals)

    def touched(self) -> set[tuple[str, str]]:
        """The concepts this linker's :meth:`link` calls named (as mentions or relation ends)."""
        return set(self._groups) | set(self._relation_only)

    def merge_stored(self, concept_type: str, key: str, stored_group: str | None, first_end: str | None) -> tuple[Concept, str | None]:
        """The concept ``(concept_type, key)`` once this linker's papers join a
        stored corpus, given the group that corpus stored for it and the first
        relation end of the whole corpus (JSON or None); and the JSON of the
        merged group (None: no mention names it, a relation end does)."""
        group = _Group.from_json(stored_group, self._entries) if stored_group else None
        if (concept_type, key) in self._groups:
            group = group or _Group()
            group.merge(self._groups[(concept_type, key)])
        if group is not None:
            return _concept(concept_type, key, group), group.to_json()
        concept = self.stored_concept(concept_type, key, None, first_end)
        assert concept is not None  # no mention names it: a relation end does, so first_end is given
        return concept, None

    def stored_concept(self, concept_type: str, key: str, stored_group: str | None, stored_end: str | None) -> Concept | None:
        """The concept a stored corpus had for ``(concept_type, key)``, None if it had none."""
        entries = self._entries
        if stored_group:
            return _concept(concept_type, key, _Group.from_json(stored_group, entries))
        if stored_end:
            label, line = json.loads(stored_end)
            return _concept(concept_type, key, _relation_group(label, entries[line] if line is not None else None))
        return None

    @functools.cached_property
    def _entries(self) -> dict[int, LexiconEntry]:
        """Lexicon entries by line, as groups store them."""
        return {entry.line: entry for entry in self._linker.lexicon.values()}


def _relation_group(label: str, entry: LexiconEntry | None) -> _Group:
    group = _Group()
    group.entry = entry
    group.labels[label] += 1
    return group


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
    # Copies: the group must stay what the corpus said, for a later build to add to (kg.incremental).
    rules = {text: set(group.form_rules.get(text, ())) for text in group.form_count}
    notes = {text: set(group.form_notes.get(text, ())) for text in group.form_count}
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
            notes[text].add(
                f"labelled {', '.join(labels)}; normalised label {key} (case, hyphens, spelling, plural, bracketed short form set aside)"
            )
    forms = tuple(
        ConceptForm(text, tuple(sorted(rules[text])), tuple(sorted(notes[text])), group.form_count[text])
        for text in sorted(group.form_count)
    )
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
