"""How the ISMCTS searches: one frozen record of every setting, with its defaults in one place.

`advise`, the bots (`ismcts:` specs), the engine (`dnoir engine` options and `setoption`) and
`dnoir advise` all take a `SearchConfig`; a setting given on its own (an option, a spec key)
replaces that field of the preset it starts from. `PRESETS` names the configurations that
can be asked for by name: `default`, the strongest found by the SPRT tests of
bench/STRENGTH.md, and the searches earlier commits shipped as their default, so an old answer
can be reproduced: `66bbc8c` (before test 42 made a take before round 4 stand only when it
beats the best play by 0.015), `5e7c200` (before test 36 made the polynomial exploration bonus
the default), `29c04e6` (before test 27 made the `taker` playouts the default), `7d9ffe8`
(before test 19 made the round-end model and the constant 0.35 the default) and `388581d`
(before the strength work of issue 20).

>>> SearchConfig().exploration == PRESETS["default"].exploration
True
>>> PRESETS["388581d"].replace(exploration=1.0).exploration
1.0
>>> SearchConfig(policy="clever")
Traceback (most recent call last):
...
solver.errors.ArgumentError: policy: 'clever' is not one of random, greedy, taker, guard
"""

from __future__ import annotations

import inspect
from dataclasses import asdict, dataclass, fields, replace
from enum import Enum

from solver.base.bounds import MAX_EXPLORATION, MAX_MODEL_TEMPERATURE, MAX_NODES, MAX_TREE_ROUNDS, MIN_MODEL_TEMPERATURE
from solver.errors import ArgumentError
from solver.solvers._ismcts import MAX_HAND_PRIOR, MAX_POLY_BONUS, POLICY_NAMES


class Policy(str, Enum):
    """The playout policy of the ISMCTS (ext/policy.pxd): a str equal to the name the
    options, spec keys and JSON use."""

    RANDOM = "random"  # uniform over the distinct legal moves
    GREEDY = "greedy"  # the move worth most to the mover now (solver.solvers._ismcts's greedy_move)
    TAKER = "taker"    # random plays; a take when the line is worth it, the third city always
    GUARD = "guard"    # taker, not handing the opponent its third city within the round

    def __str__(self) -> str:
        return self.value



