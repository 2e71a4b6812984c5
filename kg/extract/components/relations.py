"""kg_relations: relations between the concepts of one sentence, where the text states them.

==============  =====================  ==============================================
relation        head -> tail           evidence in the sentence
==============  =====================  ==============================================
evaluatedOn     Method -> Dataset      an evaluation cue ("evaluate", "experiments",
                                       "achieves" ...) and both concepts
usedFor         Method -> Task         the task hangs off the method (or its verb)
                                       through "for/to/in/on", or a verb such as
                                       "address"/"apply" links them
uses            Method -> Method       "we/X use/leverage/fine-tune ... Y"
outperforms     Method -> Method       "X outperforms/surpasses Y"
==============  =====================  ==============================================

"Our method", "our approach", "we" ... stand for the paper's proposed method
when it has exactly one. Cue words live in ``data/relation_cues.jsonl``.

Sets ``doc._.kg_relations``: a list of :class:`kg.extract.spans.RelationSpan`.
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from kg.extract.components.proposed import INTRODUCING_VERBS
from kg.extract.lexicons import DATA_DIR, read_jsonl
from kg.extract.spans import ConceptSpan, RelationSpan

__all__ = ["RelationFinder"]

COMPONENT = "kg_relations"
SELF_REFERENCES = {
    "method",
    "approach",
    "model",
    "framework",
    "system",
    "pipeline",
    "algorithm",
    "technique",
    "architecture",
    "solution",
    "paradigm",
    "tool",
}


class RelationFinder:
    def __init__(self, cues: list[dict]):
        self.cues = {cue["relation"]: cue for cue in cues}

    @staticmethod
    def _self_reference(sentence: Span) -> Token | None:
        """A token in the sentence that stands for the paper's own method."""
        for token in sentence:
            own_noun = token.lemma_.lower() in SELF_REFERENCES
            if own_noun and any(c.lower_ in {"our", "this", "proposed"} for c in token.children):
                return token
            if own_noun and token.dep_ == "dobj" and token.head.lemma_.lower() in INTRODUCING_VERBS:
                return token  # "we propose a simple solution for ..."
            if token.lower_ in {"we", "it"} and token.dep_ in {"nsubj", "nsubjpass"}:
                return token
        return None

    def _relation(self, kind: str, head: int, tail: int, sentence: Span) -> RelationSpan:
        cue = self.cues[kind]
        return RelationSpan(head, kind, tail, sentence.start_char, sentence.end_char, cue["confidence"], f"{COMPONENT}#{cue['id']}")

    def __call__(self, doc: Doc) -> Doc:
        concepts = [ConceptSpan(*c) for c in doc._.kg_concepts or []]
        proposed_methods = sorted({i for i, c in enumerate(concepts) if c.proposed and c.type == "Method"}, key=lambda i: concepts[i].start)
        own = proposed_methods[0] if len({concepts[i].label for i in proposed_methods}) == 1 else None
        relations: list[RelationSpan] = []
        for sentence in doc.sents:
            inside = [i for i, c in enumerate(concepts) if sentence.start_char <= c.start < sentence.end_char]
            spans = {i: doc.char_span(concepts[i].start, concepts[i].end, alignment_mode="expand") for i in inside}
            lemmas = {t.lemma_.lower() for t in sentence}
            methods = [i for i in inside if concepts[i].type == "Method"]
            datasets = [i for i in inside if concepts[i].type == "Dataset"]
            tasks = [i for i in inside if concepts[i].type == "Task"]
            reference = self._self_reference(sentence)
            subjects = [i for i in methods if concepts[i].proposed] or ([own] if own is not None and reference is not None else [])
            if not subjects and len(methods) == 1:
                subjects = methods
            relations += self._evaluated_on(sentence, lemmas, subjects, datasets)
            relations += self._used_for(
                spans,
                methods + ([own] if own is not None and reference is not None and own not in methods else []),
                tasks,
                sentence,
                reference,
                own,
            )
            relations += self._verb_relations(spans, concepts, subjects, methods, sentence, reference, own)
        doc._.kg_relations = sorted(set(relations))
        return doc

    def _evaluated_on(self, sentence, lemmas, subjects, datasets):
        if not (subjects and datasets and lemmas & set(self.cues["evaluatedOn"]["lemmas"])):
            return []
        return [self._relation("evaluatedOn", m, d, sentence) for m in subjects for d in datasets]

    def _used_for(self, spans, methods, tasks, sentence, reference, own):
        cue = self.cues["usedFor"]
        found = []
        for t in tasks:
            task = spans[t]
            if task is None:
                continue
            prep = task.root.head
            if prep.dep_ == "prep" and prep.lower_ in cue["prepositions"]:
                anchor = prep.head
                for m in methods:
                    span = spans.get(m)
                    anchor_tokens = set(span) if span is not None else ({reference} if reference is not None else set())
                    verb_args = {c for c in anchor.children if c.dep_ in {"nsubj", "dobj", "nsubjpass"}}
                    if anchor.dep_ == "appos":  # "MetaOOD, a framework for OOD detection"
                        verb_args.add(anchor.head)
                    if (
                        anchor in anchor_tokens
                        or any(a in anchor_tokens for a in verb_args)
                        or (m == own and reference is not None and (anchor == reference or reference in verb_args))
                    ):
                        found.append(self._relation("usedFor", m, t, sentence))
            elif task.root.dep_ == "dobj" and task.root.head.lemma_.lower() in cue["verbs"]:
                verb = task.root.head
                for m in methods:
                    span = spans.get(m)
                    subject = [c for c in verb.children if c.dep_ == "nsubj"]
                    if subject and ((span is not None and subject[0] in set(span)) or (m == own and subject[0] == reference)):
                        found.append(self._relation("usedFor", m, t, sentence))
        return found

    def _verb_relations(self, spans, concepts, subjects, methods, sentence, reference, own):
        found = []
        for verb in sentence:
            lemma = verb.lemma_.lower()
            for kind in ("outperforms", "uses"):
                if lemma not in self.cues[kind]["lemmas"]:
                    continue
                subject_tokens = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}]
                objects = {t for c in verb.children if c.dep_ in {"dobj", "prep", "pobj", "xcomp"} for t in c.subtree}
                heads = [m for m in methods if spans.get(m) is not None and any(s in set(spans[m]) for s in subject_tokens)]
                if (
                    not heads
                    and own is not None
                    and subject_tokens
                    and subject_tokens[0] in {reference} | ({reference.head} if reference is not None else set())
                ):
                    heads = [own]
                if not heads and kind == "uses" and own is not None and any(s.lower_ == "we" for s in subject_tokens):
                    heads = [own]
                tails = [m for m in methods if spans.get(m) is not None and set(spans[m]) & objects]
                found += [self._relation(kind, h, t, sentence) for h in heads for t in tails if concepts[h].label != concepts[t].label]
        return found


@Language.factory("kg_relations")
def make_relation_finder(nlp: Language, name: str) -> RelationFinder:
    return RelationFinder(read_jsonl(DATA_DIR / "relation_cues.jsonl"))
