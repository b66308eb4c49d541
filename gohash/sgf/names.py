"""Names of files and archive members as data: any bytes, stored and shown.

Scope: a name shown to others without where it lies (:func:`base_name`), and
read back from its stored text (:func:`fs_name`); the text a name is stored
and written as (:func:`~gohash.errors.name_text`) and shown as in a message of
one line (:func:`~gohash.errors.shown_name`) are :mod:`gohash.errors`', which
every layer's errors use.  A name that is not UTF-8
(a Latin-1 file name, a tar member's, a zip member's whose UTF-8 flag lies)
is carried in a ``str`` as Python carries file system names: each byte that is
not UTF-8 as a surrogate escape (U+DC80 to U+DCFF), which no UTF-8 output,
SQLite text or Parquet string can hold.
"""

from __future__ import annotations

import re

__all__ = ["base_name", "fs_name"]


def base_name(name: str) -> str:
    """The last part of a source's name: the file's own name, or an archive
    member's (``games.tar.gz:2017/a.sgf`` gives ``a.sgf``), without the folders
    that say where the collection lies on one machine; what a web page may show."""
    return re.split(r"[/\\:]", name)[-1] or name


def fs_name(text: str) -> str:
    """The name whose :func:`~gohash.errors.name_text` is ``text``, if ``text`` holds escapes
    ``\\x80`` to ``\\xff`` that UTF-8 cannot have made: the inverse of
    :func:`~gohash.errors.name_text`, for reading a stored name again.  A name that held such
    an escape as text is read back as bytes: try ``text`` itself first."""
    if "\\x" not in text:
        return text
    return _ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), text)


_ESCAPE = re.compile(r"\\x([89a-f][0-9a-f])")
