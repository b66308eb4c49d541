"""The opening explorer, a web app over an index: :mod:`~gohash.explorer.app` (the
routes; the answers in :mod:`~gohash.explorer.answers` and
:mod:`~gohash.explorer.games`, served by :mod:`~gohash.explorer.server`) and
``static/`` (the page, ES modules loaded by ``app.js``).
"""
