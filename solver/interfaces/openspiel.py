"""District Noir as an OpenSpiel game: importing this module registers `python_district_noir`.

    >>> import pyspiel, solver.interfaces.openspiel
    >>> game = pyspiel.load_game("python_district_noir")
    >>> state = game.new_initial_state()
    >>> state.is_chance_node(), state.chance_outcomes()
    (True, [(0, 0.5), (1, 0.5)])

The state is a `solver.Position` (the C rules core answers every rule question); this module
only adds what OpenSpiel needs around it: chance nodes for the deals, action numbers,
information states and returns.

Players and actions: player 0 is `a`, player 1 is `b` (docs/notation.md). Actions 0-10 play one
card of a kind (`solver.rules.cards.KINDS` order `5 6 7 8 +2 +3 +4 -1 -2 -3 C`), action 11 is the take.

Chance nodes (explicit, exact probabilities), in this order:

* the coin flip for the first player of round 1 (outcome 0: a starts, 1: b starts);
* a's hand, then b's hand: eleven nodes per hand, one per kind in canonical order, whose
  outcome is how many cards of that kind the hand gets (0-5). The probability of c cards of
  kind k when m cards are still to come is the hypergeometric C(n_k, c) C(n_>k, m - c) / C(n_>=k, m)
  over the undealt cards, so a hand of five is one path of eleven nodes whose probability is
  exactly that of the hand, and the tree has one branch per distinct hand instead of one per
  ordered sequence of cards (hands are unordered). Nodes with a single possible count stay in
  the tree (probability 1), so the shape of the tree never depends on the hidden cards;
* the two line cards, oldest first, one node each (outcome: the kind, probability count/undealt);
* at the end of rounds 1-3, the new hands the same way: first the hand of the player who starts
  the new round, then the other (docs/rules.md's convention for an ordered deck).

The undealt cards are the deck and the 3 removed cards together: the removed cards are simply
the three never dealt, which gives every deal its exact probability.

Game parameters:

* `margin` (bool, default False): returns are the point margin (a's total minus b's, a city win
  counting as `MAX_MARGIN`) instead of win 1 / loss -1 / draw 0.
* `dnp` (string, default empty): start from a DNP position instead of the deal. What the DNP
  gives is fixed (a known hand, the deck order, the removed cards); what it hides is dealt by
  chance from the cards it leaves unseen: a `?` hand at the start, the deck (when omitted) at the
  end of each round. A full round-4 DNP has no chance node; with `??/??` hands the game starts
  with both hands dealt from the unseen cards, a small imperfect-information game that
  OpenSpiel's CFR+ solves in under a minute (docs/adapters.md).

Information state (`information_state_string`/`_tensor`) is perfect recall: the observation
plus everything the player has seen happen (own cards dealt, line cards dealt, the coin flip,
every move). The observation (`observation_string`/`_tensor`) is the player's current view:
the string is the view's DNP (`Position.view`), the tensor is `solver.interfaces.observation.encode_view`.

Speed: `clone()` shares the state's immutable fields instead of copying them. A move and
the legal moves are asked of the position's core state directly (cheaper than any lookup);
a bounded memo (`MEMO`) keeps the answers that cost more (the returns of a finished game,
a player's view as DNP) for positions met again, so algorithms that walk the same tree
many times (CFR, exploitability, ISMCTS) pay for those once.
"""

from __future__ import annotations

import math

import numpy as np
import pyspiel

from solver.agents.bots import make_bot
from solver.interfaces.observation import OBSERVATION_SIZE, encode_view
from solver.rules import _core
from solver.rules.cards import COMPOSITION, KINDS, NKINDS, TAKE, Move
from solver.rules.notation import ACTIONS_PER_ROUND, HAND_SIZE, LINE_START, PLAYERS, ROUNDS
from solver.rules.position import Position
from solver.solvers.endgame import unseen_pool

