"""Match files through the referee: a :class:`~bgfast.transcript.Transcript` played into
games, and games written back into one.

The format modules check syntax; this module checks everything else, by playing each entry
of a file on a :class:`~bgfast.Game` exactly as a player would (``roll``, ``play``,
``double``, ``take``, ...): a play must be legal for its dice (the core decides, naming the
rule it breaks), a cube action must be allowed, each game's stated score must be the sum of
the games before it and each result must be what the board and the cube give. Anything
else is an :class:`~bgfast.InvalidSaveError` naming the game, the move number and what is
wrong, and nothing of the match is kept.

:func:`walk` replays a finished or running game event by event with the state before each
(for writers and for the analysis), and :func:`transcript_of` writes games back as entries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from bgfast import events as ev
from bgfast._core import BgfastError, Move
from bgfast.errors import InvalidSaveError, MatchOptionError
from bgfast.game import Game
from bgfast.scoring import Rules
from bgfast.state import GameState, cube_of_resignation
from bgfast.transcript import (
    Entry,
    EntryKind,
    GameRecord,
    MatchInfo,
    Result,
    StatedRules,
    Transcript,
    move_numbers,
)
from bgfast.vocab import KINDS, Kind

__all__ = ["Step", "play_games", "rules_of", "steps_text", "transcript_of", "walk"]


def crawford_rule_of(transcript: Transcript) -> bool:
    """Whether a file's match is played under the Crawford rule (R21): as the file states
    it, else not when a cube is offered in the game that would be the Crawford game (the
    first whose stated score puts one side, not both, 1 point from the match: GNU
    Backgammon's ``.mat`` files do not state the rule), else the rule, the default (a file
    with no such double cannot tell). Money sessions have no Crawford game: ``True``."""
    stated = transcript.rules.crawford
    if not transcript.length:
        return True
    if stated is not None:
        return stated
    away = transcript.length - 1
    if away < 1:
        return True  # both sides at match point from the start: no game is the Crawford game
    for record in transcript.games:
        if record.score is not None and away in record.score:
            if record.score == (away, away):
                return True  # double match point: past the Crawford game
            return not any(e.kind in ("double", "beaver", "raccoon") for e in record.entries)
    return True


def rules_of(transcript: Transcript, *, jacoby: bool | None = None) -> Rules:
    """The scoring rules a file's games are played with: what it states, else what its
    entries show (a beaver means beavers are allowed, a raccoon raccoons), else the
    defaults. ``jacoby`` overrides an unstated Jacoby rule. Money options in a match are
    an :class:`~bgfast.InvalidSaveError`."""
    stated = transcript.rules
    # The longest run of cube offers in a row: 2 is a beaver, 3 a raccoon (files write
    # them as doubles or as beavers; the referee tells which).
    longest = 0
    for g in transcript.games:
        run = 0
        for e in g.entries:
            run = run + 1 if e.kind in ("double", "beaver", "raccoon") else 0
            longest = max(longest, run)
    beavers = stated.beavers
    if beavers is None:
        beavers = longest >= 2
    raccoons = stated.raccoons
    if raccoons is None:
        raccoons = bool(beavers) and longest >= 3
    if stated.jacoby is not None:
        jacoby = stated.jacoby
    if transcript.length:
        if beavers or raccoons or jacoby:
            raise InvalidSaveError(
                "a match game cannot have beavers, raccoons or the Jacoby rule (R22, R23): "
                "they are money options"
            )
        beavers = raccoons = jacoby = False
    try:
        return Rules(
            jacoby=bool(jacoby), beavers=beavers, raccoons=raccoons, max_cube=stated.max_cube
        )
    except MatchOptionError as e:
        raise InvalidSaveError(f"the file's rules: {e}") from None


def play_games(transcript: Transcript, new_game: Callable[[], Game]) -> None:
    """Play every game of ``transcript`` on the games ``new_game()`` starts (a
    :class:`~bgfast.Match`'s :meth:`~bgfast.Match.new_game`, which knows the score and the
    Crawford game). Every stated score, Crawford flag and result is checked against the
    games; the first problem raises :class:`~bgfast.InvalidSaveError`."""
    total = [0, 0]
    money = transcript.length == 0
    games = transcript.games
    resigned: list[tuple[GameRecord, int, int]] = []  # who won each resignation, and what
    for index, record in enumerate(games):
        label = f"game {record.number}"
        if not money and index and max(total) >= transcript.length:
            previous = games[index - 1]
            raise InvalidSaveError(
                f"{label} ({record.where}) follows the end of the match: game "
                f"{previous.number} won it {total[0]}-{total[1]} in a {transcript.length}-point "
                "match (R20), and a file holds no game after that"
            )
        try:
            game = new_game()
        except BgfastError as e:
            raise InvalidSaveError(
                f"{label} ({record.where}): no game can start: {str(e).removeprefix('new_game: ')}"
            ) from None
        if record.score is not None and list(record.score) != total:
            raise InvalidSaveError(
                f"{label} ({record.score_where or record.where}): the score "
                f"{record.score[0]}-{record.score[1]} does not add up: the games before it "
                f"make {total[0]}-{total[1]}{_swap_hint(resigned, record.score, total)}"
            )
        if record.crawford_game is not None and record.crawford_game != game.crawford:
            says = "is" if record.crawford_game else "is not"
            raise InvalidSaveError(
                f"{label} ({record.where}): the file says it {says} the Crawford game; at "
                f"{total[0]}-{total[1]} in a {transcript.length}-point match it "
                f"{'is' if game.crawford else 'is not'} (R21)"
            )
        _play(game, record, money)
        if game.result is None and index + 1 < len(games):
            # A game the file leaves without a result must have ended by itself (a bear-off,
            # a pass): only the last game of a file may still be in play.
            following = games[index + 1]
            raise InvalidSaveError(
                f"{label} has no result, yet game {following.number} follows "
                f"({following.where}): the file states none for {label} ({record.where}), "
                "and it did not end by a bear-off or a pass"
            )
        if game.result is not None:
            total[game.result.winner] += game.result.points
            if game.result.reason == "resign":
                resigned.append((record, game.result.winner, game.result.points))
        if record.result is not None and record.result.match_won:
            won = not money and max(total) >= transcript.length
            if not won:
                raise InvalidSaveError(
                    f"{label} ({record.result.where}): the file says the game wins the match; "
                    f"the score is {total[0]}-{total[1]}"
                    + ("" if money else f" in a {transcript.length}-point match (R20)")
                )


def _swap_hint(
    resigned: list[tuple[GameRecord, int, int]], score: tuple[int, int], total: list[int]
) -> str:
    """When the stated score adds up with exactly one earlier resignation (game, winner,
    points) won the other way round (a ``Wins`` line read in the wrong column), a note
    naming its line."""
    fits = [
        (record, winner)
        for record, winner, points in resigned
        if score[winner] == total[winner] - points
        and score[1 - winner] == total[1 - winner] + points
    ]
    if len(fits) != 1:
        return ""
    record, winner = fits[0]
    where = record.result.where if record.result is not None else record.where
    return (
        f"; they would if game {record.number}, resigned, had been won by player "
        f"{1 - winner}: is its 'Wins' line ({where}) in the right column?"
    )


def _fail(entry: Entry, record: GameRecord, what: str) -> InvalidSaveError:
    who = f"player {entry.player}"
    return InvalidSaveError(
        f"game {record.number}, move {entry.move} ({entry.where}): {who}: {what}"
    )


def _dice_text(dice: tuple[int, int]) -> str:
    return f"{dice[0]}{dice[1]}"


def _play(game: Game, record: GameRecord, money: bool) -> None:
    entries = record.entries
    for k, entry in enumerate(entries):
        last = k == len(entries) - 1
        try:
            # A game's last roll may stand unplayed: a resignation follows, or the game
            # goes on (the file was written mid-turn).
            _apply(game, entry, record, open_end=last)
        except InvalidSaveError:
            raise
        except BgfastError as e:
            raise _fail(entry, record, str(e)) from None
    _finish(game, record, money)


def _expect(game: Game, entry: Entry, record: GameRecord, doing: str) -> None:
    actor = game.player_to_act
    if actor is not None and actor != entry.player:
        raise _fail(entry, record, f"{doing}, but player {actor} is to act ({game.phase})")


def _apply(game: Game, entry: Entry, record: GameRecord, *, open_end: bool) -> None:
    state = game.state
    kind = entry.kind
    if kind == "roll":
        assert entry.dice is not None
        dice = entry.dice
        if state.phase == "opening":
            if dice[0] == dice[1]:
                raise _fail(entry, record, f"the opening roll {_dice_text(dice)} is a double (R3)")
            high, low = max(dice), min(dice)
            game.roll((high, low) if entry.player == 0 else (low, high))
        else:
            offer = state.offer
            if state.phase == "doubled" and offer is not None and offer.kind != "double":
                # The doubler rolls on: a .mat file's way of taking a beaver, and GNU
                # Backgammon's of taking a raccoon.
                if entry.player != offer.doubler:
                    raise _fail(entry, record, f"rolls while a {offer.kind} waits for an answer")
                game.take()
            _expect(game, entry, record, f"rolls {_dice_text(dice)}")
            if game.phase != "roll":
                raise _fail(entry, record, f"rolls, but the game is in phase {game.phase!r}")
            game.roll(dice)
        _play_roll(game, entry, record, open_end)
    elif kind in ("double", "beaver", "raccoon"):
        offer = state.offer
        if state.phase == "doubled" and offer is not None:
            # GNU Backgammon writes a beaver as a double (SGF) and a raccoon as a double
            # (SGF) or a beaver (.mat): an offer that answers an offer is the next one.
            if offer.kind == "double" and kind == "double":
                kind = "beaver"
            elif offer.kind == "beaver" and kind in ("double", "beaver"):
                kind = "raccoon"
            elif offer.kind == "raccoon":
                raise _fail(
                    entry,
                    record,
                    "redoubles a raccoon: bgfast's rules stop at the raccoon (a double, a "
                    "beaver, a raccoon)",
                )
        _expect(game, entry, record, f"{'doubles' if kind == 'double' else kind + 's'}")
        {"double": game.double, "beaver": game.beaver, "raccoon": game.raccoon}[kind]()
        offered = game.offered_cube
        if entry.value is not None and entry.value != offered:
            raise _fail(
                entry, record, f"the cube goes to {offered}, not {entry.value} as written (R17)"
            )
    else:  # take, drop
        _expect(game, entry, record, "takes" if kind == "take" else "passes")
        if game.phase != "doubled":
            raise _fail(entry, record, f"answers a double, but none is offered ({game.phase})")
        (game.take if kind == "take" else game.drop)()


def _play_roll(game: Game, entry: Entry, record: GameRecord, open_end: bool) -> None:
    assert entry.dice is not None
    dice = _dice_text(entry.dice)
    if game.phase != "move":  # no legal play: the turn passed (R10)
        if entry.play:
            raise _fail(entry, record, f"{dice} cannot be played (R10), yet {entry.play} is")
        return
    if entry.play:
        try:
            game.play(entry.play)
        except BgfastError as e:
            raise _fail(entry, record, f"the play {dice}: {entry.play}: {e}") from None
        return
    if open_end:
        return  # rolled, then resigned (GNU Backgammon writes the dice alone), or not yet played
    moves = game.legal_moves()
    if len(moves) == 1:
        game.play(moves[0])  # a forced play may go unwritten, as GNU Backgammon reads it
        return
    raise _fail(entry, record, f"no play is written for {dice}, and {len(moves)} are legal (R8)")


def _kind_of(points: int, cube: int) -> Kind:
    """The kind a resignation of ``points`` gives up with the cube at ``cube``: GNU
    Backgammon's reading (up to the cube a single game, up to twice it a gammon)."""
    if points <= cube:
        return "single"
    return "gammon" if points <= 2 * cube else "backgammon"


