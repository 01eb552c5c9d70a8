import json

from halluscope.text.mentions import MentionExtractor, extract_mentions
from halluscope.vocab import Vocabulary


def spans(caption):
    return [(m.word, m.category) for m in extract_mentions(caption)]


def test_longest_form_wins_and_is_never_also_the_shorter():
    assert spans("A hot dog and a dog.") == [("hot dog", "hot dog"), ("dog", "dog")]
    assert spans("a Teddy Bear beside a bear") == [("Teddy Bear", "teddy bear"), ("bear", "bear")]
    assert spans("a baseball bat and a baseball") == [("baseball bat", "baseball bat"),
                                                      ("baseball", "sports ball")]
    assert spans("his cell phone, her phone") == [("cell phone", "cell phone"),
                                                  ("phone", "cell phone")]


def test_whole_words_only_and_case_insensitive():
    assert spans("A CATalog of cats, a bus, a busy carpet, DOGS") == [
        ("cats", "cat"), ("bus", "bus"), ("DOGS", "dog")]


def test_multiword_forms_across_whitespace_and_hyphen():
    assert spans("a hot\n  dog, a hot-dog, a tennis   racket") == [
        ("hot\n  dog", "hot dog"), ("hot-dog", "hot dog"), ("tennis   racket", "tennis racket")]


def test_positions():
    caption = "A man walks. Then a dog runs after the cat."
    mentions = extract_mentions(caption)
    assert [(m.start, m.end) for m in mentions] == [(2, 5), (20, 23), (39, 42)]
    assert all(caption[m.start:m.end] == m.word for m in mentions)
    assert [m.sentence_index for m in mentions] == [0, 1, 1]
    assert [m.word_index for m in mentions] == [1, 5, 9]
    assert [round(m.relative_position, 3) for m in mentions] == [0.1, 0.5, 0.9]


def test_orange_is_matched_but_excluded():
    (mention,) = extract_mentions("an orange")
    assert mention.category == "orange" and mention.excluded


def test_custom_vocabulary():
    extractor = MentionExtractor(Vocabulary({"kangaroo": ["joey"]}))
    assert [(m.word, m.category) for m in extractor("Two joeys and a kangaroo")] == [
        ("joeys", "kangaroo"), ("kangaroo", "kangaroo")]


def test_no_mentions_and_empty_caption():
    assert extract_mentions("") == []
    assert extract_mentions("A sunny afternoon.") == []


def test_spans_on_real_captions(shared_data):
    path = shared_data / "captions" / "opera_llava-1.5_greedy.jsonl"
    total = 0
    for line in path.read_text().splitlines():
        caption = json.loads(line)["caption"]
        mentions = extract_mentions(caption)
        total += len(mentions)
        for m in mentions:
            assert caption[m.start:m.end] == m.word
            assert m.start == 0 or not caption[m.start - 1].isalnum()
        starts = [m.start for m in mentions]
        assert starts == sorted(starts)
        assert all(a.end <= b.start for a, b in zip(mentions, mentions[1:]))
    assert total > 2000        # 500 detailed captions mention several objects each
