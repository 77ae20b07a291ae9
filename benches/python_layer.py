"""The Python layer's cost per call, where scripts and servers call it once a move or a
game: refereeing, match files, IDs, the cube model, hint, bear-off lookups, analysis.

    python benches/python_layer.py [REPEAT [NAME,...]]   # the BENCHMARKS.md table

Prints one line per item: its name and the best time per call (of REPEAT runs, 5 by
default), in microseconds or milliseconds. Only the items whose names hold one of the
NAMEs run, if given.
"""

import random
import sys
import time
from pathlib import Path

import numpy as np

import bgfast
from bgfast import Game, Match, bearoff, codec, cubeful
from bgfast.cubeful import Stakes

REPEAT = int(sys.argv[1]) if len(sys.argv) > 1 else 5
ONLY = sys.argv[2].split(",") if len(sys.argv) > 2 else None
RESULTS = {}


def best(fn, number, repeat=REPEAT):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def report(name, seconds, per="call"):
    RESULTS[name] = seconds
    unit, scale = ("ms", 1e3) if seconds > 1e-3 else ("us", 1e6)
    print(f"{name:40s} {seconds * scale:10.2f} {unit}/{per}", flush=True)


def want(name):
    return ONLY is None or any(o in name for o in ONLY)


def random_game(seed):
    rng = random.Random(seed)
    g = Game(seed=seed)
    actions = 0
    while not g.is_over:
        ph = g.phase
        if ph in ("opening", "roll"):
            if ph == "roll" and g.may_double() and rng.random() < 0.05:
                g.double()
                actions += 1
                if rng.random() < 0.3:
                    g.drop()
                else:
                    g.take()
                actions += 1
                continue
            g.roll()
        elif ph == "move":
            moves = g.legal_moves()
            g.play(moves[rng.randrange(len(moves))])
            actions += 1  # play = move + commit
        actions += 1
    return actions


if want("game"):
    n_actions = sum(random_game(s) for s in range(20))

    def games():
        for s in range(20):
            random_game(s)

    t = best(games, 1)
    report("game: per action (random games)", t / n_actions, "action")

st = Game(seed=1)
st.roll()
s0 = st.state
if want("replace"):
    report("GameState.replace (checked)", best(lambda: s0.replace(dice=(3, 1)), 2000))

mat = (
    Path(__file__).resolve().parent.parent / "tests" / "data" / "matches" / "noisy_7pt_seed1.mat"
).read_text()
if want("match"):
    m = Match.from_mat(mat)
    js = m.to_json()
    report("Match.from_mat (7pt)", best(lambda: Match.from_mat(mat), 3))
    report("Match.from_json (7pt)", best(lambda: Match.from_json(js), 3))
    report("Match.to_mat (7pt)", best(lambda: m.to_mat(), 3))
    report("Match.to_sgf (7pt)", best(lambda: m.to_sgf(), 3))

gid = "4HPwATDgc/ABMA:cIkKAAAAAAAA"
xg = "XGID=-b--BBC-C---cC---cBbc-b---:1:1:1:51:0:0:0:11:10"
if want("codec"):
    report("state_from_gnubg_id", best(lambda: codec.state_from_gnubg_id(gid), 2000))
    report("state_from_xgid", best(lambda: codec.state_from_xgid(xg), 2000))

p = [0.72, 0.12, 0.0, 0.05, 0.0]
if want("cubeful"):
    report("Stakes.check()", best(lambda: Stakes.check(), 2000))
    report(
        "Stakes.check(match 7, 2-3)", best(lambda: Stakes.check(match_length=7, score=(2, 3)), 2000)
    )
    report("cubeful._check_probabilities", best(lambda: cubeful._check_probabilities(p), 5000))
    report("cubeful.decide (money)", best(lambda: cubeful.decide(p), 2000))
    report(
        "cubeful.decide (match 7)",
        best(lambda: cubeful.decide(p, match_length=7, score=(2, 3)), 2000),
    )

if want("bearoff"):
    bearoff.two_sided()
    pair = ((1, 1, 1, 0, 0, 0), (0, 2, 1, 0, 0, 0))
    report("bearoff.win_probability", best(lambda: bearoff.win_probability(pair), 5000))
    report("bearoff.cubeful_equity", best(lambda: bearoff.cubeful_equity(pair), 5000))
    boards = np.zeros((64, 2, 25), dtype=np.uint8)
    rng = np.random.default_rng(1)
    for b in boards:
        for side in (0, 1):
            for _ in range(rng.integers(1, 7)):
                b[side, rng.integers(0, 6)] += 1
    money, match = Stakes.check(), Stakes.check(match_length=7, score=(2, 3))
    report(
        "exact_bearoff_values (64 rows, money)",
        best(lambda: cubeful.exact_bearoff_values(boards, money), 20),
    )
    report(
        "exact_bearoff_values (64 rows, match)",
        best(lambda: cubeful.exact_bearoff_values(boards, match), 20),
    )

if want("hint") or want("analyse"):
    net = bgfast.Net.wildbg()
    state = codec.state_from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
    if want("hint"):
        report("hint (contact, money)", best(lambda: bgfast.hint(net, state), 200))
        mstate = codec.state_from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:2:3:0:7:10")
        report("hint (contact, match 7)", best(lambda: bgfast.hint(net, mstate), 200))
        bo = codec.state_from_xgid("XGID=-bBB-----------------bbc--:0:0:1:31:0:0:0:0:10")
        report("hint (bear-off, money)", best(lambda: bgfast.hint(net, bo), 200))
    if want("analyse"):
        m = Match.from_mat(mat)
        report(
            "analyse (7pt match, threads=1)",
            best(lambda: bgfast.analyse(m, net, threads=1), 1, max(2, REPEAT // 2)),
        )