GAME_NAME = "python_district_noir"
NUM_ACTIONS = NKINDS + 1  # 11 plays and the take
MAX_MOVES = ROUNDS * 2 * ACTIONS_PER_ROUND  # 48
# The largest point margin the scoring allows (the core derives it from the scoring rule: 86,
# every majority, set and alliance against every betrayal). A city win counts as this margin.
MAX_MARGIN = _core.MAX_MARGIN
_EMPTY = (0,) * NKINDS

# Chance steps: the coin flip, one line card, or the count of one kind in one player's hand
# (encoded as player * NKINDS + kind, so every step is a small int).
_COIN = -1
_LINE = -2

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="District Noir (solver core)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"dnp": "", "margin": False},
)


def _game_info(margin: bool) -> pyspiel.GameInfo:
    bound = float(MAX_MARGIN) if margin else 1.0
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=NKINDS,
        num_players=2,
        min_utility=-bound,
        max_utility=bound,
        utility_sum=0.0,
        max_game_length=MAX_MOVES,
    )


class _Memo:
    """A bounded memo of the core's answers about Positions (immutable and hashable).

    Algorithms that walk the tree again and again (CFR, exploitability, ISMCTS) meet the same
    positions every iteration; asking the core once keeps their cost in OpenSpiel's own loop.
    The rules are the same in every game, so one memo serves all games. When full it starts over.
    """

    def __init__(self, size: int = 1 << 16):
        self.size = size
        self.views: dict = {}
        self.finals: dict = {}

    def _room(self, table: dict) -> dict:
        if len(table) >= self.size:
            table.clear()
        return table

    def returns(self, pos: Position, margin: bool) -> tuple[float, float]:
        """The returns of the finished `pos`: win 1 / loss -1 / draw 0, or the point margin."""
        key = (pos, margin)
        out = self.finals.get(key)
        if out is None:
            out = self._room(self.finals)[key] = _returns(pos.result(), margin)
        return out

    def view(self, pos: Position, player: int) -> str:
        """The DNP of `pos.view(player)`."""
        key = (pos, player)
        out = self.views.get(key)
        if out is None:
            out = self._room(self.views)[key] = str(pos.view(player))
        return out


MEMO = _Memo()


def _returns(result, margin: bool) -> tuple[float, float]:
    if margin:
        if result.how == "city":
            diff = float(MAX_MARGIN if result.winner == "a" else -MAX_MARGIN)
        else:
            diff = float(result.scores[0].total - result.scores[1].total)
        return (diff, -diff)
    if result.winner == "draw":
        return (0.0, 0.0)
    return (1.0, -1.0) if result.winner == "a" else (-1.0, 1.0)


def _subtract(counts, cards=(), *count_tuples):
    """counts minus a sequence of kinds and minus some count tuples, as a list."""
    out = list(counts)
    for k in cards:
        out[k] -= 1
    for c in count_tuples:
        for k in range(NKINDS):
            out[k] -= c[k]
    return out


def undealt_cards(pos: Position) -> list[int]:
    """Counts per kind of the cards no field of `pos` fixes: the hidden hands, the deck when
    unknown and the removed cards when unknown. Chance deals these."""
    known_hands = [h for h in pos.hands if h is not None]
    return _subtract(COMPOSITION, pos.line + (pos.deck or ()) + (pos.removed or ()), *pos.colls, *known_hands)


def count_probabilities(pool, kind: int, needed: int) -> list[tuple[int, float]]:
    """[(c, P(the hand gets c cards of `kind`))] when `needed` more cards come from `pool`
    (counts per kind) and the kinds before `kind` are already settled.

    >>> count_probabilities([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0, 1)
    [(0, 0.5), (1, 0.5)]
    """
    here = pool[kind]
    above = sum(pool[kind + 1:])
    total = math.comb(here + above, needed)
    return [(c, math.comb(here, c) * math.comb(above, needed - c) / total)
            for c in range(min(here, needed) + 1) if needed - c <= above]


