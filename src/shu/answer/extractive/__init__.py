"""The offline reader: the sentences of the retrieved context that best answer the question, each
cited to the chunk it was taken from, chosen by rules named for the question they answer
(`rules.py`) over a question read once (`reading.py`). Text from a document is only ever quoted,
never followed."""

from shu.answer.extractive.expected import asks_for_live_information, expected_answer, unstated_attribute
from shu.answer.extractive.reader import ExtractiveAnswerer
from shu.answer.extractive.sentences import candidate_sentences

__all__ = [
    "ExtractiveAnswerer",
    "asks_for_live_information",
    "candidate_sentences",
    "expected_answer",
    "unstated_attribute",
]
