"""Plain typed records passed between the pipeline's stages.

Readers yield :class:`Paper`; linking turns papers into :class:`LinkedPaper`
(stable IRIs, merged duplicates); extractors yield :class:`Extraction` for a
linked paper; the graph builder turns all of them into triples.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kg.text import derived_label

__all__ = [
    "SourceRef",
    "WEB_SCHEMES",
    "Paper",
    "Rejected",
    "LinkedAuthor",
    "LinkedPaper",
    "Mention",
    "Claim",
    "Relation",
    "RELATION_TYPES",
    "RELATION_SIGNATURES",
    "AcronymDefinition",
    "Extraction",
    "CONCEPT_TYPES",
    "ConceptForm",
    "Concept",
    "BroaderLink",
]

#: Concept types an extractor may report; each is a subclass of kg:Concept.
CONCEPT_TYPES = ("Method", "Dataset", "Task", "Metric")
#: Relations between concepts an extractor may report, each a kg: property, with
#: its (head type, tail type): the rdfs:domain and rdfs:range of ontology/kg.ttl.
RELATION_SIGNATURES = {
    "evaluatedOn": ("Method", "Dataset"),
    "usedFor": ("Method", "Task"),
    "uses": ("Method", "Method"),
    "outperforms": ("Method", "Method"),
    "comparedWith": ("Method", "Method"),
    "trainedOn": ("Method", "Dataset"),
    "benchmarkFor": ("Dataset", "Task"),
}
RELATION_TYPES = tuple(RELATION_SIGNATURES)


@dataclass(frozen=True)
class SourceRef:
    """Where a record was read: the file's name and content hash, and its place in it."""

    file_name: str
    sha256: str
    line: int  # 1-based line where the record starts
    index: int  # 1-based position of the record among the file's papers
    format: str  # reader name, e.g. "conference"


#: A ``Paper.url`` with one of these prefixes is a web page: the graph makes it
#: an IRI, so a reader passes on only one that is a valid IRI; any other url is
#: kept as a literal.
WEB_SCHEMES = ("http://", "https://")


@dataclass(frozen=True)
class Paper:
    """One paper as a reader found it, with whitespace already normalised.

    ``title`` is ``None`` when the source gives none; ``display_label`` is then
    derived from the abstract and ``title_is_derived`` says so.
    """

    abstract: str
    source: SourceRef
    title: str | None = None
    authors: tuple[str, ...] = ()
    orcids: tuple[str | None, ...] = ()  # beside ``authors``, one per author (None where unknown), or empty
    venue: str | None = None
    year: int | None = None
    date: str | None = None  # ISO 8601 "YYYY-MM" or "YYYY-MM-DD" when the source is that precise; ``year`` agrees
    area: str | None = None
    categories: tuple[str, ...] = ()  # subject categories, or keywords where the source has those
    award: str | None = None
    doi: str | None = None  # bare and lower-cased: kg.corpus.ids.normalise_doi
    arxiv_id: str | None = None  # without "arXiv:" or version: "2502.05628", "cs/0112017"
    pmid: str | None = None  # PubMed id, digits only
    url: str | None = None  # a valid IRI when it starts with WEB_SCHEMES
    source_id: str | None = None  # the identifier the source itself uses, if any
    extra: tuple[tuple[str, str], ...] = ()  # unknown JSONL keys, as (key, JSON text)

    @property
    def title_is_derived(self) -> bool:
        return self.title is None

    @property
    def display_label(self) -> str:
        return self.title if self.title is not None else derived_label(self.abstract)


@dataclass(frozen=True)
class Rejected:
    """A record a reader found but could not use: where it starts and why.

    ``kind`` is a short phrase that counts well ("not JSON", "without an
    abstract"); ``reason`` the full explanation. Readers yield these beside
    :class:`Paper`; :func:`kg.corpus.read_file` skips them with a warning, or
    raises in strict mode.
    """

    line: int  # 1-based line where the record starts
    kind: str
    reason: str


