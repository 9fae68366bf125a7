"""The services: everything bigboggle keeps in a database, above the core and below the front ends.

A service stores and restores state (solo games, paper tournaments, rooms; later accounts,
ratings, challenges) and drives the core to decide every rule: it never re-decides one. It
imports the core and SQLAlchemy, never a front end (``cli``, ``tui``, ``web``); the core never
imports it. See ``ARCHITECTURE.md``.

- :mod:`.store`: the database, its tables and migrations (:mod:`.migrations`).
- :mod:`.shelf`: the named dictionaries a server offers (clients name them; never paths).
- :mod:`.compute` and :mod:`.jobs`: where CPU work runs (here, or in a worker pool) and the jobs.
- :mod:`.solo_games`, :mod:`.paper_games`, :mod:`.rooms`: the games people play.
"""
