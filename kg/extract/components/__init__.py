"""The project's spaCy components, registered as factories named ``kg_*``.

Importing this package registers every factory and the Doc extensions they
set, once; ``kg.extract.pipeline.build_nlp`` assembles them.
"""

from spacy.tokens import Doc

# Doc attributes hold plain tuples (msgpack-serialisable, so docs can cross
# process boundaries when spaCy runs several workers).
for _name in ("kg_acronyms", "kg_concepts", "kg_relations", "kg_claims"):
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, default=None)

# Importing the modules registers their factories.
from kg.extract.components import acronyms, claims, concepts, paper_relations, proposed, relation_model, relations  # noqa: E402

__all__ = ["acronyms", "claims", "concepts", "paper_relations", "proposed", "relation_model", "relations"]
