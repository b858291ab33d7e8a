"""WordNet read straight from Debian's wordnet-base files: senses, hypernyms, depth and class matching."""

from __future__ import annotations

from vidmem_ros.perception import wordnet
from vidmem_ros.perception.wordnet import WordNet, broader_words, class_senses


def test_synonyms_share_one_synset_and_lemmas_read_as_written(nouns: WordNet) -> None:
    (violin,) = nouns.senses("violin")
    assert nouns.senses("Fiddle") == (violin,)
    assert nouns.lemmas(violin) == ("violin", "fiddle")
    assert nouns.lexfile(violin) == wordnet.LEX_ARTIFACT
    assert nouns.senses("no such word") == ()


def test_broader_words_run_nearest_first_and_stop_short_of_the_root(nouns: WordNet) -> None:
    words = broader_words(nouns, nouns.senses("oboe")[:1], min_depth=4)
    assert words.index("woodwind") < words.index("wind instrument") < words.index("musical instrument")
    assert "device" in words and not {"entity", "physical entity", "object", "whole"} & set(words)
    (root,) = nouns.senses("entity")
    assert nouns.depth(root) == 0 and nouns.hypernyms(root) == ()


def test_is_a_follows_hypernyms_within_a_number_of_steps(nouns: WordNet) -> None:
    oboe, instrument = nouns.senses("oboe")[0], nouns.senses("musical instrument")[0]
    assert nouns.is_a(oboe, instrument) and not nouns.is_a(instrument, oboe)
    assert not nouns.is_a(oboe, instrument, max_levels=1)


def test_irregular_plurals_and_proper_nouns(nouns: WordNet) -> None:
    assert nouns.base_form("geese") == "goose" and nouns.base_form("violins") == "violin"
    assert nouns.base_form("fishermen") == "fisherman" and nouns.base_form("qwerty") == "qwerty"
    assert nouns.base_form("people") == "person"  # a plural noun.exc lacks
    first = nouns.senses("heron")[0]
    assert nouns.is_proper(first, "heron")  # Hero of Alexandria
    assert not nouns.is_proper(nouns.senses("heron")[1], "heron")


def test_a_name_used_twice_resolves_between_its_neighbours_in_an_offset_ordered_label_set(nouns: WordNet) -> None:
    bird_first = [("heron",), ("crane",), ("cello", "violoncello")]
    machine_first = [("cello", "violoncello"), ("crane",), ("oboe", "hautboy", "hautbois")]
    bird, machine = class_senses(nouns, bird_first, True)[1], class_senses(nouns, machine_first, True)[1]
    assert len(bird) == 1 and nouns.lexfile(bird[0]) == wordnet.LEX_ANIMAL
    assert len(machine) == 1 and nouns.lexfile(machine[0]) == wordnet.LEX_ARTIFACT
    assert len(class_senses(nouns, bird_first)[1]) == 2  # unordered label sets keep every sense


def test_a_name_with_several_possible_senses_keeps_only_their_shared_broader_words(nouns: WordNet) -> None:
    both = class_senses(nouns, [("crane",)])[0]
    shared = broader_words(nouns, both, min_depth=4)
    assert "bird" in broader_words(nouns, both[:1], 4) or "bird" in broader_words(nouns, both[1:], 4)
    assert "bird" not in shared and "lifting device" not in shared


def test_a_missing_database_is_none_not_an_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert wordnet.load(str(tmp_path)) is None and wordnet.load("") is None


def test_names_read_on_signs_are_matched_to_the_kind_asked_for() -> None:
    from vidmem_ros.agent.labels import LabelLexicon

    lexicon = LabelLexicon(("dog", "car"))
    vehicle, country, animal = (lexicon.category(w) for w in ("vehicle", "country", "animal"))
    assert lexicon.kinds_named("TAXI RANK", vehicle) == ["taxi"]
    assert lexicon.kinds_named("Sea lion feeding 3 pm", animal) == ["sea lion"]  # the two-word name, not "lion"
    assert lexicon.kinds_named("SAFETY FIRST", country) == []  # "safety" is mostly a condition, not a place
    assert lexicon.kinds_named("ANIMAL CROSSING", animal) == []  # the kind itself names no kind of it
    assert lexicon.category("thing") == [] or lexicon.kinds_named("SHOES", lexicon.category("thing")) == []
    plant = lexicon.category("plant")
    assert lexicon.kinds_named("duty nurse: Anna Birch", plant) == []  # a name in a line in sentence case
    assert lexicon.kinds_named("Fresh basil for sale", plant) == ["basil"]
    assert lexicon.kinds_named("Beware of the Dog", animal) == ["dog"]  # title case: capitals name no one


def test_a_word_read_is_taken_in_the_sense_the_words_beside_it_point_to() -> None:
    from vidmem_ros.agent.labels import LabelLexicon

    lexicon = LabelLexicon(("dog", "car"))
    rodent = lexicon.category("rodent")
    assert lexicon.kinds_named("MOUSE TRAPS SET IN THIS CORNER", rodent) == ["mouse"]
    assert lexicon.kinds_named("Spare computer mouse in drawer", rodent) == []  # the device
    assert lexicon.kinds_named("COMPUTER MICE: ASK AT DESK", rodent) == []
    device = lexicon.sense_meant("mouse", ["the", "computer", "mouse"])
    assert device is not None and device != lexicon.sense_meant("mouse")
    assert lexicon.sense_meant("mouse", ["a", "mouse", "nest", "under", "the", "stairs"]) == lexicon.sense_meant(
        "mouse"
    )
    assert not lexicon.kind_of("mouse", "rodent", context=("computer", "mouse"))
    assert lexicon.kind_of("mouse", "rodent") and lexicon.kind_of("mice", "rodent", context=("two", "mice"))


def test_verbs_go_back_to_their_dictionary_form(nouns: WordNet) -> None:
    irregular = {"brought": "bring", "kept": "keep", "fell": "fall", "spoken": "speak", "ran": "run"}
    regular = {"waters": "water", "moved": "move", "stopped": "stop", "hurries": "hurry", "checking": "check"}
    for word, base in {**irregular, **regular}.items():
        assert nouns.verb_base(word) == base, word
    assert nouns.verb_base("ladder") == "ladder" and nouns.verb_base("xyzzyed") == "xyzzyed"


def test_a_word_names_a_kind_in_the_sense_the_broader_word_picks_out_and_through_a_deep_taxonomy() -> None:
    from vidmem_ros.agent.labels import LabelLexicon

    lexicon = LabelLexicon(("dog", "car"))
    # Most often a tree, a gun's part, the party's symbol: the question's broader word means the fruit, the tool,
    # the beast.
    assert lexicon.kind_of("apricot", "fruit") and lexicon.kind_of("bananas", "fruit")
    assert lexicon.kind_of("hammer", "tool")
    assert lexicon.kind_of("donkey", "animal") and lexicon.kind_of("wolves", "animal")  # many ranks below it
    assert lexicon.kind_of("oak", "tree")
    assert not lexicon.kind_of("nurse", "animal") and not lexicon.kind_of("safety", "equipment")
    assert not lexicon.kind_of("mouse", "animal", context=("computer", "mouse"))  # the words beside it decide
