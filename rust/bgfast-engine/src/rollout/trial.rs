//! One game of a rollout: the referee between the rolls, the cube and the plays.
//!
//! A [`Trial`] is a resumable game: [`Trial::begin_turn`] settles everything before a play
//! (the end of the game, truncation, the bear-off database, the cube, the roll and its
//! luck) and leaves the legal results in the workspace's list; the caller picks one (a net,
//! a built-in policy, or an evaluator outside Rust in lockstep) and hands it to
//! [`Trial::play`]. [`Trial::play_out`] does both with a native [`Player`].
//!
//! Values are computed for the side to move ("mover view") and turned into the branch
//! player's view when recorded. A net player picks the result worth most to the mover:
//! minus the opponent's value in the result (its cubeless equity in a cubeless money
//! rollout, its cubeful value after its own cube action in a cubeful one, its match
//! chances in match play).

use bgfast_core::bearoff::index::index_unchecked;
use bgfast_core::rng::GameRng;
use bgfast_core::{Dice, MoveList, Position, Side};

use super::dice::{GameDice, Rotation};
use super::{output, Branch, End, Outputs, Player, Spec, MAX_PLIES, OUTPUTS};
use crate::cube::{CubeContext, CubeLife, CubeOwner, Stakes};
use crate::eval::Probabilities;
use crate::net::{Net, Scratch};
use crate::playout::Policy;

/// A thread's reusable buffers: move lists and net scratch.
#[derive(Clone, Debug)]
pub struct Workspace {
    /// The legal results of the roll being played.
    pub list: MoveList,
    other: MoveList,
    scratch: Scratch,
    /// The evaluator's choice among `list` and its chances, once scored this turn.
    pub evaluator_best: Option<(usize, Probabilities)>,
}

impl Workspace {
    /// Empty buffers; they grow on first use.
    pub fn new() -> Workspace {
        Workspace {
            list: MoveList::new(),
            other: MoveList::new(),
            scratch: Scratch::new(),
            evaluator_best: None,
        }
    }
}

impl Default for Workspace {
    fn default() -> Workspace {
        Workspace::new()
    }
}

/// The outputs of chances `p` for the side to move, with `value` as the value.
fn outputs_of(p: &Probabilities, value: f64) -> Outputs {
    [
        f64::from(p.win),
        f64::from(p.win_gammon),
        f64::from(p.win_backgammon),
        f64::from(p.lose_gammon),
        f64::from(p.lose_backgammon),
        f64::from(p.equity()),
        value,
    ]
}

/// Outputs seen by the other side: chances swapped, equities negated, match chances
/// complemented.
fn flipped(o: &Outputs, is_match: bool) -> Outputs {
    [
        1.0 - o[output::WIN],
        o[output::LOSE_GAMMON],
        o[output::LOSE_BACKGAMMON],
        o[output::WIN_GAMMON],
        o[output::WIN_BACKGAMMON],
        -o[output::EQUITY],
        if is_match {
            1.0 - o[output::VALUE]
        } else {
            -o[output::VALUE]
        },
    ]
}

/// A difference of outputs seen by the other side (the constants of [`flipped`] cancel).
fn flipped_difference(d: &Outputs) -> Outputs {
    [
        -d[output::WIN],
        d[output::LOSE_GAMMON],
        d[output::LOSE_BACKGAMMON],
        d[output::WIN_GAMMON],
        d[output::WIN_BACKGAMMON],
        -d[output::EQUITY],
        -d[output::VALUE],
    ]
}

/// Which bear-off index a side's checkers have, if all are on its six home points and
/// there are at most 6 of them (the two-sided database's range).
fn two_sided_index(side: bgfast_core::Checkers) -> Option<u32> {
    if !side.all_home() || side.on_board() > 6 {
        return None;
    }
    let counts: [u8; 6] = core::array::from_fn(|k| side.count(k as u8 + 1));
    Some(index_unchecked(&counts))
}

/// One game in progress.
#[derive(Clone, Debug)]
pub struct Trial<'a> {
    pos: Position,
    /// The cube and stakes, seen from `pos`'s side to move.
    context: CubeContext<'a>,
    /// Whether `pos`'s side to move is the branch's player.
    mover_is_player: bool,
    is_match: bool,
    ply: u32,
    dice: GameDice,
    /// The luck so far, in the player's view.
    luck: Outputs,
    /// The evaluator's chances of `pos` for its side to move, once known.
    known: Option<Probabilities>,
    /// The first ply at which a side may turn the cube (see [`Branch::first_cube_ply`]).
    first_cube_ply: u32,
    normaliser: f64,
    cube_life: Option<CubeLife>,
    policy_rng: GameRng,
}

