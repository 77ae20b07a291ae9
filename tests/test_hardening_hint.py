"""An adversarial pass over the plays ranked at the stakes (``bgfast.hint``) as the command
line shows them (``bgfast moves ID --policy NET``, ``bgfast eval ID``): each test failed
before its fix.

The ranked table's columns did not line up: the heading ``play`` is wider than a play of one
die (``9/6``), the chances' headings stood one column left of their numbers, and a roll of
doubles with a thousand plays or more pushed its rows right. ``bgfast eval`` of a match
score past the match equity table (R20) refused to give the chances at all, where the HTTP
``/evaluate`` gives them without the cube decision.
"""

from __future__ import annotations

import json

import pytest

import bgfast
from bgfast import BgfastError, Net, codec
from bgfast.cli import main
from bgfast.policies import parse_net

#: 2-1 with one die playable: the plays ``8/5`` and ``9/6``, three characters each.
ONE_DIE = ("AHzA/wCA/3cAAA", "21")
#: 3-3 with thirteen checkers spread: over a thousand distinct plays.
THOUSANDS = ("/38AAABAVSqpFQ", "33")
#: 6-6 on the bar against a closed board: the one play is a pass.
PASS = ("27YdAAD/PwAAQA", "66")
#: 3-4 in a 7-point match, 3-1 to play: the table has a column of match-winning chances.
MATCH = ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:3:4:0:7:10",)
#: A 40-point match at 0-0: 40 away, past the table's 25 (R20).
PAST_THE_TABLE = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:40:10"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("given", [ONE_DIE, THOUSANDS, PASS, MATCH], ids=str)
def test_the_ranked_table_lines_up(
    capsys: pytest.CaptureFixture[str], given: tuple[str, ...]
) -> None:
    lines = _run(capsys, "moves", *given, "--policy", "wildbg").splitlines()
    heading, rows = lines[1], lines[2:]
    play = heading.index("play")
    for row in rows:
        rank = row.partition(". ")[0]
        assert rank.strip().isdigit() and len(rank) + 2 == play, row  # the plays start under it
        assert row.index("|") == heading.index("|"), row
        assert row.rindex(" ") + 1 == heading.index("result"), row
        # The chances' numbers end under their headings, as the cubeless equity's does.
        for name in ("cubeless", "win", "wg", "wbg"):
            end = heading.index(f" {name} ") + len(name) + 1
            assert row[end - 1] != " " and row[end] == " ", (name, row)
    if given == THOUSANDS:
        assert len(rows) > 999


def test_eval_gives_the_chances_of_a_score_past_the_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The chances do not depend on the score: they are given, and the cube decision the
    model cannot make there is named (R20), as the HTTP ``/evaluate`` answers."""
    state = codec.state_from_id(PAST_THE_TABLE)
    assert state is not None
    p = Net.wildbg().evaluate(state.position)
    lines = _run(capsys, "eval", PAST_THE_TABLE).splitlines()
    assert lines[0] == "the chances of the side to move, before it rolls"
    assert [float(x) for x in lines[2].replace("|", " ").split()[:3]] == pytest.approx(
        [float(x) for x in p[:3]], abs=5e-4
    )
    assert lines[3].startswith("no cube decision: R20: the side to move is 40 points away")
    data = json.loads(_run(capsys, "eval", PAST_THE_TABLE, "--json"))
    assert data["stakes"] is None and data["cube"] is None
    assert data["win"] == pytest.approx(float(p[0])) and data["position"] == state.position.id
    # Ranking plays needs the stakes: still refused, naming the rule.
    assert main(["moves", PAST_THE_TABLE, "31", "--policy", "wildbg"]) == 2
    assert "R20" in capsys.readouterr().err


def test_a_net_option_names_only_nets() -> None:
    """``--net foo`` lists the nets it takes, not the net-less policies it refuses."""
    for text in ("foo", "pubeval", "random"):
        with pytest.raises(BgfastError, match=r"--net must be wildbg, wildbg-large or a \.bgnet"):
            parse_net(text, "--net")


# ------------------------------------------------------- a new user's walk through the docs

#: The opening position with a beaver waiting for the doubler's answer (XGID's ``B``).
BEAVERED = "XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:2:0:10"


def test_a_waiting_beaver_gets_no_answer_meant_for_a_double(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With a beaver waiting, the stakes in question are the beaver's, not the double's:
    ``eval`` gives the chances and no cube decision (it answered "beaver" before)."""
    state = codec.state_from_id(BEAVERED)
    assert state is not None and state.offer is not None and state.offer.kind == "beaver"
    out = _run(capsys, "eval", BEAVERED)
    assert out.splitlines()[-1] == "no cube decision: a beaver waits for its answer"
    data = json.loads(_run(capsys, "eval", BEAVERED, "--json"))
    assert data["cube"] is None and data["win"] > 0


def test_plays_are_ranked_only_where_a_play_is_due(capsys: pytest.CaptureFixture[str]) -> None:
    """``moves --policy`` ranks through ``bgfast.hint``: with a double waiting there is no
    play to rank (it ranked at the stakes before the double); dice given for an ID that
    holds others are refused, with or without a policy."""
    doubled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:2:3:0:7:10"
    assert main(["moves", doubled, "31", "--policy", "wildbg"]) == 2
    assert "no play to rank: a double waits for its answer" in capsys.readouterr().err
    rolled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:2:3:0:7:10"
    state = codec.state_from_id(rolled)
    assert state is not None
    for policy in (["--policy", "wildbg"], []):
        assert main(["moves", rolled, "31", *policy]) == 2
        assert "has rolled 6-4, not 3-1" in capsys.readouterr().err
    data = json.loads(_run(capsys, "moves", rolled, "46", "--policy", "wildbg", "--json"))
    want = bgfast.hint(Net.wildbg(), state)
    assert [m["move"] for m in data["moves"]] == [str(h.move) for h in want]
    assert data["dice"] == [4, 6]


def test_the_stakes_name_the_post_crawford_game_and_the_cube_limit() -> None:
    post = bgfast.cubeful.Stakes.check(match_length=7, score=(6, 3), crawford=False)
    assert post.words() == "7-point match at 6-3, cube 1 centred, post-Crawford"
    result = bgfast.rollout(
        games=20, seed=1, policy="pubeval", evaluator="wildbg", cubeful=True, max_cube=1
    )
    assert "cubeful, money, no cube" in result.table()
    with pytest.raises(BgfastError, match=r"above 32768 \(R17\)"):
        bgfast.cubeful.Stakes.check(max_cube=2**20)