@dataclass(frozen=True)
class SearchConfig:
    """Every setting of one ISMCTS search (see bench/STRENGTH.md for what each was tested at).

    - `exploration`: the UCB constant at the searching player's own decisions (0.35 since
      bench/STRENGTH.md's test 19, with `round_model`; 0.7 before, for played-out results);
    - `opponent_exploration`: the constant at the opponent's decisions (None: `exploration`);
    - `root_exploration`: the constant at the root, whose visits choose the advice (None:
      `exploration`);
    - `round4_exploration`: with `round_model`, the constant at both players' round-4 decisions
      in a tree whose root is in rounds 1-3 (None: the constants above). With the model those
      are the only nodes whose results are all played out, 0, 1/2 or 1, rather than the model's
      probabilities, so the constant tuned for the model's values may explore them too little
      (0.7 searched round 4 itself as well as the solver plays it, where 0.35 lost); off by
      default (bench/STRENGTH.md's test 33: +1.5 +- 4.2 Elo, undecided); no effect without the model;
    - `poly_bonus`: with `round_model`, k > 0 replaces UCB1's exploration bonus
      c * sqrt(ln(avail) / visits) at every decision by the polynomial c * k * avail^(1/4) /
      sqrt(visits) (Shah, Xie and Xu 2020, for values that drift as the tree below a node
      learns). With k = 0.467 the two agree at 1,000 visits: the polynomial explores less below
      (the deep nodes follow their best moves) and more above (the root and the nodes near it).
      0.467 by default since bench/STRENGTH.md's test 36 (0, UCB1's, before: the preset 5e7c200); no
      effect without the model;
    - `policy`: the playout policy, 'random' (uniform over the distinct legal moves),
      'greedy' or 'taker' (random plays, a take that follows what the line is worth: the default
      since bench/STRENGTH.md's test 27, with `round_model`);
      `guard` is taker that does not hand the opponent its third city within the round: while
      the opponent holds two cities, the mover none, and the opponent may still take this
      round, the mover takes a line with a city within reach and plays no city while it holds
      another card;
    - `third_city`: with `round_model`, a round end whose next first player holds two cities,
      with a city within reach of a take, is scored as its win (its first move takes the third
      city) rather than by the model, which reads no city in the line and puts it near 1/2;
    - `margin_weight`: how much the final margin counts in the selection (a margin of 40
      points is worth this fraction of a win; 0: results only);
    - `take_margin`: in rounds 1-3, the search's take is played only when its mean beats the
      best mean among the plays the search gave a twentieth of the take's visits or more by
      this much (a fraction of a win); otherwise that play is. Graded against the equilibrium
      of round tails (the last 6 actions of a round solved as the hidden-information game
      whose leaves are the round's ends, valued by the round-end model), the search takes
      where the equilibrium plays three times as often as the reverse at a 100 ms move's
      visits, more often the longer it searches, and 0.015 cuts that loss by a quarter
      (bench/STRENGTH.md, round 34); 0.015 by default since its test 42 (0, the search's own
      choice, before: the preset 66bbc8c);
    - `tuned`: UCB1-Tuned, each move's exploration shrunk by the spread of its results;
    - `opponent_hands`: the opponent chooses by what each move brought it with the hand it holds in
      the sampled world (statistics per decision and hand, the shared mean counted as this many
      visits of prior; 0: off, the opponent's choices averaged over all its hands; 10 since
      bench/STRENGTH.md's test 8);
    - `hand_bandit`: with `opponent_hands`, each hand the opponent may hold is its own bandit at
      a decision: its moves are chosen by their per-hand means plus an exploration term from that
      hand's own counts (not the shared one), and the per-hand sums hold the round-end model's
      exact values rather than results drawn with them (bench/STRENGTH.md's tests 25 and 26);
    - `model_temperature`: with `round_model`, the model's logit is multiplied by this (1: the
      model as fitted, the chance of a win under random play). Random play turns a lead into a
      win less surely than real play does: on the round ends of recorded engine games the
      logit that predicts the result best is 1.75-1.86 times the fitted one, so with 1.75 the
      model's values are on the scale of the results the tree also backs up (a third city
      taken, round 4 played out) and of the chances the advice prints. The order of the round
      ends is unchanged; a larger spread of values wants a larger constant (1.75 with 0.6 is
      0.35's exploration near even chances). 1 by default (bench/STRENGTH.md's test 34 is its SPRT);
    - `reuse`: a player that searches move after move (`advise` with a KeptTree: the engine,
      the bots) goes on from the subtree of its last search below its move and the opponent's
      reply, when the game continues within the round, instead of an empty tree;
    - `tree_rounds`: how many rounds the tree spans, the root's first (0: to the game's end);
      with 1, an iteration leaves the tree when the root's round ends and plays the rest out
      at random (the later rounds' nodes mix the hands the worlds deal there); with
      `round_model`, the model scores the round's end where the tree stops, at once;
    - `settled_stop`: the descent and the playout end once the result is settled (round 4,
      both players have taken: no card changes owner again), scored as the collections stand:
      the same results for fewer moves, but another stream of random numbers;
    - `round_model`: playouts end with the round they start in and back up the round-end model's
      chance of a win from there (solver.solvers.roundmodel) instead of playing the rounds left
      at random (on since bench/STRENGTH.md's test 19, with the constant 0.35; test 14 had found no
      gain with 0.7); results are then
      not played-out games, so the advice shows no win/draw/loss split or margin before round 4;
    - `max_nodes`: the node pool of the trees, over every thread (NODE_BYTES, 56 bytes, a node:
      32 for the node and its share of the per-hand table that `opponent_hands` uses, at most
      max_nodes / 4 entries of 64 bytes, half as many again while the table doubles).
    """

    exploration: float = 0.35
    opponent_exploration: float | None = None
    root_exploration: float | None = None
    round4_exploration: float | None = None
    poly_bonus: float = 0.467
    policy: Policy = Policy.TAKER
    margin_weight: float = 0.0
    take_margin: float = 0.015
    tuned: bool = False
    opponent_hands: float = 10.0
    reuse: bool = True
    max_nodes: int = 5_000_000
    round_model: bool = True
    tree_rounds: int = 0
    settled_stop: bool = False
    hand_bandit: bool = False
    model_temperature: float = 1.0
    third_city: bool = False

    def __post_init__(self):
        _real("exploration", self.exploration, 0.0, MAX_EXPLORATION)
        if self.opponent_exploration is not None:
            _real("opponent_exploration", self.opponent_exploration, 0.0, MAX_EXPLORATION)
        if self.root_exploration is not None:
            _real("root_exploration", self.root_exploration, 0.0, MAX_EXPLORATION)
        if self.round4_exploration is not None:
            _real("round4_exploration", self.round4_exploration, 0.0, MAX_EXPLORATION)
        _real("poly_bonus", self.poly_bonus, 0.0, MAX_POLY_BONUS)
        if self.policy not in POLICY_NAMES:
            raise ArgumentError(f"policy: {str(self.policy)[:40]!r} is not one of {', '.join(POLICY_NAMES)}")
        object.__setattr__(self, "policy", Policy(self.policy))  # a name given as text becomes the Policy
        _real("margin_weight", self.margin_weight, 0.0, 1.0)
        _real("take_margin", self.take_margin, 0.0, 1.0)
        _real("opponent_hands", self.opponent_hands, 0.0, MAX_HAND_PRIOR)
        _real("model_temperature", self.model_temperature, MIN_MODEL_TEMPERATURE, MAX_MODEL_TEMPERATURE)
        _whole("tree_rounds", self.tree_rounds, 0, MAX_TREE_ROUNDS)
        for name in ("tuned", "reuse", "round_model", "settled_stop", "hand_bandit", "third_city"):
            if not isinstance(getattr(self, name), bool):
                raise ArgumentError(f"{name}: {getattr(self, name)!r} is not True or False")
        if self.round_model and (self.margin_weight != 0 or self.tuned):
            raise ArgumentError("round_model: the margin term and UCB1-Tuned need played-out games, "
                                "which the round-end model does not play (turn it off: --no-round-model, "
                                "round_model=0)")
        _whole("max_nodes", self.max_nodes, 1, MAX_NODES)

    def replace(self, **changes) -> "SearchConfig":
        """This configuration with the given fields changed (None leaves a field as it is)."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ArgumentError(f"unknown search setting {unknown[0]!r} (one of {', '.join(sorted(known))})")
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @property
    def opponent(self) -> float:
        """The exploration constant at the opponent's decisions."""
        return self.exploration if self.opponent_exploration is None else self.opponent_exploration

    @property
    def name(self) -> str | None:
        """The preset this configuration is, if any ('default' first)."""
        return next((name for name, preset in PRESETS.items() if preset == self), None)

    @property
    def assumes(self) -> str:
        """What the search assumes, in words, as `dnoir advise` prints it.

        >>> PRESETS["388581d"].assumes
        'worlds sampled uniformly from the cards the mover cannot see; both sides choose by UCB1 (exploration 0.7) over results; random playouts'
        """
        select = "UCB1-Tuned" if self.tuned else "UCB1"
        if self.poly_bonus and self.round_model:
            select = "UCB with a polynomial bonus"
        constant = f"exploration {self.exploration:g}"
        if self.opponent != self.exploration:
            constant += f", {self.opponent:g} at the opponent's decisions"
        if self.root_exploration is not None and self.root_exploration != self.exploration:
            constant += f", {self.root_exploration:g} at the root"
        if self.round_model and self.round4_exploration is not None and self.tree_rounds != 1:
            constant += f", {self.round4_exploration:g} at round 4's decisions below rounds 1-3"
        if self.poly_bonus and self.round_model:
            constant += f", times {self.poly_bonus:g} avail^(1/4) / sqrt(visits) in place of sqrt(ln(avail) / visits)"
        value = "results" if self.margin_weight == 0 else f"results and {self.margin_weight:g} of a win per 40 points of margin"
        hands = "" if self.opponent_hands == 0 else \
            f"; the opponent's choices learnt per hand it holds (prior {self.opponent_hands:g} visits)"
        if hands and self.hand_bandit:
            hands += ", each hand explored on its own"
        tree = ""
        if self.tree_rounds:
            tree = "; the tree within the root's round" if self.tree_rounds == 1 else \
                f"; the tree within {self.tree_rounds} rounds from the root's"
        playouts = f"{self.policy} playouts"
        if self.policy == Policy.TAKER:
            playouts += " (random plays, the take when the line is worth it)"
        elif self.policy == Policy.GUARD:
            playouts += " (random plays, the take when the line is worth it, not the opponent's third city)"
        if self.settled_stop:
            playouts += " ending once the result is settled"
        if self.round_model:
            playouts += (" to the end of their round, scored by the round-end model "
                         "(the chance of a win under random play from there")
            if self.model_temperature != 1.0:
                playouts += f", its logit times {self.model_temperature:g}"
            if self.third_city:
                playouts += "; a win where the next round's first player takes its third city at once"
            playouts += ")"
            if self.tree_rounds:
                playouts += ", as the tree is where it ends with a round"
        # What the margin does is the recommended move's rule (search.TAKE_RULE), printed beside
        # this line: here only its value, so that the rule is not worded twice.
        take = "" if self.take_margin == 0 else f"; the take margin {self.take_margin:g} before round 4"
        return (f"worlds sampled uniformly from the cards the mover cannot see; both sides choose by {select} "
                f"({constant}) over {value}{hands}{tree}; {playouts}{take}")

    def to_dict(self) -> dict:
        """The JSON form, as `dnoir advise --json` prints it under `search`."""
        return dict(asdict(self), name=self.name, assumes=self.assumes)