impl<'a> Trial<'a> {
    /// Game `game` of `branch` (`root` = the evaluator's chances of the branch's position,
    /// if computed already).
    pub fn new(
        spec: &Spec<'a>,
        rotation: Option<&Rotation>,
        branch: &Branch<'a>,
        game: u64,
        root: Option<Probabilities>,
    ) -> Trial<'a> {
        Trial {
            pos: branch.position,
            context: branch.context,
            mover_is_player: !branch.for_opponent,
            is_match: branch.is_match(),
            ply: 0,
            dice: GameDice::new(spec.seed, game, rotation),
            luck: [0.0; OUTPUTS],
            known: root,
            first_cube_ply: branch.first_cube_ply,
            normaliser: f64::from(branch.normaliser.get()),
            cube_life: spec.cube_life,
            policy_rng: GameDice::policy_rng(spec.seed, game),
        }
    }

    /// Plays the game out with a native player; its outputs (luck removed) and how it ended.
    pub fn play_out(
        mut self,
        spec: &Spec<'a>,
        player: &mut Player<'_>,
        ws: &mut Workspace,
    ) -> (Outputs, End) {
        loop {
            if let Some(end) = self.begin_turn(spec, ws) {
                return end;
            }
            let choice = if ws.list.len() == 1 {
                0
            } else {
                match player {
                    Player::Net(net) => {
                        if spec.evaluator.is_some_and(|e| core::ptr::eq(e, *net)) {
                            self.evaluator_choice(spec, ws)
                        } else {
                            self.net_choice(net, &ws.list, &mut ws.scratch).0
                        }
                    }
                    Player::Policy(policy) => policy.choose(&ws.list, &mut self.policy_rng),
                }
            };
            self.play(choice, ws);
        }
    }

    /// Settles the turn up to the play: `Some` with the game's outputs if it has ended,
    /// else `None` with the roll's legal results in `ws.list`.
    pub fn begin_turn(&mut self, spec: &Spec<'a>, ws: &mut Workspace) -> Option<(Outputs, End)> {
        ws.evaluator_best = None;
        if let Some(o) = self.pos.outcome() {
            let won = o.winner == Side::Mover;
            let outputs = self.outcome_outputs(won, o.kind.points());
            return Some(self.finish(outputs, End::Finished));
        }
        if spec.truncate.is_some_and(|t| self.ply >= t) {
            return Some(self.stop(spec, ws, End::Truncated));
        }
        if self.ply >= MAX_PLIES {
            return Some(self.stop(spec, ws, End::Capped));
        }
        if let Some(outputs) = self.exact_bearoff(spec) {
            return Some(self.finish(outputs, End::Bearoff));
        }
        if let Some(life) = spec.cube_life {
            if self.cube_in_play(0) && self.context.may_double() {
                let p = self.chances(spec, ws);
                let decision = self.context.decide(&p, life.at(&self.pos));
                if decision.double {
                    if !decision.take {
                        let value = self.money_scaled(decision.double_pass);
                        return Some(self.finish(outputs_of(&p, value), End::Passed));
                    }
                    let cube = if decision.beaver {
                        self.context.cube.beavered()
                    } else {
                        self.context.cube.taken()
                    };
                    self.context.cube = cube.expect("may_double keeps the cube below its limit");
                }
            }
        }
        let roll = self.dice.roll();
        if spec.variance_reduction {
            self.add_luck(spec, roll, ws);
        } else {
            self.pos.generate_moves(roll, &mut ws.list);
        }
        None
    }

    /// Plays result `choice` of `ws.list` (which [`Trial::begin_turn`] filled).
    pub fn play(&mut self, choice: usize, ws: &Workspace) {
        let known = ws.evaluator_best.filter(|&(best, _)| best == choice);
        self.play_result(ws.list.result(choice), known.map(|(_, p)| p));
    }

    /// Moves on to `result` (one of the legal results of the turn), whose chances for its
    /// side to move by the evaluator are `known` if computed.
    pub fn play_result(&mut self, result: Position, known: Option<Probabilities>) {
        self.known = known;
        self.pos = result;
        self.context = self.context.flipped();
        self.mover_is_player = !self.mover_is_player;
        self.ply += 1;
    }

    /// Whether a side may turn the cube `ahead` plies from now (the branch may hold the cube
    /// back for its first plies).
    fn cube_in_play(&self, ahead: u32) -> bool {
        self.ply + ahead >= self.first_cube_ply
    }

    /// The play the evaluator picks in `ws.list`, remembering its chances.
    pub fn evaluator_choice(&mut self, spec: &Spec<'a>, ws: &mut Workspace) -> usize {
        if let Some((best, _)) = ws.evaluator_best {
            return best;
        }
        let net = spec
            .evaluator
            .expect("called only when the evaluator plays");
        let (best, p) = self.net_choice(net, &ws.list, &mut ws.scratch);
        ws.evaluator_best = Some((best, p));
        best
    }

    /// The result of `list` worth most to the side to move by `net`, and its chances (for
    /// the opponent, who is to move in it); the first of equals.
    fn net_choice(
        &self,
        net: &Net,
        list: &MoveList,
        scratch: &mut Scratch,
    ) -> (usize, Probabilities) {
        let scores = net.score_results_with(list, scratch);
        let after = self.context.flipped();
        let mut best = 0;
        let mut best_value = f64::NEG_INFINITY;
        for (i, p) in scores.iter().enumerate() {
            let v = -self.opponent_value(&after, p, || list.result(i));
            if v > best_value {
                best_value = v;
                best = i;
            }
        }
        (best, scores[best])
    }

    /// The value of a result to its side to move (the opponent of the player choosing),
    /// as the choice compares it: a cubeless equity, a cubeful value or match chances
    /// relative to one half (so that minus it orders results for the chooser).
    /// `result` gives the result's position, asked for only when the cube life depends on
    /// it.
    fn opponent_value(
        &self,
        after: &CubeContext<'a>,
        p: &Probabilities,
        result: impl FnOnce() -> Position,
    ) -> f64 {
        match self.cube_life {
            None => after.dead(p),
            Some(CubeLife::Fixed(x)) => after.value(p, x),
            Some(life) => after.value(p, life.at(&result())),
        }
    }

    /// The chances of the position for its side to move, by the evaluator.
    fn chances(&mut self, spec: &Spec<'a>, ws: &mut Workspace) -> Probabilities {
        if let Some(p) = self.known {
            return p;
        }
        let net = spec.evaluator.expect(
            "Spec::check: cubeful play, truncation and variance reduction have an evaluator",
        );
        let p = net.evaluate_one_with(&self.pos, &mut ws.scratch);
        self.known = Some(p);
        p
    }

    /// Money values per unit of the branch's normalising cube (match chances unchanged).
    fn money_scaled(&self, v: f64) -> f64 {
        if self.is_match {
            v
        } else {
            v * f64::from(self.context.cube.value()) / self.normaliser
        }
    }

    /// The mover-view outputs of chances `p`, with the side to move's best cube action if it
    /// may double now.
    fn mover_outputs(&self, spec: &Spec<'a>, p: &Probabilities) -> Outputs {
        let value = match spec.cube_life {
            None => self.context.dead(p),
            // The side to move may not double yet (a no-double branch's first turn, or the
            // Holland rule): its value is not doubling's, whatever doubling would give.
            Some(life) if !self.cube_in_play(0) => self.context.no_double(p, life.at(&self.pos)),
            Some(life) => self.context.value(p, life.at(&self.pos)),
        };
        outputs_of(p, self.money_scaled(value))
    }

    /// The mover-view outputs of a game the mover won (`won`) or lost, by `points` (1 to 3).
    fn outcome_outputs(&self, won: bool, points: u32) -> Outputs {
        let gammon = f64::from(u8::from(points >= 2));
        let backgammon = f64::from(u8::from(points == 3));
        let sign = if won { 1.0 } else { -1.0 };
        let value = match &self.context.stakes {
            Stakes::Money(rules) => {
                let single = rules.jacoby && self.context.cube.owner() == CubeOwner::Centred;
                sign * self.money_scaled(if single { 1.0 } else { f64::from(points) })
            }
            Stakes::Match(score) => {
                score.mwc_after(0, usize::from(!won), points * self.context.cube.value())
            }
        };
        let (win, lose) = if won {
            ([1.0, gammon, backgammon], [0.0, 0.0])
        } else {
            ([0.0, 0.0, 0.0], [gammon, backgammon])
        };
        [
            win[0],
            win[1],
            win[2],
            lose[0],
            lose[1],
            sign * f64::from(points),
            value,
        ]
    }

    /// The exact value when both sides are in the two-sided database's range and the
    /// rollout asks for it (cubeless, or cubeful money).
    fn exact_bearoff(&self, spec: &Spec<'a>) -> Option<Outputs> {
        let may_double = self.cube_in_play(0) && self.context.may_double();
        self.exact_outputs(spec, &self.pos, &self.context, may_double)
    }

    /// The exact outputs of `pos` for its side to move, seen with `context` (the cube's
    /// value is this trial's), when the rollout ends games there (see
    /// [`Trial::exact_bearoff`]); `may_double` if that side may double first.
    fn exact_outputs(
        &self,
        spec: &Spec<'a>,
        pos: &Position,
        context: &CubeContext<'a>,
        may_double: bool,
    ) -> Option<Outputs> {
        let table = spec.bearoff?;
        let cubeful = spec.cube_life.is_some();
        if cubeful && self.is_match {
            return None;
        }
        let mover = two_sided_index(pos.mover())?;
        let opponent = two_sided_index(pos.opponent())?;
        let p = table.win_probability_by_index(mover, opponent);
        let equity = 2.0 * p - 1.0;
        let value = match (&context.stakes, cubeful) {
            (Stakes::Match(score), _) => {
                let c = context.cube.value();
                let lost = score.mwc_after(0, 1, c);
                lost + p * (score.mwc_after(0, 0, c) - lost)
            }
            (Stakes::Money(_), false) => self.money_scaled(equity),
            (Stakes::Money(_), true) => {
                let cube = context.cube;
                let state = match cube.owner() {
                    CubeOwner::Centred => bgfast_core::bearoff::CubeState::Centred,
                    CubeOwner::Mover => bgfast_core::bearoff::CubeState::Owned,
                    CubeOwner::Opponent => bgfast_core::bearoff::CubeState::Unavailable,
                };
                let cubeful = table.cubeful_equity_by_index(
                    mover,
                    opponent,
                    state,
                    may_double,
                    Some(cube.doubles_left()),
                )?;
                self.money_scaled(cubeful)
            }
        };
        Some([p, 0.0, 0.0, 0.0, 0.0, equity, value])
    }

    /// The outputs of a game stopped here: scored by the evaluator (zero without one, only
    /// possible at the ply cap).
    fn stop(&mut self, spec: &Spec<'a>, ws: &mut Workspace, end: End) -> (Outputs, End) {
        if spec.evaluator.is_none() {
            return ([0.0; OUTPUTS], end);
        }
        let p = self.chances(spec, ws);
        let outputs = self.mover_outputs(spec, &p);
        self.finish(outputs, end)
    }

    /// The game's outputs for the player, luck removed.
    fn finish(&self, mover_view: Outputs, end: End) -> (Outputs, End) {
        let mut o = if self.mover_is_player {
            mover_view
        } else {
            flipped(&mover_view, self.is_match)
        };
        for (x, l) in o.iter_mut().zip(&self.luck) {
            *x -= l;
        }
        (o, end)
    }

    /// Measures the luck of `roll` with the evaluator over all 21 rolls and adds it; leaves
    /// `roll`'s results in `ws.list` and the evaluator's choice among them in
    /// `ws.evaluator_best`.
    fn add_luck(&mut self, spec: &Spec<'a>, roll: Dice, ws: &mut Workspace) {
        let net = spec
            .evaluator
            .expect("Spec::check: variance reduction has an evaluator");
        let after = self.context.flipped();
        let mut mean = [0.0f64; OUTPUTS];
        let mut rolled = [0.0f64; OUTPUTS];
        for dice in Dice::ALL_21 {
            let list = if dice == roll {
                &mut ws.list
            } else {
                &mut ws.other
            };
            self.pos.generate_moves(dice, list);
            let (best, p) = self.net_choice(net, list, &mut ws.scratch);
            // The best result's outputs, for its side to move, then for ours: exact where
            // the game would end exactly, so that the luck measures what the game scores.
            let result = list.result(best);
            let theirs = self
                .exact_outputs(
                    spec,
                    &result,
                    &after,
                    self.cube_in_play(1) && after.may_double(),
                )
                .unwrap_or_else(|| outputs_of(&p, self.opponent_scaled(&after, &p, result)));
            let ours = flipped(&theirs, self.is_match);
            let weight = f64::from(dice.weight()) / 36.0;
            for (m, v) in mean.iter_mut().zip(&ours) {
                *m += weight * v;
            }
            if dice == roll {
                rolled = ours;
                ws.evaluator_best = Some((best, p));
            }
        }
        let mut luck = [0.0f64; OUTPUTS];
        for ((l, r), m) in luck.iter_mut().zip(&rolled).zip(&mean) {
            *l = r - m;
        }
        let luck = if self.mover_is_player {
            luck
        } else {
            flipped_difference(&luck)
        };
        for (total, l) in self.luck.iter_mut().zip(&luck) {
            *total += l;
        }
    }

    /// A result's value for its side to move, in the branch's money units.
    fn opponent_scaled(&self, after: &CubeContext<'a>, p: &Probabilities, result: Position) -> f64 {
        self.money_scaled(self.opponent_value(after, p, || result))
    }
}