def _resignation_unit(state: GameState, *, mat: bool) -> int:
    """The cube a file multiplies a resignation's kind by in ``state``. A player may resign
    instead of answering a double, beaver or raccoon: GNU Backgammon's ``.mat`` files
    (which do not say the loser resigned) then write the kind times the cube on offer, its
    SGF files the points scored (on the cube the offer doubles, R16)."""
    if state.offer is None:
        return state.cube.value
    return state.offer.value if mat else cube_of_resignation(state).value


def _points(n: int) -> str:
    return "1 point" if n == 1 else f"{n} points"


def _jacoby_note(game: Game) -> str:
    if game.rules.jacoby and game.cube.centred:
        return " (the Jacoby rule, R23: the cube was never turned)"
    return ""


def _finish(game: Game, record: GameRecord, money: bool) -> None:
    result = record.result
    label = f"game {record.number}"
    if result is None:
        return  # a game still in play, or a file that leaves the result to the board
    where = f"{label} ({result.where})"
    if not result.winner_stated:
        unit = "point" if result.points == 1 else "points"
        if game.result is None:
            raise InvalidSaveError(
                f"{where}: 'Wins {result.points} {unit}' has no indentation, so its column "
                "does not say who won, and the game did not end by a bear-off or a pass that "
                "would: GNU Backgammon indents player 0's 'Wins' by 6 spaces and player 1's "
                "under the right column (34 spaces)"
            )
        # The bear-off or the pass says who won; the points are checked below.
        result = replace(result, winner=game.result.winner, winner_stated=True)
    if game.result is None:
        loser = 1 - result.winner
        cube = _resignation_unit(game.state, mat=result.resigned is None)
        kind = _kind_of(result.points, cube)
        if result.points != cube * (KINDS.index(kind) + 1):
            raise InvalidSaveError(
                f"{where}: {result.points} points is no resignation with the cube at {cube}"
            )
        if result.resigned is False:
            raise InvalidSaveError(
                f"{where}: the game is not over, yet the file says nobody resigned"
            )
        try:
            # The player to act resigns as Game.resign records it by default.
            game.resign(kind, None if game.player_to_act == loser else loser)
            game.accept()
        except BgfastError as e:
            raise InvalidSaveError(f"{where}: player {loser} resigns: {e}") from None
        scored = game.result
        assert scored is not None
        if result.resigned and scored.points != result.points:
            # SGF states the points scored; the score lines of the next game would catch a
            # difference, but the last game has none.
            raise InvalidSaveError(
                f"{where}: the file says {_points(result.points)}; a resigned {kind} scores "
                f"{scored.points} here{_jacoby_note(game)}"
            )
        return
    got = game.result
    if got.winner != result.winner:
        raise InvalidSaveError(
            f"{where}: the file says player {result.winner} wins; the game was won by player "
            f"{got.winner} ({got.reason})"
        )
    if got.reason == "resign" and result.resigned is False:
        raise InvalidSaveError(f"{where}: the file says nobody resigned")
    if got.reason != "resign" and result.resigned:
        raise InvalidSaveError(
            f"{where}: the file says the loser resigned; the game ended by a "
            f"{'pass' if got.reason == 'drop' else 'bear-off'}"
        )
    # GNU Backgammon's .mat files write a win as its kind times the cube (without the
    # Jacoby rule); SGF and the score lines hold the points scored.
    multiple = game.cube.value * (KINDS.index(got.kind) + 1)
    allowed = {got.points} | (
        {multiple} if got.reason != "drop" and result.resigned is None else set()
    )
    if result.points not in allowed:
        raise InvalidSaveError(
            f"{where}: the file says {_points(result.points)}; a {got.kind} by {got.reason} "
            f"with the cube at {game.cube.value} scores {got.points}"
        )


