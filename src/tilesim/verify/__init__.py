"""Golden vectors for verification: stimulus per ISA, vector sets and their files, ``check``, coverage,
and a per-transaction scoreboard.

See ``docs/verification.md``. The CLI commands are ``tilesim vectors``, ``tilesim check`` and
``tilesim coverage``; :func:`tilesim.verify.commands.make_vectors` and :func:`tilesim.verify.check.check`
are their Python forms, and :mod:`tilesim.verify.scoreboard` (``reference``, ``Scoreboard``) serves a
testbench that checks each transaction as the device finishes it.
"""
