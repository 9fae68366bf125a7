"""Multiplayer rooms kept in the database: players, rounds on the server's clock, private
verdicts, crossing off at the end, totals across rounds, and the host's powers.

The package, one job a module:

- :mod:`.settings`: :class:`RoomSettings`, how a room plays, checked when the host sets them;
- :mod:`.codes`: room codes and seat tokens (what the database keeps of them);
- :mod:`.seats`: :class:`Seat` (who a connection speaks for) and :class:`Presence`;
- :mod:`.service`: :class:`Rooms`, the service itself: seats, the host's controls, the round
  clock and words, judged by the one round engine (:class:`bigboggle.round.Round`);
- :mod:`.scoring`: the end of a round (claimed, scored by :func:`score_room_round`, stored,
  then told to :attr:`Rooms.on_round_scored`'s listeners as a :class:`RoomRoundScored`);
- :mod:`.standings`: the running totals across rounds (:class:`Standings`, :func:`tally_of`);
- :mod:`.views`: what a player or anyone reads (:class:`RoomView`, :class:`RoomPublicView`,
  :class:`RoomRoundResult`) and the round the host started (:class:`StartedRound`),
  plain values with ``to_json``;
- :mod:`.queries`: the SQL the others share (locking a room first, its current round);
- :mod:`.opponents`: computer opponents' seats, their lists made at a round's start and their
  words submitted on the server's clock through the same judge path as people's
  (:class:`RoomOpponents`, reached as :attr:`Rooms.opponents`).

Everything a room knows is in the store, so any number of server processes can serve one
room; the names front ends use are all here.
"""

from __future__ import annotations

from ...errors import KickedError, NotHostError, RoomClosedError, RoomFullError
from ...limits import JUDGE_CACHE, MAX_NAME_LENGTH, MAX_ROOM_PLAYERS
from .codes import CODE_LENGTH, CODE_LETTERS, MAX_CODE_TYPED, new_code, normal_code
from .opponents import Played, RoomOpponents, strength_choices
from .scoring import (
    GRACE,
    MAX_REASON,
    SCORING_LEASE,
    CatchUp,
    RoomRoundScored,
    RoundEnds,
    RoundListener,
    score_room_round,
)
from .seats import Presence, Seat
from .service import START_DELAY, Rooms
from .settings import ROOM_OPTIONS, RoomSettings
from .standings import Standings, tally_of
from .views import RoomPublicView, RoomRoundResult, RoomRoundView, RoomView, StartedRound

__all__ = [
    "CODE_LENGTH",
    "CODE_LETTERS",
    "GRACE",
    "JUDGE_CACHE",
    "MAX_CODE_TYPED",
    "MAX_NAME_LENGTH",
    "MAX_REASON",
    "MAX_ROOM_PLAYERS",
    "ROOM_OPTIONS",
    "SCORING_LEASE",
    "START_DELAY",
    "CatchUp",
    "KickedError",
    "NotHostError",
    "Played",
    "Presence",
    "RoomClosedError",
    "RoomFullError",
    "RoomOpponents",
    "RoomPublicView",
    "RoomRoundResult",
    "RoomRoundScored",
    "RoomRoundView",
    "RoomSettings",
    "RoomView",
    "Rooms",
    "RoundEnds",
    "RoundListener",
    "Seat",
    "Standings",
    "StartedRound",
    "new_code",
    "normal_code",
    "score_room_round",
    "strength_choices",
    "tally_of",
]