# ---------------------------------------------------------------------------- writing


@dataclass(frozen=True)
class Step:
    """One event of a game with the states around it (see :func:`walk`)."""

    before: GameState
    event: ev.Event
    after: GameState
    move: Move | None
    """For a committed move, the legal :class:`~bgfast.Move` played (``before`` is the
    state it was played in: its dice, its position); else ``None``."""


def walk(game: Game) -> Iterator[Step]:
    """Replay ``game`` from its first state, yielding each event with the states before
    and after it; a committed move comes with the :class:`~bgfast.Move` played (its
    steps, its result). The game itself is not touched."""
    record = game.to_dict()
    twin = Game.from_dict({"format": record["format"], "version": record["version"],
                           "setup": record["setup"], "events": []})  # fmt: skip
    staged: tuple[GameState, str] | None = None
    for event in game.events:
        before = twin.state
        _ACTIONS[type(event)](twin, event)
        move = None
        if isinstance(event, ev.Move):
            staged = (before, event.move)
        elif isinstance(event, ev.Undo):
            staged = None
        elif isinstance(event, ev.Commit) and staged is not None:
            played_in, text = staged
            assert played_in.dice is not None
            if not twin.last_move_illegal:
                move = played_in.position.parse_move(text, played_in.dice)
            staged = None
        yield Step(before, event, twin.state, move)


