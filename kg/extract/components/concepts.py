"""kg_concepts: the typed concept mentions of an abstract, with labels.

Candidates come from these sources, most trusted first:

==============  ========  ==========================================================
source          priority  what
==============  ========  ==========================================================
model           -1        the trained recogniser ``kg_ner`` (kg's guideline, arXiv
                          abstracts): its spans as they are
lexicon         0         known names (``kg/data/lexicon.tsv``) via the span ruler
coined          1         names the paper introduces ("we propose X", "X, a novel ...")
named-dataset   1         "<Name> dataset/benchmark" (``data/concept_patterns.jsonl``)
head            3         noun phrases whose head is a concept noun (``data/concept_heads.tsv``)
                          with a specific modifier: "diffusion models", "OOD detection"
shape           4         CamelCase, digit-bearing and upper-case names (span ruler)
ner             5         in ``rules+model`` mode: the recogniser's spans that hold a
                          name and no rule claimed
==============  ========  ==========================================================

The mode (:data:`kg.extract.model.CONCEPT_MODES`) says which sources run:
the default ``model`` is the recogniser alone, because on the arXiv dev split
the lexicon and coined names add nothing beside it and the head-noun and
shape rules cost more precision than they add recall (README, "Quality,
measured": the ablation); ``rules`` is the recogniser-free pipeline of before.

Overlaps go to the more trusted source, except that a longer rule candidate
of the same type replaces rule spans it contains ("Waymo Open" -> "Waymo Open
dataset"). Short forms defined in the abstract then join their long forms:
both name one concept, typed by whichever of the two was found. Generic
phrases ("our approach", "existing methods") never qualify as rule spans.

Sets ``doc._.kg_concepts``: a list of :class:`kg.extract.spans.ConceptSpan`,
in text order. A recogniser span's confidence is its type's precision on
the dev split (the weights' ``meta.json``).
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from kg.extract.components.acronyms import Acronym
from kg.extract.components.labels import canonical_label, is_plain_phrase
from kg.extract.components.proposed import introduced_names, is_name_like, name_span
from kg.extract.lexicons import Lexicons, load_lexicons
from kg.extract.model import CONCEPT_MODES as MODES
from kg.extract.spans import ConceptSpan

__all__ = ["ConceptRecognizer", "RULE_SPANS_KEY", "NER_TYPES"]

RULE_SPANS_KEY = "kg_rule_spans"
COMPONENT = "kg_concepts"
#: SciERC labels kept, and the type each becomes (OtherScientificTerm and Generic are dropped).
NER_TYPES = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset", "Dataset": "Dataset"}
#: The rule sources each mode keeps beside the model's spans.
_RULE_KINDS = {
    "rules": {"lexicon", "coined", "named-dataset", "head", "shape"},
    "rules+model": {"lexicon", "coined", "named-dataset", "head", "shape"},
    "model": set(),
    "model+lexicon": {"lexicon", "coined"},
    "model+rules": {"lexicon", "coined", "named-dataset", "head", "shape"},
}
_PRIORITY = {"model": -1, "lexicon": 0, "coined": 1, "named-dataset": 1, "head": 3, "shape": 4, "ner": 5}
_CONFIDENCE = {"lexicon": 0.95, "coined": 0.9, "named-dataset": 0.85, "acronym": 0.8, "ner": 0.7, "head": 0.6, "shape": 0.5}
_DATASET_WORDS = {"dataset", "datasets", "benchmark", "benchmarks"}
# Head nouns that add nothing to a known name before them: "the CLIP model".
_NAME_HEADS = {"model", "method", "algorithm", "architecture", "network", "framework", "suite", "corpus", "metric", "score"}
_DATA_NOUNS = {"data", "samples", "examples", "corpora"}


@dataclass
class _Candidate:
    start: int  # token offsets
    end: int
    type: str
    kind: str  # key of _PRIORITY
    rule: str
    label: str | None = None  # fixed label (lexicon names)

    @property
    def key(self) -> tuple[int, int]:
        return (_PRIORITY[self.kind], -(self.end - self.start))

    def overlaps(self, other: _Candidate) -> bool:
        return self.start < other.end and other.start < self.end

    def contains(self, other: _Candidate) -> bool:
        return self.start <= other.start and other.end <= self.end


class ConceptRecognizer:
    """Sets ``doc._.kg_concepts`` from the ruler's spans, ``kg_ner``'s entities,
    concept-headed noun phrases and the abstract's acronyms."""

    def __init__(self, lexicons: Lexicons, mode: str = "rules", confidence: dict[str, float] | None = None):
        if mode not in MODES:
            raise ValueError(f"kg_concepts mode {mode!r} is not one of {', '.join(MODES)}")
        self.lexicons = lexicons
        self.mode = mode
        self.use_ner = mode != "rules"
        # The recogniser leads (its spans win overlaps) unless the rules do.
        self.ner_kind = "ner" if mode == "rules+model" else "model"
        self.kinds = _RULE_KINDS[mode]
        self.ner_confidence = confidence or {}
        self.known = {entry.name: entry for entry in lexicons.known}

    # -- candidates -------------------------------------------------------

    def _is_generic(self, tokens) -> bool:
        return all(
            t.lower_ in self.lexicons.generic_words
            or t.lemma_.lower() in self.lexicons.generic_words
            or t.is_punct
            or t.like_num
            or t.is_stop
            for t in tokens
        )

    def _names_something(self, token: Token) -> bool:
        """Could this token be (part of) a dataset's name? Not a capital that only
        starts a sentence ("Supervised learning datasets"), nor "OOD" in "OOD datasets"."""
        if token.text in self.lexicons.stop_acronyms:
            return False
        return token.pos_ == "PROPN" or (token.text[:1].isupper() and not token.is_sent_start) or any(c.isdigit() for c in token.text)

    def _trim(self, doc: Doc, start: int, end: int) -> int:
        """Skip leading determiners, possessives, generic adjectives and punctuation;
        a generic adjective inside the phrase ends what came before it (a mis-parse:
        "information afford better out-of-distribution generalization")."""
        for i in range(end - 2, start, -1):
            if doc[i].pos_ == "ADJ" and doc[i].lower_ in self.lexicons.generic_words:
                start = i
                break
        while start < end - 1:
            token = doc[start]
            joined = token.whitespace_ == "" and token.i + 1 < len(doc) and doc[token.i + 1].text == "-"
            if not joined and (
                token.is_punct
                or token.like_num
                or token.pos_ in {"DET", "PRON", "CCONJ", "ADP"}
                or token.lower_ in self.lexicons.generic_words
            ):
                start += 1
            else:
                break
        return start

    def _from_rules(self, doc: Doc) -> list[_Candidate]:
        candidates = []
        # Two rulers fill the group, each in its own order: one order, no repeats.
        for span in sorted(set(doc.spans.get(RULE_SPANS_KEY, []))):
            rule = span.id_ or span.label_
            if rule.startswith("lexicon:"):
                entry = self.known[rule[len("lexicon:") :]]
                if entry.name.islower() and span.end < len(doc) and doc[span.end].lower_ in _DATA_NOUNS:
                    continue  # "fine-tuning data" is about data, not the technique
                candidates.append(_Candidate(span.start, span.end, entry.type, "lexicon", rule, entry.name))
            elif rule.startswith("named-dataset"):
                # The name, without the "dataset"/"benchmark" word that announced it.
                start = self._trim(doc, span.start, span.end - 1)
                name = doc[start : span.end - 1]
                # A capital only at the sentence start is not a name ("Supervised learning datasets").
                named = any(self._names_something(t) for t in name)
                if len(name) and named and not self._is_generic(name):
                    candidates.append(_Candidate(start, span.end - 1, "Dataset", "named-dataset", rule))
            elif span.text not in self.lexicons.stop_acronyms:
                name = name_span(span[0]) if len(span) == 1 else span
                candidates.append(_Candidate(name.start, name.end, span.label_, "shape", rule))
        return candidates

    def _from_ner(self, doc: Doc) -> list[_Candidate]:
        candidates = []
        for ent in doc.ents if self.use_ner else ():
            if ent.label_ not in NER_TYPES:
                continue
            if self.ner_kind == "model":
                # Trained on kg's own guideline: its spans are taken as they are (trimming
                # them and dropping "generic" ones cost 1 point of F1 on the arXiv dev split).
                candidates.append(_Candidate(ent.start, ent.end, NER_TYPES[ent.label_], "model", f"model:{ent.label_}"))
                continue
            start = self._trim(doc, ent.start, ent.end)
            tokens = doc[start : ent.end]
            names = any(is_name_like(t) or t.pos_ == "PROPN" for t in tokens)
            if not names or self._is_generic(tokens):
                continue
            candidates.append(_Candidate(start, ent.end, NER_TYPES[ent.label_], "ner", f"ner:{ent.label_}"))
        return candidates

    @staticmethod
    def _phrase_start(head: Token) -> int:
        """Leftmost token of the noun phrase ending at ``head``, read from the
        tags rather than the parse (which often breaks on technical noun
        stacks): nouns, adjectives, numbers, participle modifiers, hyphen-joined
        words and a parenthesised short form extend it to the left."""
        doc, sentence_start = head.doc, head.sent.start
        i = head.i - 1
        while i >= sentence_start:
            token = doc[i]
            if token.text == ")":
                opening = next((j for j in range(i - 1, max(sentence_start, i - 4) - 1, -1) if doc[j].text == "("), None)
                if opening is None:
                    break
                i = opening - 1
                continue
            joined = (not token.whitespace_ and i + 1 < len(doc) and doc[i + 1].text == "-") or (
                i >= 1 and doc[i - 1].text == "-" and not doc[i - 1].whitespace_
            )
            hyphen = token.text == "-" and not token.whitespace_ and i >= 1 and not doc[i - 1].whitespace_
            # A base-form "verb" inside a noun stack is a mis-tagged noun ("multi-view pose estimation").
            stacked_verb = token.tag_ in {"VB", "VBP"} and i >= 1 and doc[i - 1].pos_ in {"NOUN", "ADJ", "PROPN"}
            modifier = (
                token.pos_ in {"NOUN", "PROPN", "ADJ", "NUM", "X"}
                or (token.tag_ in {"VBN", "VBG"} and token.dep_ == "amod")
                or stacked_verb
            )
            if not (hyphen or joined or modifier):
                break
            i -= 1
        return i + 1

    def _from_heads(self, doc: Doc) -> list[_Candidate]:
        candidates = []
        for token in doc:
            kind = self.lexicons.heads.get(token.lemma_.lower()) or self.lexicons.heads.get(token.lower_)
            following = token.doc[token.i + 1] if token.i + 1 < token.sent.end else None
            # "OOD generalization capabilities" is about OOD generalization; "detection models" are models.
            followed_by_noun = (
                following is not None and following.pos_ in {"NOUN", "PROPN"} and following.lemma_.lower() not in self.lexicons.aspect_words
            )
            if not kind or token.pos_ not in {"NOUN", "PROPN", "VERB"} or followed_by_noun:
                continue
            start = self._trim(doc, self._phrase_start(token), token.i + 1)
            modifiers = doc[start : token.i]
            # An unnamed "driving dataset" is not a dataset node; "Waymo dataset" is.
            named = kind != "Dataset" or any(self._names_something(t) for t in modifiers)
            if len(modifiers) and named and not self._is_generic(modifiers):
                # A dataset is named by its modifiers: "Waymo Open" of "Waymo Open datasets".
                end = token.i if kind == "Dataset" else token.i + 1
                candidates.append(_Candidate(start, end, kind, "head", f"head:{token.lemma_.lower()}"))
        return candidates

    def _coined(self, doc: Doc) -> list[_Candidate]:
        return [
            _Candidate(span.start, span.end, kind, "coined", f"coined:{rule}")
            for span, kind, rule in introduced_names(doc)
            if span.text not in self.lexicons.stop_acronyms
        ]

    # -- resolution -------------------------------------------------------

    def _resolve(self, doc: Doc, candidates: list[_Candidate]) -> list[_Candidate]:
        accepted: list[_Candidate] = []
        for candidate in sorted(candidates, key=lambda c: (c.key, c.start)):
            overlapping = [a for a in accepted if a.overlaps(candidate)]
            if not overlapping:
                accepted.append(candidate)
            elif candidate.kind != "ner" and all(
                candidate.contains(a) and a.type == candidate.type and a.kind not in {"coined", "model"} for a in overlapping
            ):
                if len(overlapping) == 1 and overlapping[0].label and self._only_names_it(doc, candidate, overlapping[0]):
                    candidate.label = overlapping[0].label  # "Waymo Open" + "dataset" keeps the known name
                accepted = [a for a in accepted if a not in overlapping] + [candidate]
        return sorted(accepted, key=lambda c: c.start)

    def _only_names_it(self, doc: Doc, outer: _Candidate, inner: _Candidate) -> bool:
        """The words ``outer`` adds to ``inner`` are generic ("the CLIP model", "Waymo Open dataset"),
        so it names the same thing; "LLM policies" does not."""
        extra = [t for t in doc[outer.start : outer.end] if not inner.start <= t.i < inner.end]
        # "deep learning models" are models, not deep learning: only names ("CLIP") absorb a head noun.
        is_name = inner.label is not None and inner.label != inner.label.lower()
        return all(
            t.lower_ in _DATASET_WORDS or t.lower_ in self.lexicons.generic_words or (is_name and t.lemma_.lower() in _NAME_HEADS)
            for t in extra
        )

    def _link_acronyms(self, doc: Doc, chosen: list[_Candidate], acronyms: list[Acronym], expansions: dict[str, str]) -> list[_Candidate]:
        """Give a short form and its long form one concept, and add every bare use of the short form."""
        for acronym in acronyms:
            short = doc.char_span(acronym.short_start, acronym.short_end, alignment_mode="expand")
            long = doc.char_span(acronym.long_start, acronym.long_end, alignment_mode="expand")
            if short is None or long is None:
                continue
            short_c = next((c for c in chosen if c.start == short.start and c.end == short.end), None)
            long_c = next((c for c in chosen if c.start <= long.end - 1 < c.end and c.end <= short.start), None)
            if short_c is None and long_c is None:
                continue
            if long_c is None and short_c is not None:
                # The long form restates a name ("HYPO (HYPerspherical OOD generalization)"): one mention of it.
                chosen = [c for c in chosen if not (long.start <= c.start and c.end <= long.end)]
                chosen.append(
                    _Candidate(
                        long.start,
                        long.end,
                        short_c.type,
                        "coined" if short_c.kind == "coined" else "lexicon",
                        "acronym:long-form",
                        short_c.label,
                    )
                )
            trusted_short = short_c is not None and (short_c.kind in {"lexicon", "coined"} or long_c is None)
            source = short_c if trusted_short else long_c
            assert source is not None  # one of the two was found (checked above)
            if long_c is not None and long_c.start > long.start and source is long_c:
                # "Vision LLMs (VLLMs)": the concept is the whole long form, not its "LLMs"
                chosen = [c for c in chosen if c is long_c or not (long.start <= c.start and c.end <= long.end)]
                long_c.start, long_c.label = long.start, None
            label = source.label or self._label(doc[source.start : source.end], expansions)
            if long_c is not None and short_c is not None and short_c.kind not in {"lexicon", "coined"}:
                short_c.type, short_c.label = long_c.type, label
            if long_c is not None:
                long_c.label = long_c.label or label
            bare = [
                _Candidate(t.i, t.i + 1, source.type, "lexicon", "acronym:short-form", label)
                for t in doc
                if t.text in {acronym.short, acronym.short.rstrip("s")} and not any(c.start <= t.i < c.end for c in chosen)
            ]
            chosen = sorted(chosen + bare, key=lambda c: c.start)
        return chosen

    @staticmethod
    def _coordinate_datasets(doc: Doc, chosen: list[_Candidate]) -> None:
        """Names listed before "... datasets" are datasets too ("the Replica, TUM and Waymo Open datasets")."""
        by_end = {c.end: c for c in chosen}
        for candidate in chosen:
            announced = candidate.end < len(doc) and doc[candidate.end].lower_ in _DATASET_WORDS
            if candidate.type != "Dataset" or not announced:
                continue
            i = candidate.start
            while i >= 1 and doc[i - 1].lower_ in {",", "and", "or"}:
                i -= 1
                while i >= 1 and doc[i - 1].lower_ in {",", "and", "or"}:
                    i -= 1
                listed = by_end.get(i)
                if listed is None:
                    break
                if listed.kind in {"shape", "head", "ner"}:
                    listed.type = "Dataset"
                i = listed.start

    # -- labels -----------------------------------------------------------

    def _expansions(self, doc: Doc, acronyms: list[Acronym]) -> dict[str, str]:
        """Short forms whose long form is an ordinary phrase, mapped to its label."""
        expansions = {}
        for acronym in acronyms:
            long = doc.char_span(acronym.long_start, acronym.long_end, alignment_mode="expand")
            if long is not None and is_plain_phrase(acronym.long):
                label = canonical_label(long)
                expansions[acronym.short] = label
                expansions.setdefault(acronym.short.rstrip("s"), label)
        return expansions

    def _label(self, span: Span, expansions: dict[str, str]) -> str:
        if span.text in self.known:
            return self.known[span.text].name
        return canonical_label(span, expansions)

    def __call__(self, doc: Doc) -> Doc:
        acronyms = [Acronym(*a) for a in doc._.kg_acronyms or []]
        # Only the sources this mode keeps are computed (the head rules cost a pass over the parse).
        rules = (
            (self._from_rules(doc) if self.kinds else [])
            + (self._from_heads(doc) if "head" in self.kinds else [])
            + (self._coined(doc) if "coined" in self.kinds else [])
        )
        candidates = [c for c in rules if c.kind in self.kinds] + self._from_ner(doc)
        expansions = self._expansions(doc, acronyms)  # once per doc, not once per label
        chosen = self._link_acronyms(doc, self._resolve(doc, candidates), acronyms, expansions)
        self._coordinate_datasets(doc, chosen)
        concepts = []
        for c in chosen:
            span = doc[c.start : c.end]
            label = c.label or self._label(span, expansions)
            if c.kind == "model":
                confidence = self.ner_confidence.get(c.type, _CONFIDENCE["ner"])
            else:
                confidence = _CONFIDENCE["acronym" if c.rule.startswith("acronym") else c.kind]
            concepts.append(ConceptSpan(span.start_char, span.end_char, c.type, label, confidence, f"{COMPONENT}#{c.rule}"))
        doc._.kg_concepts = concepts
        return doc


@Language.factory("kg_concepts", default_config={"mode": "rules", "confidence": {}})
def make_concept_recognizer(nlp: Language, name: str, mode: str, confidence: dict[str, float]) -> ConceptRecognizer:
    return ConceptRecognizer(load_lexicons(), mode=mode, confidence=confidence)
