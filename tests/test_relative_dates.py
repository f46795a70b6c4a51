from datetime import date

import pytest

from shu.relative_dates import has_relative_date, with_dates

SATURDAY = date(2023, 7, 15)


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("I went yesterday!", "I went yesterday (14 July 2023)!"),
        ("Back since 16:30 today.", "Back since 16:30 today (15 July 2023)."),
        ("We meet tomorrow", "We meet tomorrow (16 July 2023)"),
        ("the day before yesterday", "the day before yesterday (13 July 2023)"),
        ("Last Fri I took my kids", "Last Fri (the Friday before 15 July 2023) I took my kids"),
        ("see you next Tuesday", "see you next Tuesday (the Tuesday after 15 July 2023)"),
        ("a speech last week", "a speech last week (the week before 15 July 2023)"),
        ("this past weekend", "this past weekend (the weekend before 15 July 2023)"),
        ("a show next month", "a show next month (August 2023)"),
        ("last month", "last month (June 2023)"),
        ("since last year", "since last year (2022)"),
        ("two days ago", "two days ago (13 July 2023)"),
        ("3 years ago", "3 years ago (2020)"),
        ("a couple of weeks ago", "a couple of weeks ago (a couple of weeks before 15 July 2023)"),
    ],
)
def test_a_relative_date_is_read_against_the_day_it_was_written(said: str, read: str) -> None:
    assert with_dates(said, SATURDAY) == read


def test_what_is_not_a_relative_date_is_left_as_written() -> None:
    for text in ["this Friday", "a few years ago", "Yesterday's Child is a film", "the lastweek"]:
        assert with_dates(text, SATURDAY) == text
    assert not has_relative_date("Press 2 runs on Fridays")


def test_a_date_already_given_is_not_given_twice() -> None:
    assert with_dates("yesterday (14 July)", SATURDAY) == "yesterday (14 July)"


def test_month_arithmetic_crosses_the_year() -> None:
    assert with_dates("next month", date(2023, 12, 31)) == "next month (January 2024)"
    assert with_dates("last month", date(2024, 1, 5)) == "last month (December 2023)"