_ACTIONS: dict[type, Callable[[Game, ev.Event], object]] = {
    ev.Roll: lambda g, e: g.roll(e.dice),  # type: ignore[union-attr]
    ev.Double: lambda g, e: g.double(),
    ev.Take: lambda g, e: g.take(),
    ev.Drop: lambda g, e: g.drop(),
    ev.Beaver: lambda g, e: g.beaver(),
    ev.Raccoon: lambda g, e: g.raccoon(),
    ev.Move: lambda g, e: g.move(e.move),  # type: ignore[union-attr]
    ev.Undo: lambda g, e: g.undo(),
    ev.Commit: lambda g, e: g.commit(),
    ev.Call: lambda g, e: g.call(),
    ev.Close: lambda g, e: g.close(),
    ev.Resign: lambda g, e: g.resign(e.kind, e.player),  # type: ignore[union-attr]
    ev.Accept: lambda g, e: g.accept(),
    ev.Reject: lambda g, e: g.reject(),
}


def steps_text(move: Move) -> str:
    """A play as match files write it: each checker step ``from/to`` from the mover's own
    side, 25 the bar, 0 off, ``*`` after a hit."""
    return " ".join(f"{a}/{b}{'*' if hit else ''}" for a, b, hit in move.steps)


def transcript_of(
    games: Sequence[Game],
    *,
    length: int,
    info: MatchInfo,
    rules: StatedRules,
    mat: bool,
) -> Transcript:
    """The entries of ``games`` as a file records them: rolls with their plays, cube
    actions, and each finished game's result. With ``mat``, as a ``.mat`` file has them:
    the take that answers a beaver left out, a bear-off written as its kind times the cube
    and a resignation that answers a double as its kind times the cube on offer (GNU
    Backgammon's way; other resignations and the score lines hold the points won);
    else (SGF) every entry, and the points won. A game whose illegal play stood (table
    mode, R31) cannot be written: :class:`~bgfast.MatchOptionError`."""
    records = []
    total = [0, 0]
    for number, game in enumerate(games, 1):
        entries = _entries(game, number, mat)
        result = None
        if game.result is not None:
            r = game.result
            points = r.points
            if mat and r.reason == "bear-off":
                points = game.cube.value * (KINDS.index(r.kind) + 1)
            elif mat and r.reason == "resign":
                offer = _accepted_in(game).offer
                if offer is not None:
                    # Resigned instead of answering a double, beaver or raccoon: GNU
                    # Backgammon writes the kind times the cube on offer. Otherwise it
                    # writes the points scored, as SGF does (a gammon resigned on a
                    # centred cube under the Jacoby rule: 1 point).
                    points = offer.value * (KINDS.index(r.kind) + 1)
            result = Result(r.winner, points, r.reason == "resign")
        records.append(
            GameRecord(number, (total[0], total[1]), game.crawford, tuple(entries), result)
        )
        if game.result is not None:
            total[game.result.winner] += game.result.points
    return Transcript(length, info, rules, tuple(records), tuple(g.rules.jacoby for g in games))


