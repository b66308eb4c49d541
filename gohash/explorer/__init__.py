"""The opening explorer, a web app over an index: :mod:`~gohash.explorer.app`
(the server) and ``static/`` (the page).
"""