@dataclass(frozen=True)
class LinkedAuthor:
    iri: str
    name: str  # display form: the first spelling seen in the corpus
    orcid: str | None = None  # https://orcid.org/... when a source gives one


@dataclass(frozen=True)
class LinkedPaper:
    """A paper with its IRI, after duplicates from all inputs were merged."""

    iri: str
    paper: Paper  # the merged record
    authors: tuple[LinkedAuthor, ...]
    sources: tuple[SourceRef, ...]  # every place this paper was read, in input order


@dataclass(frozen=True)
class Mention:
    """A span of a paper's abstract that names a concept.

    Offsets are character offsets into the normalised abstract (end exclusive),
    so ``abstract[start:end] == text``.
    """

    text: str
    concept_type: str  # one of CONCEPT_TYPES
    start: int
    end: int
    sentence_start: int
    sentence_end: int
    confidence: float
    component: str  # the extractor component (and rule id) that found it
    label: str | None = None  # the concept's normalised label; defaults to ``text``
    proposed: bool = False  # the paper introduces this concept


@dataclass(frozen=True)
class Claim:
    """A sentence of the abstract that states a finding of the paper."""

    text: str
    start: int  # character offsets of the sentence in the normalised abstract
    end: int
    confidence: float
    component: str


@dataclass(frozen=True)
class Relation:
    """A relation between two concepts of one abstract, stated by one sentence."""

    head: str  # the head concept's label
    head_type: str
    relation: str  # one of RELATION_TYPES
    tail: str
    tail_type: str
    start: int  # character offsets of the evidence sentence
    end: int
    confidence: float
    component: str


@dataclass(frozen=True)
class AcronymDefinition:
    """A short form an abstract defines: "large language models (LLMs)"."""

    short: str  # as written: "LLMs"
    long: str  # as written: "large language models"
    long_label: str  # the long form's canonical label: "large language model"
    start: int  # character offsets of the whole definition, long and short form
    end: int


@dataclass(frozen=True)
class Extraction:
    """What one extractor found in one paper."""

    paper_iri: str
    mentions: tuple[Mention, ...] = field(default=())
    claims: tuple[Claim, ...] = field(default=())
    relations: tuple[Relation, ...] = field(default=())
    acronyms: tuple[AcronymDefinition, ...] = field(default=())


# -- concept linking (kg.link.concepts) ------------------------------------


@dataclass(frozen=True)
class ConceptForm:
    """One surface form of a concept and why it was merged into it.

    ``rules`` name the merge rules that applied somewhere in the corpus
    ("same label", "normalised", "acronym in paper", "acronym in corpus",
    "alias", "plural in corpus"); ``notes`` say how, in words.
    """

    text: str
    rules: tuple[str, ...]
    notes: tuple[str, ...]
    mentions: int  # how often the corpus writes it


@dataclass(frozen=True)
class Concept:
    """One concept of the corpus: every mention of any of its forms points to ``iri``."""

    iri: str
    type: str  # one of CONCEPT_TYPES
    key: str  # the normalised label the IRI is minted from
    pref_label: str
    alt_labels: tuple[str, ...]
    forms: tuple[ConceptForm, ...]
    exact_match: str | None = None  # a Wikidata IRI, from the lexicon
    lexicon_line: int | None = None


@dataclass(frozen=True)
class BroaderLink:
    """``narrower`` skos:broader ``broader``, with the evidence for it.

    Head-noun links ("parameter-efficient fine-tuning" -> "fine-tuning") are
    evidenced by the labels alone; Hearst-pattern links ("methods such as
    LoRA") by a sentence: ``paper_iri`` and the sentence's offsets.
    """

    narrower: str  # concept IRIs
    broader: str
    rule: str  # "head-noun" or "hearst:<pattern id>"
    confidence: float
    paper_iri: str | None = None
    start: int | None = None
    end: int | None = None
