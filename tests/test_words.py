"""The shipped word lists: built per appletters.md, so real words in, names and junk out."""

import pytest

from bot.games.words import load_words


def test_full_list_has_inflections_but_no_names_or_abbreviations() -> None:
    full = load_words("full")
    assert {"apples", "apple", "toot", "dog", "god", "turnover"} <= full
    assert not {"usa", "london", "csc", "csch", "dkl", "hhd"} & full


def test_two_letter_allow_list_is_present_in_both_lists() -> None:
    for name in ("full", "family"):
        words = load_words(name)
        assert {"aa", "qi", "za", "ok", "xu", "of", "hm"} <= words
        assert "zz" not in words


def test_family_list_is_a_smaller_subset_of_full() -> None:
    family, full = load_words("family"), load_words("full")
    assert family < full
    assert 60_000 < len(family) < 100_000 < 200_000 < len(full)
    assert "apples" in family


def test_words_are_lowercase_letters_only() -> None:
    assert all(w.isascii() and w.isalpha() and w.islower() for w in load_words("family"))


def test_loading_is_cached_and_unknown_names_refused() -> None:
    assert load_words("full") is load_words("full")
    with pytest.raises(ValueError):
        load_words("scrabble")