def _accepted_in(game: Game) -> GameState:
    """The state in which ``game``'s resignation was accepted."""
    return [step.before for step in walk(game) if isinstance(step.event, ev.Accept)][-1]


def _entries(game: Game, number: int, mat: bool) -> list[Entry]:
    entries: list[Entry] = []
    illegal: set[int] = set()  # entries whose play broke the rules (table mode, R31)
    steps = list(walk(game))
    for index, step in enumerate(steps):
        event, before = step.event, step.before
        if isinstance(event, ev.Roll):
            assert event.dice is not None
            if before.phase == "opening":
                if step.after.phase == "opening" and step.after.cube == before.cube:
                    continue  # a tie, rolled again (R3): match files do not record it
                if step.after.phase == "opening":
                    raise MatchOptionError(
                        f"game {number}: a tied opening roll (an automatic double, R22) "
                        "cannot be written in a match file"
                    )
                if step.after.phase == "move":
                    assert step.after.turn is not None and step.after.dice is not None
                    player, dice = step.after.turn, step.after.dice
                else:  # the winner could not play it: the turn passed (R10)
                    d0, d1 = event.dice
                    player, dice = (0 if d0 > d1 else 1), (max(d0, d1), min(d0, d1))
            else:
                assert before.turn is not None
                player, dice = before.turn, event.dice
            entries.append(Entry(player, "roll", dice, ""))
        elif isinstance(event, ev.Commit):
            last = entries[-1]
            if step.move is None:
                illegal.add(len(entries) - 1)
            else:
                entries[-1] = Entry(last.player, "roll", last.dice, steps_text(step.move))
        elif isinstance(event, ev.Call):
            # The play is taken back, with a double made since (and its answer): the same
            # player plays the same dice again.
            while entries[-1].kind != "roll":
                entries.pop()
            illegal.discard(len(entries) - 1)
            last = entries[-1]
            entries[-1] = Entry(last.player, "roll", last.dice, "")
        elif isinstance(event, (ev.Double, ev.Beaver, ev.Raccoon)):
            offer = step.after.offer
            actor = before.player_to_act
            assert offer is not None and actor is not None
            entries.append(Entry(actor, _OFFER_KINDS[type(event)], value=offer.value))
        elif isinstance(event, (ev.Take, ev.Drop)):
            offer = before.offer
            assert offer is not None
            rolls_next = index + 1 < len(steps) and isinstance(steps[index + 1].event, ev.Roll)
            if isinstance(event, ev.Take) and offer.kind == "beaver" and mat and rolls_next:
                # The doubler's next roll says it. Before a resignation, or at the end of
                # a game in play, it is written: a resignation would read as the beaver's
                # answer, scored on the cube before the take.
                continue
            kind: EntryKind = "take" if isinstance(event, ev.Take) else "drop"
            entries.append(Entry(offer.responder, kind))
    if illegal:
        bad = entries[min(illegal)]
        raise MatchOptionError(
            f"game {number}: player {bad.player}'s illegal play for {bad.dice} stood (R31); "
            "a match file holds legal plays only"
        )
    numbers = move_numbers([e.player for e in entries])
    return [
        Entry(e.player, e.kind, e.dice, e.play, e.value, n, f"game {number}")
        for e, n in zip(entries, numbers)
    ]


_OFFER_KINDS: dict[type, EntryKind] = {
    ev.Double: "double",
    ev.Beaver: "beaver",
    ev.Raccoon: "raccoon",
}
