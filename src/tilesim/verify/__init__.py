"""Golden vectors for verification: stimulus per ISA, vector sets and their files, ``check``, coverage.

See ``docs/verification.md``. The CLI commands are ``tilesim vectors`` and ``tilesim check``;
:func:`tilesim.verify.commands.make_vectors` and :func:`tilesim.verify.check.check` are their
Python forms.
"""
