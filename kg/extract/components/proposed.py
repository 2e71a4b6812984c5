"""kg_proposed: which concepts the paper itself introduces.

A concept is proposed when the paper names it as its own contribution ("we
propose/introduce/present X", "X, a novel ...", "dubbed X", "our X", "the
proposed X", and the parts of a proposed method: "X introduces A and B"),
never when the paper only applies it ("we fine-tune with LoRA", "a
framework that uses LLMs", "LLM-based"). Every mention of a proposed
concept's label is marked.

:class:`ProposedMarker` describes each concept label by the cues around its
mentions (:func:`label_features`: the governing verb and its subject, the
words before the mention, the name's shape, whether the lexicon knows it)
and scores the cues with a logistic model (``kg/extract/weights/proposed``,
trained by ``python -m kg.training.proposed train``; the lexicon and
``kg/extract/data/model_families.txt`` say which names already exist). Applying verbs never
make a concept proposed: a label whose every mention is only the object of
an applying verb ("use", "apply", "adopt", "fine-tune with", "based on") is
left unproposed whatever the model says.

:func:`introduced_names` is shared with kg_concepts, which uses it to find
names the paper coins (and their type: a benchmark or dataset when the text
says so, else a method).
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from kg.extract.spans import ConceptSpan
from kg.text import match_key

__all__ = [
    "ProposedMarker",
    "ProposedModel",
    "DEFAULT_WEIGHTS",
    "APPLYING_VERBS",
    "introduced_names",
    "is_name_like",
    "name_span",
    "label_features",
    "known_names",
    "model_families",
]

DEFAULT_WEIGHTS = Path(__file__).resolve().parents[1] / "weights" / "proposed" / "model.json"

INTRODUCING_VERBS = {
    "propose",
    "introduce",
    "present",
    "develop",
    "design",
    "build",
    "create",
    "construct",
    "release",
    "curate",
    "collect",
    "contribute",
}
NAMING_VERBS = {"dub", "call", "name", "term", "coin"}
NEW_WORDS = {"novel", "new", "first"}
DATASET_HEADS = {"benchmark", "dataset", "corpus", "suite", "testbed", "database"}
_NAME_SHAPE = re.compile(r"[A-Z].*[A-Z0-9]|[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]")

# Verb groups the features name (lemmas). Introducing verbs are wider here than
# in introduced_names, which stays as kg_concepts relies on it.
_INTRODUCE = INTRODUCING_VERBS | {
    "formulate",
    "derive",
    "envision",
    "devise",
    "establish",
    "offer",
    "provide",
    "put",
    "synthesize",
    "define",
    "pioneer",
    "unveil",
    "launch",
    "open-source",
    "extend",
}
#: Verbs that apply what exists: their objects are used, never proposed.
APPLYING_VERBS = {
    "use",
    "utilize",
    "utilise",
    "employ",
    "apply",
    "adopt",
    "leverage",
    "fine-tune",
    "finetune",
    "base",
    "exploit",
    "rely",
    "follow",
    "borrow",
    "reuse",
    "inherit",
    "harness",
    "train",
    "prompt",
    "query",
    "run",
    "adapt",
    "distill",
}
_COMPONENT = {
    "incorporate",
    "integrate",
    "comprise",
    "consist",
    "include",
    "contain",
    "feature",
    "combine",
    "equip",
    "couple",
    "unify",
    "introduce",
    "employ",
    "use",
    "propose",
    "leverage",
    "design",
    "construct",
    "build",
    "add",
}
_EVALUATE = {
    "evaluate",
    "compare",
    "benchmark",
    "test",
    "assess",
    "validate",
    "experiment",
    "outperform",
    "surpass",
    "beat",
    "exceed",
    "achieve",
    "improve",
    "reach",
    "attain",
    "yield",
    "deliver",
    "match",
    "rival",
    "show",
    "demonstrate",
    "reduce",
    "enable",
}
_PAPER_NOUNS = {
    "paper",
    "work",
    "study",
    "article",
    "we",
    "letter",
    "report",
    "thesis",
    "contribution",
    "approach",
    "method",
    "framework",
    "system",
    "model",
}
_OWN_WORDS = {"our", "proposed", "novel", "new", "introduced", "presented", "developed", "designed"}
_APPLIED_SUFFIXES = {"based", "driven", "inspired", "powered", "guided", "assisted", "enhanced", "augmented", "style", "like", "generated"}
#: Cues that the paper introduces the concept; without one, an applied concept is never proposed.
_OWN_CUES = {
    "introduced-name",
    "introduced-object",
    "appos-novel",
    "before:our",
    "before:proposed",
    "before:novel",
    "before:new",
    "part-of-proposed",
    "passive-subj:introduce",
    "after:dub",
    "after:call",
    "after:name",
    "after:term",
}
_APPLYING_PREPS = {"with", "using", "via", "through", "from", "by", "upon", "on", "over", "of"}


def is_name_like(token: Token) -> bool:
    """A coined name: capitals past the first letter, or letters with digits."""
    return bool(_NAME_SHAPE.search(token.text)) and any(c.isalpha() for c in token.text)


def _capitalised(token: Token) -> bool:
    return token.text[:1].isupper() and not token.is_sent_start and token.pos_ in {"PROPN", "NOUN", "ADJ"}


def _name_tokens(root: Token) -> list[Span]:
    """Names in the phrase headed by ``root`` (not inside its clauses): coined
    tokens ("LoRA3D") and runs of capitalised words ("Data Maps")."""
    tokens = []
    stack = [root]
    while stack:
        token = stack.pop()
        tokens.append(token)
        stack.extend(
            c for c in token.children if c.dep_ not in {"relcl", "acl", "advcl", "ccomp"} and not (c.dep_ == "prep" and c.lower_ != "as")
        )
    names: list[Span] = []
    run: list[Token] = []
    for word in [*sorted(tokens, key=lambda t: t.i), None]:  # None: the end, which closes the last run
        if word is not None and _capitalised(word) and (not run or word.i == run[-1].i + 1):
            run.append(word)
            continue
        if len(run) > 1:
            names.append(_with_hyphenated_start(run[0].doc[run[0].i : run[-1].i + 1]))
        elif run and is_name_like(run[0]):
            names.append(name_span(run[0]))
        run = [word] if word is not None and _capitalised(word) else []
        if word is not None and not run and is_name_like(word):
            names.append(name_span(word))
    return names


def _with_hyphenated_start(span: Span) -> Span:
    """ "Retrieval-Augmented Semantic Parsing", not "Augmented Semantic Parsing"."""
    doc, start = span.doc, span.start
    while (
        start >= 2
        and doc[start - 1].text == "-"
        and not doc[start - 1].whitespace_
        and not doc[start - 2].whitespace_
        and doc[start - 2].text[:1].isupper()
    ):
        start -= 2
    return doc[start : span.end]


def _type_hint(root: Token) -> str:
    heads = [root, *(c for c in root.children if c.dep_ == "appos")]
    if root.dep_ == "appos":
        heads.append(root.head)
    return "Dataset" if any(t.lemma_.lower() in DATASET_HEADS for t in heads) else "Method"


def name_span(token: Token) -> Span:
    """The name with any hyphen-joined parts ("SC-OmniGS", "GPT-4")."""
    doc = token.doc
    start, end = token.i, token.i + 1
    while start >= 2 and doc[start - 1].text == "-" and not doc[start - 1].whitespace_ and not doc[start - 2].whitespace_:
        start -= 2
    while end + 1 < len(doc) and doc[end].text == "-" and not doc[end - 1].whitespace_ and not doc[end].whitespace_:
        end += 2
    return doc[start:end]


def _subject_is_we(verb: Token) -> bool:
    """ "we propose X", and "we investigate Y and introduce X" (the subject is the first verb's)."""
    while True:
        if any(c.dep_ == "nsubj" and c.lower_ == "we" for c in verb.children):
            return True
        if verb.dep_ != "conj" or verb.head.pos_ not in {"VERB", "AUX"}:
            return False
        verb = verb.head


def introduced_names(doc: Doc) -> list[tuple[Span, str, str]]:
    """(name span, type hint, rule id) for every name the abstract introduces."""
    found: dict[int, tuple[Span, str, str]] = {}
    for verb in doc:
        lemma = verb.lemma_.lower()
        if lemma in INTRODUCING_VERBS and _subject_is_we(verb):
            for obj in (c for c in verb.children if c.dep_ in {"dobj", "attr"}):
                for name in _name_tokens(obj):
                    found.setdefault(name.start, (name, _type_hint(obj), "we-propose"))
                # "a solution for X, LM-Infinite, which ...": a name in apposition deeper in the phrase.
                for token in obj.subtree:
                    if token.dep_ == "appos" and is_name_like(token):
                        name = name_span(token)
                        found.setdefault(name.start, (name, _type_hint(obj), "we-propose"))
        elif lemma in NAMING_VERBS and verb.tag_ in {"VBN", "VBD", "VBZ", "VBP"}:
            for token in (t for c in verb.children if c.dep_ in {"oprd", "dobj", "attr", "xcomp"} for t in c.subtree):
                if is_name_like(token):
                    found.setdefault(token.i, (name_span(token), "Method", "dubbed"))
    for token in doc:
        appositions = [c for c in token.children if c.dep_ == "appos"]
        for appos in appositions:
            new = any(c.lower_ in NEW_WORDS for c in appos.children)
            if new and is_name_like(token):
                found.setdefault(token.i, (name_span(token), _type_hint(appos), "name-a-novel"))
    return sorted(found.values(), key=lambda item: item[0].start)


# -- cues around a mention ---------------------------------------------------------


def _verb_group(lemma: str) -> str:
    if lemma in _INTRODUCE:
        return "introduce"
    if lemma in NAMING_VERBS:
        return "name"
    if lemma in APPLYING_VERBS:
        return "apply"
    if lemma in _EVALUATE:
        return "evaluate"
    return "other"


def _governor(token: Token) -> tuple[Token | None, list[str]]:
    """The verb that governs the phrase ``token`` heads, and the path to it:
    dependency labels, a preposition as ``prep:with``."""
    path: list[str] = []
    for _ in range(8):
        if token.head is token:
            return None, path
        path.append(f"prep:{token.head.lower_}" if token.dep_ == "pobj" else token.dep_)
        token = token.head
        if token.pos_ in {"VERB", "AUX"}:
            return token, path
    return None, path


def _subject(verb: Token) -> Token | None:
    """The verb's subject, through conjoined verbs and relative clauses ("a framework that uses X": framework)."""
    for _ in range(4):
        subjects = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass", "csubj"}]
        if subjects:
            subject = subjects[0]
            if subject.tag_ in {"WDT", "WP"} and verb.dep_ in {"relcl", "acl"}:
                return verb.head
            return subject
        if verb.dep_ in {"conj", "xcomp", "advcl"} and verb.head.pos_ in {"VERB", "AUX"}:
            verb = verb.head
        elif verb.dep_ in {"relcl", "acl"}:
            return verb.head
        else:
            return None
    return None


def _subject_kind(subject: Token | None, seeds: set[int]) -> str:
    if subject is None:
        return "none"
    if subject.lower_ == "we":
        return "we"
    if subject.i in seeds or any(t.i in seeds for t in subject.subtree if t.head.i == subject.i and t.dep_ in {"compound", "appos"}):
        return "seed"
    words = {t.lower_ for t in subject.subtree}
    if subject.lower_ in {"it", "its"}:
        return "it"
    if subject.lemma_.lower() in _PAPER_NOUNS and words & {"this", "our", "proposed"}:
        return "paper"
    return "other"


def _shape(span: Span) -> str:
    if any(is_name_like(t) for t in span):
        return "coined"
    words = [t for t in span if t.is_alpha]
    if words and all(t.text[:1].isupper() for t in words):
        return "title" if len(words) > 1 else "capital"
    return "lower"


_MODIFIER_DEPS = {"compound", "amod", "nmod", "poss", "npadvmod", "nummod", "quantmod"}
_PARTS_NOUNS = {
    "component",
    "module",
    "mode",
    "stage",
    "innovation",
    "layer",
    "contribution",
    "enhancement",
    "part",
    "step",
    "mechanism",
    "strategy",
    "technique",
    "block",
    "agent",
    "phase",
    "level",
    "design",
    "element",
    "pillar",
    "branch",
    "subsystem",
}
_ENUMERATOR = re.compile(r"^\(?([ivx]{1,4}|[1-9]|[a-e])\)$")
#: Cues strong enough to make a label a seed: its mentions are what "it", "its"
#: and "X introduces ..." refer to.
_SEED_CUES = {
    "introduced-name",
    "introduced-object",
    "appos-novel",
    "after:dub",
    "after:call",
    "after:name",
    "after:term",
    "before:proposed",
}


def _describes_a_name(span: Span) -> bool:
    """A description beside a name ("A4Net, a deep representation network";
    "a novel reranking model, called MVP"): the name is the concept, not its description."""
    root, doc = span.root, span.doc
    if is_name_like(root) or root.pos_ == "PROPN":
        return False
    partners = [c for c in root.children if c.dep_ == "appos"] + ([root.head] if root.dep_ == "appos" else [])
    if any(is_name_like(p) or p.pos_ == "PROPN" for p in partners):
        return True
    after = doc[span.end : span.end + 3]
    return any(t.lemma_.lower() in NAMING_VERBS for t in after) and any(is_name_like(t) for t in doc[span.end : span.end + 5])


def _in_parts_list(span: Span) -> bool:
    """A listed part: "two key components: (i) A ... (ii) B", "three modules: A, B and C"."""
    sent = span.sent
    before = span.doc[sent.start : span.start]
    if any(
        _ENUMERATOR.match(t.text) or (t.text in {"("} and t.i + 2 < len(span.doc) and _ENUMERATOR.match(f"({span.doc[t.i + 1].text})"))
        for t in before
    ):
        return True
    return any(t.text == ":" for t in before) and any(t.lemma_.lower() in _PARTS_NOUNS for t in before)


def _mention_features(span: Span, seeds: set[int], introduced: set[int]) -> set[str]:
    doc = span.doc
    root = span.root
    feats: set[str] = set()
    modifier = root.dep_ in _MODIFIER_DEPS and not (span.start <= root.head.i < span.end)
    if modifier:
        feats.add("modifier")  # "authentication" in "a new authentication method"
    if any(t.i in introduced for t in span):
        feats.add("introduced-name" if not modifier else "introduced-name:modifier")
    before = [t.lower_ for t in doc[max(span.sent.start, span.start - 3) : span.start]]
    for word in _OWN_WORDS & set(before):
        feats.add(f"before:{word}")
    if span.start > 0 and doc[span.start - 1].lemma_.lower() in NAMING_VERBS | {"as"}:
        feats.add(f"after:{doc[span.start - 1].lemma_.lower()}")
    # "LLM-based", "AI-driven", "Large Language Model (LLM)-based": what the method is built from.
    after = span.end
    if after < len(doc) and doc[after].text == "(":
        close = next((t.i for t in doc[after : after + 6] if t.text == ")"), None)
        after = close + 1 if close is not None else after
    if after + 1 < len(doc) and doc[after].text == "-" and doc[after + 1].lower_ in _APPLIED_SUFFIXES:
        feats.add("applied-suffix")
    if len(span) > 2 and span[-2].text == "-" and span[-1].lower_ in _APPLIED_SUFFIXES:
        feats.add("applied-suffix")
    if _describes_a_name(span):
        feats.add("describes-name")
    if _in_parts_list(span):
        feats.add("parts-list")
    if span.end < len(doc) and doc[span.end].text == "(" and span.end + 1 < len(doc) and doc[span.end + 1].text.isupper():
        feats.add("defines-acronym")
    # Apposition: "X, a novel framework" / "a novel framework, X".
    partners = [c for c in root.children if c.dep_ == "appos"] + ([root.head] if root.dep_ == "appos" else [])
    for partner in partners:
        if any(c.lower_ in NEW_WORDS or c.lower_ in {"our", "proposed"} for c in partner.children):
            feats.add("appos-novel")
        if partner.lemma_.lower() in DATASET_HEADS:
            feats.add("appos-dataset")
        if partner.i in seeds:
            feats.add("appos-seed")
    if any(c.lower_ in {"its", "their"} for c in root.children) and any(t.i in seeds for t in span.sent if t.i < span.start):
        feats.add("its-after-proposed")
    verb, path = _governor(root)
    if verb is None:
        feats.add("verb:none")
        return feats
    group = _verb_group(verb.lemma_.lower())
    subject = _subject(verb)
    kind = _subject_kind(subject, seeds)
    is_subject = bool(path) and path[-1] in {"nsubj", "nsubjpass"} and subject is not None and root in subject.subtree
    feats.add(f"verb:{group}")
    if is_subject and path[-1] == "nsubjpass":
        feats.add(f"passive-subj:{group}")
    elif is_subject:
        feats.add(f"subj-of:{group}")
    else:
        preps = [p for p in path if p.startswith("prep:")]
        direct = not preps or preps == ["prep:as"]
        role = "modifier" if modifier else "obj" if direct else "prep"
        feats.add(f"{group}:{kind}:{role}")
        if not direct and preps[-1][5:] in _APPLYING_PREPS:
            feats.add(f"{group}:{preps[-1]}")
        if group == "introduce" and role == "obj" and kind in {"we", "paper", "seed", "it"}:
            feats.add("introduced-object")
        if group == "apply":
            feats.add("applied-object" if direct else "applied-prep")
        if kind in {"seed", "it"} and verb.lemma_.lower() in _COMPONENT and role == "obj":
            feats.add("part-of-proposed")
    return feats


def _family(name: str) -> str:
    """ "qwen" for "Qwen2.5-7B", "gpt" for "GPT-4o": the letters the name starts with, folded."""
    match = re.match(r"[A-Za-z]+", name)
    return match.group(0).lower() if match else ""


def label_features(
    doc: Doc, concepts: Iterable[ConceptSpan], known: frozenset[str] = frozenset(), families: frozenset[str] = frozenset()
) -> dict[str, set[str]]:
    """The cues of each concept label over all its mentions (the union of its
    mentions' cues, plus label cues: type, name shape, mention count, first
    sentence, known to the lexicon). Two passes: the first finds seed labels
    (introduced by "we propose", "X, a novel ...", "dubbed X"), the second
    adds the cues that refer to them ("X introduces A", "its B")."""
    concepts = list(concepts)
    introduced = {t.i for span, _, _ in introduced_names(doc) for t in span}
    counts = Counter(c.label for c in concepts)
    sentence_starts = [s.start for s in doc.sents]
    mentions: list[tuple[str, Span]] = []
    base: dict[str, set[str]] = {}
    for concept in concepts:
        span = doc.char_span(concept.start, concept.end, alignment_mode="expand")
        if span is None or not len(span):
            continue
        mentions.append((concept.label, span))
        if concept.label not in base:
            sentence = bisect_right(sentence_starts, span.start) - 1
            base[concept.label] = {
                f"type:{concept.type}",
                f"mentions:{min(counts[concept.label], 3)}",
                f"first-sentence:{min(sentence, 3)}",
            }
            if match_key(concept.label) in known:
                base[concept.label].add("known")
            if _family(concept.label) in families or _family(span.text) in families:
                base[concept.label].add("model-family")
        base[concept.label].add(f"shape:{_shape(span)}")
    first: dict[str, set[str]] = {label: set() for label in base}
    for label, span in mentions:
        first[label] |= _mention_features(span, set(), introduced)
    seed_labels = {label for label, feats in first.items() if feats & _SEED_CUES and "known" not in base[label]}
    seeds = {t.i for label, span in mentions if label in seed_labels for t in span}
    features = {label: set(feats) for label, feats in base.items()}
    for label, span in mentions:
        features[label] |= _mention_features(span, seeds, introduced)
    for feats in features.values():
        if feats & {"applied-object", "applied-prep", "applied-suffix"} and not feats & _OWN_CUES:
            feats.add("only-applied")
    return features


class ProposedModel:
    """A logistic model over label cues: weight per cue, a bias and a threshold."""

    def __init__(self, weights: dict[str, float], bias: float, threshold: float = 0.5):
        self.weights, self.bias, self.threshold = weights, bias, threshold

    @classmethod
    def load(cls, path: str | Path = DEFAULT_WEIGHTS) -> ProposedModel:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(data["weights"], data["bias"], data["threshold"])

    def to_dict(self) -> dict:
        return {"bias": self.bias, "threshold": self.threshold, "weights": dict(sorted(self.weights.items()))}

    def score(self, features: Iterable[str]) -> float:
        z = self.bias + sum(self.weights.get(f, 0.0) for f in features)
        return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))