def from_options(preset: str = "default", *, policy=None, exploration=None, opponent_exploration=None,
                 root_exploration=None, round4_exploration=None, poly_bonus=None, margin=None, take_margin=None,
                 tuned=None, opponent_hands=None,
                 reuse=None, round_model=None, tree_rounds=None, settled_stop=None,
                 hand_bandit=None, model_temperature=None, third_city=None) -> SearchConfig:
    """The configuration that the options of the CLI and the `ismcts:` spec keys name: the
    preset, with each given option (None: the preset's) replacing its field. `margin` is
    `margin_weight`; `tuned`, `reuse`, `round_model`, `settled_stop`, `hand_bandit` and `third_city` may be given
    as 0 or 1,
    as a spec writes them.

    >>> from_options("388581d", margin=0.2, tuned=1).margin_weight, from_options(tuned=1, round_model=0).tuned
    (0.2, True)
    """
    if preset not in PRESETS:
        raise ArgumentError(f"search: {str(preset)[:40]!r} is not one of {', '.join(PRESETS)}")
    return PRESETS[preset].replace(policy=policy, exploration=exploration, opponent_exploration=opponent_exploration,
                                   root_exploration=root_exploration, round4_exploration=round4_exploration,
                                   poly_bonus=poly_bonus, margin_weight=margin, take_margin=take_margin,
                                   tuned=None if tuned is None else bool(tuned),
                                   opponent_hands=opponent_hands, reuse=None if reuse is None else bool(reuse),
                                   round_model=None if round_model is None else bool(round_model),
                                   tree_rounds=tree_rounds,
                                   settled_stop=None if settled_stop is None else bool(settled_stop),
                                   hand_bandit=None if hand_bandit is None else bool(hand_bandit),
                                   model_temperature=model_temperature,
                                   third_city=None if third_city is None else bool(third_city))


# The settings an option or a spec key may give on top of a preset: from_options' keywords.
OPTIONS = tuple(name for name, p in inspect.signature(from_options).parameters.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY)


def _real(name: str, value, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ArgumentError(f"{name}: {value!r} is out of range ({low:g} to {high:g})")


def _whole(name: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ArgumentError(f"{name}: {value!r} is out of range ({low} to {high})")


# The configurations that can be asked for by name (`--search NAME`, spec key `search`).
PRESETS = {
    "default": SearchConfig(),
    "66bbc8c": SearchConfig(take_margin=0.0),
    "5e7c200": SearchConfig(poly_bonus=0.0, take_margin=0.0),
    "29c04e6": SearchConfig(policy=Policy.RANDOM, poly_bonus=0.0, take_margin=0.0),
    "7d9ffe8": SearchConfig(exploration=0.7, round_model=False, policy=Policy.RANDOM, poly_bonus=0.0,
                            take_margin=0.0),
    "388581d": SearchConfig(exploration=0.7, round_model=False, opponent_hands=0.0, reuse=False,
                            policy=Policy.RANDOM, poly_bonus=0.0, take_margin=0.0),
}
