"""kg_paper_relations: what the paper's own method addresses, is evaluated on and builds on.

Sentence-level relations need one sentence naming both ends; an abstract
often names its method once ("We propose X.") and its datasets elsewhere
("Experiments on D and E show ..."). This component relates the paper's
proposed Method (the *head*) to concepts anywhere in the abstract:

==============  ==================  ===========================================
relation        head -> tail        the tail
==============  ==================  ===========================================
usedFor         Method -> Task      a task the method addresses
evaluatedOn     Method -> Dataset   a dataset the method is evaluated on
uses            Method -> Method    a method it builds on or uses
==============  ==================  ===========================================

The head is the proposed Method label (``proposed`` set by ``kg_proposed``)
mentioned most often, the earliest on a tie; an abstract with none gets no
paper-level relations. Every concept of a tail type that is not proposed
(a proposed Dataset may be a tail: "we introduce bench D ... X on D") is a
candidate, described by :func:`candidate_features`: where its mentions
stand against the sentence that first names the head, and the cue words of
their sentences (background: "existing", "however"; comparison:
"outperforms", "baseline"; evaluation: "experiments", "on"; use: "built
on", "leverages"). :func:`keep` decides from those features (rules measured
on kg's arXiv train split, chosen on dev: ``docs/experiments/paper-relations.md``).

The evidence of each relation is its *supporting sentence*: of the tail's
mentions, the one whose sentence names it in that role (an evaluation cue
for a dataset, the head or a use cue for a method), else its first mention
after the head's introduction, else its first.

A relation a sentence-level component (``kg_relations``,
``kg_relation_model``, which run before) already found with the same head
label, type and tail label is not repeated.

Adds to ``doc._.kg_relations``: :class:`kg.extract.spans.RelationSpan`
tuples with source ``kg_paper_relations#<rule>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.extract.spans import ConceptSpan, RelationSpan

__all__ = ["COMPONENT", "RULES", "TAIL_TYPES", "PaperCandidate", "PaperRelationFinder", "candidate_features", "head_method", "keep"]

COMPONENT = "kg_paper_relations"
#: Relation -> the tail's type (the head is always the proposed Method).
TAIL_TYPES = {"usedFor": "Task", "evaluatedOn": "Dataset", "uses": "Method"}

# Cue words, as lower-case lemmas (or words) of a sentence.
BACKGROUND = frozenset(
    [
        "however",
        "existing",
        "prior",
        "previous",
        "traditional",
        "conventional",
        "while",
        "although",
        "though",
        "despite",
        "current",
        "typically",
        "often",
        "usually",
        "recent",
        "recently",
        "remain",
        "struggle",
        "suffer",
        "limit",
        "limitation",
        "fail",
        "challenge",
        "lack",
        "yet",
        "but",
    ]
)
COMPARISON = frozenset(
    [
        "outperform",
        "surpass",
        "beat",
        "exceed",
        "outstrip",
        "than",
        "baseline",
        "compare",
        "comparison",
        "against",
        "unlike",
        "instead",
        "replace",
        "rather",
        "competitive",
        "state-of-the-art",
        "sota",
        "over",
        "superior",
    ]
)
EVALUATION = frozenset(
    [
        "experiment",
        "evaluate",
        "evaluation",
        "benchmark",
        "test",
        "result",
        "achieve",
        "demonstrate",
        "show",
        "extensive",
        "empirical",
        "empirically",
        "validate",
        "conduct",
        "report",
        "performance",
    ]
)
USING = frozenset(
    [
        "use",
        "leverage",
        "employ",
        "adopt",
        "utilize",
        "utilise",
        "build",
        "base",
        "upon",
        "extend",
        "incorporate",
        "integrate",
        "combine",
        "fine-tune",
        "finetune",
        "rely",
        "exploit",
        "equip",
        "initialize",
        "backbone",
        "via",
        "couple",
        "harness",
        "apply",
        "inspire",
        "draw",
    ]
)
EXAMPLE = frozenset({"e.g.", "e.g", "such", "include", "including", "like"})
SELF_WORDS = frozenset({"our", "we", "ours"})
EVALUATION_PREPOSITIONS = frozenset({"on", "across", "over"})
TASK_PREPOSITIONS = frozenset({"for", "to", "towards", "toward"})
#: Words just before a mention that make it the other side of a comparison ("improves over X").
COMPARED_BEFORE = frozenset({"over", "than", "against", "unlike", "versus", "vs", "vs.", "beyond"})
COMPARED_VERBS = frozenset({"outperform", "surpass", "beat", "exceed", "outstrip", "rival", "match", "replace", "compare", "comparison"})
#: Modifiers that put a mention in the background ("existing X", "traditional X").
OLD_MODIFIERS = frozenset(
    {
        "existing",
        "traditional",
        "conventional",
        "prior",
        "previous",
        "standard",
        "current",
        "vanilla",
        "classical",
        "classic",
        "typical",
        "popular",
        "mainstream",
        "other",
        "baseline",
    }
)
USED_BEFORE = frozenset(
    {
        "with",
        "via",
        "using",
        "upon",
        "through",
        "by",
        "leveraging",
        "employing",
        "adopting",
        "utilizing",
        "combining",
        "integrating",
        "from",
    }
)


@dataclass
class PaperCandidate:
    """One tail label for the head: its mentions (indexes into the concept list) and features."""

    relation: str
    label: str
    mentions: list[int]
    features: dict[str, float] = field(default_factory=dict)
    evidence: int = -1  # the supporting mention's sentence number


def head_method(concepts: Sequence[ConceptSpan]) -> int | None:
    """The index of the first mention of the paper's main proposed Method:
    the proposed Method label mentioned most often (earliest first on a tie)."""
    counts: dict[str, list[int]] = {}
    for i, c in enumerate(concepts):
        if c.proposed and c.type == "Method":
            counts.setdefault(c.label, []).append(i)
    if not counts:
        return None
    best = max(counts.values(), key=lambda ids: (len(ids), -concepts[ids[0]].start))
    return best[0]


def _sentence_cues(sentence: Span) -> set[str]:
    words = {t.lemma_.lower() for t in sentence} | {t.lower_ for t in sentence}
    cues = set()
    for name, vocabulary in (
        ("background", BACKGROUND),
        ("compare", COMPARISON),
        ("evaluate", EVALUATION),
        ("use", USING),
        ("example", EXAMPLE),
        ("self", SELF_WORDS),
    ):
        if words & vocabulary:
            cues.add(name)
    return cues


def _preposition(span: Span | None) -> str:
    """The preposition the mention hangs from ("on" in "experiments on D"), or ''."""
    if span is None:
        return ""
    root = span.root
    # "on D and E": the second conjunct's preposition is its first conjunct's.
    while root.dep_ == "conj" and root.head != root:
        root = root.head
    head = root.head
    return head.lower_ if root.dep_ == "pobj" and head.dep_ == "prep" else ""


def _mention_roles(span: Span | None, head_roots: set[int]) -> set[str]:
    """What one mention's context says of its role: compared against, background, used, the head's description."""
    if span is None:
        return set()
    doc = span.doc
    roles = set()
    before = [t.lower_ for t in doc[max(span.sent.start, span.start - 3) : span.start]]
    if set(before) & COMPARED_BEFORE:
        roles.add("compared")
    if set(before[-2:]) & USED_BEFORE:
        roles.add("used_word")
    words = {t.lower_ for t in span} | {c.lower_ for c in span.root.children}
    if before[-1:] and before[-1] in OLD_MODIFIERS:
        words.add(before[-1])
    if words & OLD_MODIFIERS:
        roles.add("old")
    for ancestor in span.root.ancestors:
        lemma = ancestor.lemma_.lower()
        if lemma in COMPARED_VERBS or lemma == "baseline":
            roles.add("compared")
        if ancestor.pos_ in {"VERB", "AUX"} and lemma not in {"include", "such"}:
            if lemma in USING:
                roles.add("used_verb")
            break
    root = span.root
    if root.dep_ in {"appos", "attr"} and (
        root.head.i in head_roots or any(c.i in head_roots for c in root.head.children if c.dep_ == "nsubj")
    ):
        roles.add("describes_head")
    if root.dep_ in {"nsubj", "nsubjpass"}:
        roles.add("subject")
    return roles


def candidate_features(doc: Doc, concepts: Sequence[ConceptSpan], head: int) -> list[PaperCandidate]:
    """Every tail candidate of the head ``head`` (an index into ``concepts``), with its features."""
    sentences = list(doc.sents)
    starts = [s.start_char for s in sentences]
    head_label = concepts[head].label

    def number(char: int) -> int:
        low, high = 0, len(starts) - 1
        while low < high:
            mid = (low + high + 1) // 2
            if starts[mid] <= char:
                low = mid
            else:
                high = mid - 1
        return low

    where = [number(c.start) for c in concepts]
    head_sentences = {where[i] for i, c in enumerate(concepts) if c.label == head_label}
    head_roots = set()
    for c in concepts:
        if c.label == head_label and (span := doc.char_span(c.start, c.end, alignment_mode="expand")) is not None:
            head_roots.add(span.root.i)
    intro = min(head_sentences)
    cues = [_sentence_cues(s) for s in sentences]
    last = len(sentences) - 1
    by_label: dict[tuple[str, str], list[int]] = {}
    for i, c in enumerate(concepts):
        if c.label == head_label:
            continue
        for relation, kind in TAIL_TYPES.items():
            if c.type != kind or (c.proposed and kind != "Dataset"):
                continue
            by_label.setdefault((relation, c.label), []).append(i)
    found = []
    for (relation, label), mentions in by_label.items():
        numbers = [where[i] for i in mentions]
        spans = [doc.char_span(concepts[i].start, concepts[i].end, alignment_mode="expand") for i in mentions]
        preps = {_preposition(s) for s in spans}
        seen = set(numbers)
        roles = [_mention_roles(s, head_roots) for s in spans]
        f = {
            "mentions": min(len(mentions), 4) / 4,
            "with_head": float(bool(seen & head_sentences)),
            "after_intro": float(any(n > intro for n in numbers)),
            "at_intro": float(intro in seen),
            "only_before": float(all(n < intro for n in numbers)),
            "first_sentence": float(0 in seen),
            "last_sentence": float(last in seen and last > 0),
            "proposed": float(any(concepts[i].proposed for i in mentions)),
            "eval_prep": float(bool(preps & EVALUATION_PREPOSITIONS)),
            "task_prep": float(bool(preps & TASK_PREPOSITIONS)),
        }
        for role in ("compared", "used_word", "used_verb", "old", "describes_head", "subject"):
            f[f"any_{role}"] = float(any(role in r for r in roles))
            f[f"all_{role}"] = float(all(role in r for r in roles))
        for cue in ("background", "compare", "evaluate", "use", "example", "self"):
            f[f"any_{cue}"] = float(any(cue in cues[n] for n in seen))
            f[f"all_{cue}"] = float(all(cue in cues[n] for n in seen))
        candidate = PaperCandidate(relation, label, mentions, f)
        candidate.evidence = _evidence(relation, numbers, cues, head_sentences, intro)
        found.append(candidate)
    return found


def _evidence(relation: str, numbers: list[int], cues: list[set[str]], head_sentences: set[int], intro: int) -> int:
    role = {"evaluatedOn": "evaluate", "uses": "use", "usedFor": "self"}[relation]
    ordered = sorted(set(numbers))
    for test in (
        lambda n: n in head_sentences and role in cues[n],
        lambda n: role in cues[n] and n >= intro,
        lambda n: n in head_sentences,
        lambda n: n >= intro,
    ):
        hit = next((n for n in ordered if test(n)), None)
        if hit is not None:
            return hit
    return ordered[0]


#: (rule id, confidence) of each way a candidate is kept; the confidence is the
#: rule's precision on kg's arXiv train split (730 abstracts), given gold concepts (rounded).
RULES = {
    "dataset": 0.91,  # a Dataset the paper does not introduce
    "own-dataset-evaluated": 0.77,  # a Dataset it introduces, in an evaluation sentence
    "task": 0.75,  # every Task
    "method-at-introduction": 0.86,  # a Method named in the sentence introducing the head
    "method-used-with": 0.73,  # "with / via / using / upon X"
    "method": 0.7,  # any other Method that is neither only compared against nor only background
}


def keep(candidate: PaperCandidate) -> str | None:
    """The rule (a key of :data:`RULES`) that keeps ``candidate``, or None."""
    f = candidate.features
    if candidate.relation == "evaluatedOn":
        if not f["proposed"]:
            return "dataset"
        return "own-dataset-evaluated" if f["any_evaluate"] else None
    if candidate.relation == "usedFor":
        return "task"
    if f["at_intro"]:
        return "method-at-introduction"
    if f["any_used_word"]:
        return "method-used-with"
    if f["all_compared"] or (f["any_compared"] and not f["any_used_verb"]):
        return None  # a baseline: "outperforms X", "improves over X"
    if f["only_before"] and not f["any_self"]:
        return None  # background, before the method is introduced
    return "method"


class PaperRelationFinder:
    """Adds paper-level relations of the proposed Method to ``doc._.kg_relations``."""

    def __call__(self, doc: Doc) -> Doc:
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
        relations = [RelationSpan(*r) for r in doc._.kg_relations or []]
        head = head_method(concepts)
        if head is None:
            return doc
        known = {(concepts[r.head].label, r.relation, concepts[r.tail].label) for r in relations}
        sentences = list(doc.sents)
        added = []
        for candidate in candidate_features(doc, concepts, head):
            rule = keep(candidate)
            if rule is None or (concepts[head].label, candidate.relation, candidate.label) in known:
                continue
            sentence = sentences[candidate.evidence]
            tail = next(
                (i for i in candidate.mentions if sentence.start_char <= concepts[i].start < sentence.end_char), candidate.mentions[0]
            )
            added.append(
                RelationSpan(head, candidate.relation, tail, sentence.start_char, sentence.end_char, RULES[rule], f"{COMPONENT}#{rule}")
            )
        doc._.kg_relations = relations + sorted(added)
        return doc


@Language.factory(COMPONENT)
def make_paper_relation_finder(nlp: Language, name: str) -> PaperRelationFinder:
    return PaperRelationFinder()