class ProposedMarker:
    """Marks ``proposed`` on ``doc._.kg_concepts`` whose label the paper introduces
    (sets nothing else; reads the parse and ``doc._.kg_concepts``)."""

    def __init__(self, model: ProposedModel, known: frozenset[str] = frozenset(), families: frozenset[str] = frozenset()):
        self.model = model
        self.known = known
        self.families = families

    def proposed_labels(self, doc: Doc, concepts: list[ConceptSpan]) -> dict[str, float]:
        """The score of each proposed label (labels at or above the model's threshold)."""
        scores = {}
        for label, feats in label_features(doc, concepts, self.known, self.families).items():
            if "only-applied" in feats:
                continue  # applying verbs never make a concept proposed
            score = self.model.score(feats)
            if score >= self.model.threshold:
                scores[label] = score
        return scores

    def __call__(self, doc: Doc) -> Doc:
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
        labels = self.proposed_labels(doc, concepts)
        doc._.kg_concepts = [c._replace(proposed=c.label in labels) for c in concepts]
        return doc


def known_names() -> frozenset[str]:
    """The lexicon's names and aliases, folded: concepts that exist before any paper."""
    from kg.extract.lexicons import load_lexicons

    return frozenset(match_key(n) for e in load_lexicons().known for n in (e.name, *e.aliases))


def model_families(path: Path | None = None) -> frozenset[str]:
    """The first words of well-known pretrained models' names (``kg/extract/data/model_families.txt``)."""
    from kg.extract.lexicons import DATA_DIR

    lines = Path(path or DATA_DIR / "model_families.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().lower() for line in lines if line.strip() and not line.startswith("#"))


@Language.factory("kg_proposed", default_config={"weights": str(DEFAULT_WEIGHTS)})
def make_proposed_marker(nlp: Language, name: str, weights: str) -> ProposedMarker:
    return ProposedMarker(ProposedModel.load(weights), known_names(), model_families())