class DistrictNoirGame(pyspiel.Game):
    """The game object; `pyspiel.load_game("python_district_noir", {...})` builds one."""

    def __init__(self, params=None):
        params = dict(params or {})
        self.margin = bool(params.get("margin", False))
        self.start = _parse_start(str(params.get("dnp", "") or ""))
        self._initial = None  # the fields of the first state, made once
        super().__init__(_GAME_TYPE, _game_info(self.margin), params)

    def new_initial_state(self):
        """The first state: the coin flip, or the `dnp` position (with its `?` hands to deal)."""
        state = DistrictNoirState(self)
        if self._initial is None:
            state._setup(self)
            self._initial = state._f
        else:  # OpenSpiel's clone() starts from here too: keep it cheap
            state._f = self._initial
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer behind the observation (default) and information-state methods."""
        return DistrictNoirObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


def _parse_start(dnp: str) -> Position | None:
    if not dnp.strip():
        return None
    try:
        pos = Position.parse(dnp.strip())
    except ValueError as e:
        raise ValueError(f"dnp: {e}") from None
    if pos.is_over:
        raise ValueError("dnp: the game is over in this position; give one with a move to make")
    return pos


class _Fields:
    """Everything a state holds, all immutable values (Positions, ints, tuples).

    States share one _Fields until one of them changes: a state copies its fields before
    changing them (`_own`), so OpenSpiel's `clone()`, which deep-copies a state's attributes,
    shares them instead (`__deepcopy__` returns the same object) and costs almost nothing.
    """

    __slots__ = ("pos", "margin", "steps", "step", "pool", "needed", "dealt", "first", "legal",
                 "tokens", "moves", "start_line", "round_hands", "blocks", "returns")

    def copy(self) -> "_Fields":
        """A new _Fields with the same values."""
        new = _Fields.__new__(_Fields)
        for name in _Fields.__slots__:
            setattr(new, name, getattr(self, name))
        return new

    def __deepcopy__(self, memo):
        return self

    def __getstate__(self):
        return {name: getattr(self, name) for name in _Fields.__slots__}

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)


def _replace_at(items: tuple, index: int, value) -> tuple:
    return items[:index] + (value,) + items[index + 1:]


class DistrictNoirState(pyspiel.State):
    """One state of the game; see the module docstring for actions and chance nodes.

    Built by `DistrictNoirGame.new_initial_state`; OpenSpiel's `clone()` and deserialisation
    call the constructor too and then copy the fields in, so the constructor does no work.
    """

    def __init__(self, game):
        super().__init__(game)
        self._f = None
        self._ghost = None  # set only while `resample_from_infostate` replays a history

    def _setup(self, game) -> None:
        f = self._f = _Fields()
        f.margin = game.margin
        f.pos = game.start
        f.steps, f.step = (), 0
        f.pool = COMPOSITION
        f.needed = (0, 0)             # cards still to deal to each hand in this chance phase
        f.dealt = (_EMPTY, _EMPTY)    # counts dealt to each hand in this chance phase
        f.first = None
        f.legal = ()
        f.tokens = ((), ())           # per player, one token per history entry ("" = nothing seen)
        f.moves = ()
        f.start_line = ()
        f.round_hands = ((None,) * ROUNDS, (None,) * ROUNDS)  # own hand as each round began
        f.blocks = (None, None)       # per player: the history index of the first chance node
        #                               that dealt the current hand; None if chance did not deal it
        f.returns = None
        if f.pos is None:
            f.steps = (_COIN,)
        else:
            self._start_from(f.pos)

    # -- chance phases ---------------------------------------------------------------

    def _start_from(self, pos: Position) -> None:
        """Schedule the deal of the `dnp` start's hidden hands, or start play."""
        hidden = [p for p in range(2) if pos.hands[p] is None]
        for p in range(2):
            if pos.hands[p] is not None:
                self._record_round_hand(p, pos.round, pos.hands[p])
        if hidden:
            self._schedule_hands(hidden, undealt_cards(pos), tuple(pos.hand_sizes))
        else:
            self._begin_turn()

    def _record_round_hand(self, player: int, round_: int, hand) -> None:
        f = self._f
        f.round_hands = _replace_at(f.round_hands, player, _replace_at(f.round_hands[player], round_ - 1, hand))

    def _schedule_hands(self, players, pool, sizes, then=()) -> None:
        """Chance nodes for the hands of `players` (in order), then the steps `then`."""
        f = self._f
        f.pool = tuple(pool)
        f.steps = tuple(p * NKINDS + k for p in players for k in range(NKINDS)) + tuple(then)
        f.step = 0
        f.needed = tuple(sizes[p] if p in players else 0 for p in range(2))
        f.dealt = (_EMPTY, _EMPTY)
        base = len(f.tokens[0])
        f.blocks = tuple(base + players.index(p) * NKINDS if p in players else None for p in range(2))

    def _finish_deal(self) -> None:
        """All chance nodes of a phase are done: put the dealt hands into the position."""
        f = self._f
        dealt = [p for p in range(2) if f.blocks[p] is not None]
        f.steps, f.step = (), 0
        if f.pos is None:  # the opening deal
            f.pos = Position(line=f.start_line, hands=f.dealt, hand_sizes=(HAND_SIZE, HAND_SIZE),
                             colls=(_EMPTY, _EMPTY), round=1, to_move=f.first, taken=0)
        else:
            f.pos = f.pos.replace(hands=tuple(f.dealt[p] if p in dealt else f.pos.hands[p] for p in range(2)))
        for p in dealt:
            self._record_round_hand(p, f.pos.round, f.dealt[p])
        self._begin_turn()

    def _begin_turn(self) -> None:
        self._f.legal = tuple(m.index for m in self._f.pos.legal_moves())

    # -- the OpenSpiel State API -------------------------------------------------------

    def current_player(self):
        """The player to move (0 = a, 1 = b), CHANCE while cards are dealt, or TERMINAL."""
        if self._ghost is not None:
            return self._ghost[0]
        f = self._f
        if f.returns is not None:
            return pyspiel.PlayerId.TERMINAL
        if f.steps:
            return pyspiel.PlayerId.CHANCE
        return f.pos.to_move

    def is_terminal(self):
        """True once the game has ended (round 4 complete or a city win)."""
        return self._f.returns is not None

    def _legal_actions(self, player):
        return list(self._f.legal)

    def chance_outcomes(self):
        """[(outcome, probability)] of the current chance node (see the module docstring)."""
        f = self._f
        step = f.steps[f.step]
        if step == _COIN:
            return [(0, 0.5), (1, 0.5)]
        if step == _LINE:
            total = sum(f.pool)
            return [(k, n / total) for k, n in enumerate(f.pool) if n]
        p, kind = divmod(step, NKINDS)
        return count_probabilities(f.pool, kind, f.needed[p])

    def _apply_action(self, action):
        if self._ghost is not None:
            self._ghost = self._ghost[1]
            return
        f = self._f = self._f.copy()  # never change fields another state may share
        if f.steps:
            self._apply_chance(int(action))
            return
        token = KINDS[action] if action != TAKE else "T"
        round_ = f.pos.round
        f.pos = pos = f.pos.play(Move(action))
        f.moves += (action,)
        f.tokens = (f.tokens[0] + (token,), f.tokens[1] + (token,))
        if pos.is_over:
            f.returns = MEMO.returns(pos, f.margin)
            f.legal = ()
        elif pos.round != round_:
            if pos.hands[pos.to_move] is None:  # the deck is unknown: chance deals the new hands
                starter = pos.to_move
                self._schedule_hands([starter, 1 - starter], undealt_cards(pos), (HAND_SIZE, HAND_SIZE))
            else:  # the dnp gave the deck: the position dealt it
                f.blocks = (None, None)
                for p in range(2):
                    self._record_round_hand(p, pos.round, pos.hands[p])
                self._begin_turn()
        else:
            self._begin_turn()

    def _apply_chance(self, outcome: int) -> None:
        f = self._f
        step = f.steps[f.step]
        if step == _COIN:
            f.first = outcome
            seen = f"first:{PLAYERS[outcome]}"
            f.tokens = (f.tokens[0] + (seen,), f.tokens[1] + (seen,))
            self._schedule_hands([0, 1], COMPOSITION, (HAND_SIZE, HAND_SIZE), then=(_LINE,) * LINE_START)
            return
        if step == _LINE:
            f.pool = _replace_at(f.pool, outcome, f.pool[outcome] - 1)
            f.start_line += (outcome,)
            seen = f"line:{KINDS[outcome]}"
            f.tokens = (f.tokens[0] + (seen,), f.tokens[1] + (seen,))
        else:
            p, kind = divmod(step, NKINDS)
            f.pool = _replace_at(f.pool, kind, f.pool[kind] - outcome)
            f.needed = _replace_at(f.needed, p, f.needed[p] - outcome)
            f.dealt = _replace_at(f.dealt, p, _replace_at(f.dealt[p], kind, outcome))
            own = f"{PLAYERS[p]}:{KINDS[kind] * outcome}" if outcome else ""
            f.tokens = _replace_at(_replace_at(f.tokens, p, f.tokens[p] + (own,)), 1 - p, f.tokens[1 - p] + ("",))
        f.step += 1
        if f.step == len(f.steps):
            self._finish_deal()

    def returns(self):
        """[a's return, b's return]: win 1 / loss -1 / draw 0 (or the margin); 0 before the end."""
        return list(self._f.returns) if self._f.returns is not None else [0.0, 0.0]

    def _action_to_string(self, player, action):
        if player != pyspiel.PlayerId.CHANCE:
            return str(Move(action))
        f = self._f
        step = f.steps[f.step] if f.steps else None
        if step == _COIN:
            return f"first:{PLAYERS[action]}"
        if step == _LINE:
            return f"line:{KINDS[action]}"
        if step is not None:
            p, kind = divmod(step, NKINDS)
            return f"{PLAYERS[p]}:{action}x{KINDS[kind]}"
        return f"chance:{action}"

    def __str__(self):
        f = self._f
        if f.pos is None:
            return "dealing: " + " ".join(t for t in f.tokens[0] + f.tokens[1][1:] if t)
        return str(f.pos)

    # -- resampling ----------------------------------------------------------------

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state drawn from `player_id`'s information state: the other player's current hand
        (when chance dealt it) redrawn uniformly from the cards `player_id` cannot see.

        Uniform is the exact chance posterior: every arrangement of the unseen cards over the
        other hand, the deck and the removed cards is equally likely whatever was played.
        `probability_sampler()` returns uniform floats in [0, 1), as OpenSpiel passes it.
        Only at decision and terminal nodes (the other hand is complete there).
        """
        f = self._f
        if f.steps:
            raise ValueError("resample_from_infostate: at a chance node the deal is incomplete")
        other = 1 - player_id
        start = f.blocks[other]
        pos = f.pos
        hand = pos.hands[other]
        if start is None or not sum(hand):
            return self.clone()
        # the core's count of the cards player_id cannot see, less what the dnp fixed
        unseen = _subtract(unseen_pool(pos, player_id), (pos.deck or ()) + (pos.removed or ()))
        cards = [k for k in range(NKINDS) for _ in range(unseen[k])]
        new_hand = [0] * NKINDS
        for _ in range(sum(hand)):
            i = min(int(probability_sampler() * len(cards)), len(cards) - 1)
            new_hand[cards.pop(i)] += 1
        new_hand = tuple(new_hand)
        # The hand chance dealt was the cards played since plus the hand held now.
        played = _subtract(f.round_hands[other][pos.round - 1], (), hand)
        dealt = tuple(p + n for p, n in zip(played, new_hand))
        actions = self.history()
        actions[start:start + NKINDS] = dealt
        new = self._replay(actions)
        g = new._f = f.copy()
        g.pos = pos.replace(hands=_replace_at(pos.hands, other, new_hand))
        new._record_round_hand(other, pos.round, dealt)
        own = tuple(f"{PLAYERS[other]}:{KINDS[k] * n}" if n else "" for k, n in enumerate(dealt))
        g.tokens = _replace_at(g.tokens, other, g.tokens[other][:start] + own + g.tokens[other][start + NKINDS:])
        if g.returns is None and g.pos.to_move == other:
            new._begin_turn()
        return new

    def _replay(self, actions):
        """A new state whose history is `actions`, its fields to be set by the caller.

        OpenSpiel keeps the history itself and offers no way to set it, so the actions are
        applied to a fresh state that only records them (`_ghost` gives the acting players).
        """
        players = [h.player for h in self.full_history()]
        new = self.get_game().new_initial_state()
        ghost = None
        for player in reversed(players):
            ghost = (player, ghost)
        new._ghost = ghost
        for action in actions:
            new.apply_action(action)
        new._ghost = None
        return new


class DistrictNoirObserver:
    """Observation and information state, as strings and as tensors (OpenSpiel's PyObserver).

    The observation tensor is `solver.interfaces.observation.encode_view`; the information state adds
    the perfect-recall record: the first line cards, the player's hand at the start of each
    round, and every move (one-hot, in order).
    """

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("an observer of every player's private cards is not provided")
        pieces = [("view", OBSERVATION_SIZE, (OBSERVATION_SIZE,))]
        if self.perfect_recall:
            pieces += [("start_line", LINE_START * NKINDS, (LINE_START, NKINDS)),
                       ("round_hands", ROUNDS * NKINDS, (ROUNDS, NKINDS)),
                       ("moves", MAX_MOVES * NUM_ACTIONS, (MAX_MOVES, NUM_ACTIONS))]
        self.tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
        self.dict, start = {}, 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[start:start + size].reshape(shape)
            start += size

    def set_from(self, state, player):
        """Fill `tensor` with `player`'s observation (or information state) of `state`."""
        f = state._f
        self.tensor.fill(0.0)
        if f.pos is not None:
            encode_view(f.pos, player, self.dict["view"], own_hand_visible=self.private)
        else:
            self.dict["view"][player] = 1.0
        if not self.perfect_recall:
            return
        for i, kind in enumerate(f.start_line):
            self.dict["start_line"][i, kind] = 1.0
        if self.private:
            for i, hand in enumerate(f.round_hands[player]):
                if hand is not None:
                    self.dict["round_hands"][i] = hand
        for i, move in enumerate(f.moves):
            self.dict["moves"][i, move] = 1.0

    def string_from(self, state, player):
        """The view's DNP; with perfect recall, a second line of everything seen so far."""
        f = state._f
        if f.pos is None:
            view = "deal"
        elif self.private:
            view = MEMO.view(f.pos, player)
        else:
            view = f.pos.view(player)
            view = str(view.replace(hands=tuple(None if n else h for h, n in zip(view.hands, view.hand_sizes))))
        if not self.perfect_recall:
            return view
        if self.private:
            tokens = f.tokens[player]
        else:  # what both players saw: the same token at the same place
            tokens = [t for t, u in zip(f.tokens[0], f.tokens[1]) if t == u]
        return view + "\n" + " ".join(t for t in tokens if t)


pyspiel.register_game(_GAME_TYPE, DistrictNoirGame)


class DnoirBot(pyspiel.Bot):
    """A `solver.agents.bots` bot (`greedy`, `pimc:worlds=50`, `ismcts:iterations=2000`, ...) as an
    OpenSpiel bot, so OpenSpiel's own tools (`evaluate_bots`, arenas) can pit it against theirs.

    It sees only what the player sees: the observation string, which is the player's view DNP.

    >>> import pyspiel, numpy as np
    >>> from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
    >>> game = pyspiel.load_game("python_district_noir")
    >>> bots = [DnoirBot("greedy", seed=1), DnoirBot("random", seed=2)]
    >>> sum(evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(3)))
    0.0
    """

    def __init__(self, spec: str = "ismcts:iterations=2000", seed: int = 0):
        pyspiel.Bot.__init__(self)

        self.bot = make_bot(spec, seed=seed)

    def step(self, state):
        """The bot's move (an action number) for the player to move in `state`."""
        view = Position.parse(state.observation_string(state.current_player()))
        return self.bot.choose(view).index

    def restart_at(self, state):
        """A new game: forget anything kept between moves."""
        self.bot.new_game()

    def inform_action(self, state, player_id, action):
        """Nothing to do: the bot reads every position afresh."""
