"""The conference listing (corpus/000_...txt), checked against the file by hand."""

import pytest

from kg.corpus import read_file
from tests.conftest import CONFERENCE

# Title, award, category, area and author count of every paper, in listing order,
# copied from the listing (26 papers, though its introduction announces 24).
EXPECTED = [
    ("LoRA3D: Low-Rank Self-Calibration of 3D Geometric Foundation Models", "Spotlight", "Computer Vision", "Applied AI", 7),
    ("OmniRe: Omni Urban Scene Reconstruction", "Spotlight", "Computer Vision", "Applied AI", 12),
    ("SC-OmniGS: Self-Calibrating Omnidirectional Gaussian Splatting", None, "Computer Vision", "Applied AI", 7),
    ("Probabilistic Geometric Principal Component Analysis", "Spotlight", "Neuroscience/Cognitive Science", "Applied AI", 2),
    ("Scaling Wearable Foundation Models", None, "Health", "Applied AI", 18),
    (
        "MediConfusion: Can you trust your AI radiologist? Probing the reliability of multimodal medical foundation models",
        None,
        "Health",
        "Applied AI",
        4,
    ),
    ("SRSA: Skill Retrieval and Adaptation for Robotic Assembly Tasks", "Spotlight", "Robotics, Autonomy, Planning", "Applied AI", 6),
    (
        "DreamDistribution: Prompt Distribution Learning for Text-to-Image Diffusion Models",
        None,
        "Generative Models and Autoencoders",
        "Deep Learning",
        9,
    ),
    (
        "MLLMs Know Where to Look: Training-free Perception of Small Visual Details with Multimodal LLMs",
        None,
        "Generative Models and Autoencoders",
        "Deep Learning",
        4,
    ),
    (
        "Revisiting Energy Based Models as Policies: Ranking Noise Contrastive Estimation and Interpolating Energy Models",
        None,
        "Generative Models and Autoencoders",
        "Deep Learning",
        3,
    ),
    (
        "Shallow diffusion networks provably learn hidden low-dimensional structure",
        None,
        "Generative Models and Autoencoders",
        "Deep Learning",
        4,
    ),
    ("Targeted Attack Improves Protection against Unauthorized Diffusion Customization", "Spotlight", "Robustness", "Deep Learning", 3),
    ("LiveBench: A Challenging, Contamination-Free LLM Benchmark", "Spotlight", "Large Language Models", "Deep Learning", 15),
    (
        "The Semantic Hub Hypothesis: Language Models Share Semantic Representations Across Languages and Modalities",
        None,
        "Large Language Models",
        "Deep Learning",
        5,
    ),
    # The listing itself lacks a comma in "Hongming Zhangm Xinya Du", so 8 names, not 9.
    ("DSBench: How Far Are Data Science Agents from Becoming Data Science Experts?", None, "Large Language Models", "Deep Learning", 8),
    ("DeLLMa: Decision Making Under Uncertainty with Large Language Models", "Spotlight", "Large Language Models", "Deep Learning", 4),
    (
        "Neuron-based Multifractal Analysis of Neuron Interaction Dynamics in Large Models",
        None,
        "Large Language Models",
        "Deep Learning",
        9,
    ),
    (
        "Multiview Equivariance Improves 3D Correspondence Understanding with Minimal Feature Finetuning",
        None,
        "Representation Learning",
        "Deep Learning",
        5,
    ),
    ("MetaOOD: Automatic Selection of OOD Detection Models", None, "Transfer, Multitask and Meta-learning", "Deep Learning", 5),
    (
        "Transformers Learn Low Sensitivity Functions: Investigations and Implications",
        None,
        "Interpretability and Explainable AI",
        "Deep Learning",
        6,
    ),
    ("Attributing Culture-Conditioned Generations to Pretraining Corpora", None, "Interpretability and Explainable AI", "Deep Learning", 4),
    (
        "PhysBench: Benchmarking and Enhancing Vision-Language Models for Physical World Understanding",
        "Oral",
        "Physics-Informed Machine Learning",
        "Deep Learning",
        6,
    ),
    (
        "DiSK: Differentially Private Optimizer with Simplified Kalman Filter for Noise Reduction",
        None,
        "Privacy-Preserving Statistics and Machine Learning",
        "Deep Learning",
        6,
    ),
    (
        "Open Problems and Fundamental Limitations of Reinforcement Learning from Human Feedback",
        None,
        "Trustworthy Machine Learning",
        "Social Aspects",
        32,
    ),
    ("Strategic Classification with Externalities", None, "Game theory", "Theory", 4),
    ("Last-Iterate Convergence Properties of Regret-Matching Algorithms in Games", None, "Game theory", "Theory", 7),
]


@pytest.fixture(scope="module")
def papers():
    return list(read_file(CONFERENCE))


def test_reads_all_26_papers_with_exact_titles_awards_and_sections(papers):
    got = [(p.title, p.award, p.categories[0], p.area, len(p.authors)) for p in papers]
    assert got == EXPECTED


def test_lora3d_authors_in_order(papers):
    assert papers[0].authors == (
        "Ziqi Lu",
        "Heng Yang",
        "Danfei Xu",
        "Boyi Li",
        "Boris Ivanovic",
        "Marco Pavone",
        "Yue Wang",
    )


def test_irregular_author_separators_and_accents(papers):
    by_title = {p.title: p for p in papers}
    assert by_title["MetaOOD: Automatic Selection of OOD Detection Models"].authors[:2] == ("Yuehan Qin", "Yichi Zhang")
    dream = by_title["DreamDistribution: Prompt Distribution Learning for Text-to-Image Diffusion Models"]
    assert dream.authors[3:5] == ("Xinyang Jiang", "Yifan Yang")  # "Jiang , Yifan Yang" in the listing
    rlhf = by_title["Open Problems and Fundamental Limitations of Reinforcement Learning from Human Feedback"]
    assert "Jérémy Scheurer" in rlhf.authors and rlhf.authors[-1] == "Dylan Hadfield-Menell"


def test_two_paragraph_abstract_is_one_abstract(papers):
    ebm = papers[9]
    assert ebm.abstract.startswith("A crucial design decision for any robot learning pipeline")
    assert "We show that the prevailing folklore" in ebm.abstract
    assert ebm.abstract.endswith("obstacle avoidance path planning and contact-rich block pushing.")


def test_headings_without_papers_are_areas_not_papers(papers):
    titles = {p.title for p in papers}
    assert not titles & {"Social Aspects", "Theory", "Deep Learning", "Applied AI", "RESEARCH"}


def test_venue_year_and_source_positions(papers):
    assert {(p.venue, p.year) for p in papers} == {("ICLR 2025", 2025)}
    assert papers[0].source.line == 15 and papers[0].source.index == 1
    assert papers[-1].source.line == 203 and papers[-1].source.index == 26
    assert papers[0].source.format == "conference"


def test_no_special_spaces_survive(papers):
    for paper in papers:
        for text in (paper.title, paper.abstract, *paper.authors):
            assert "\u00a0" not in text and "  " not in text and text == text.strip()
