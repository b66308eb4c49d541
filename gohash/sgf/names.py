"""Names of files and archive members as data: any bytes, stored and shown.

Scope: the text a name is stored and written as (:func:`name_text`), shown
as in a message of one line (:func:`shown_name`), and shown to others without
where it lies (:func:`base_name`).  A name that is not UTF-8
(a Latin-1 file name, a tar member's, a zip member's whose UTF-8 flag lies)
is carried in a ``str`` as Python carries file system names: each byte that is
not UTF-8 as a surrogate escape (U+DC80 to U+DCFF), which no UTF-8 output,
SQLite text or Parquet string can hold.
"""

from __future__ import annotations

import re

__all__ = ["base_name", "fs_name", "name_text", "shown_name"]


def name_text(name: str) -> str:
    """``name`` as text that UTF-8 can hold, to store and write: each byte of a
    name that is not UTF-8 (a surrogate escape, as Python reads file system
    names) becomes ``\\xHH``.  Other names are returned as they are."""
    if name.isascii():
        return name
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file system name holds
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def shown_name(name: str) -> str:
    """``name`` as shown in a message of one line: :func:`name_text`, with control
    and other unprintable characters escaped (``\\n``, ``\\x1b``)."""
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in name_text(name))


def base_name(name: str) -> str:
    """The last part of a source's name: the file's own name, or an archive
    member's (``games.tar.gz:2017/a.sgf`` gives ``a.sgf``), without the folders
    that say where the collection lies on one machine; what a web page may show."""
    return re.split(r"[/\\:]", name)[-1] or name


def fs_name(text: str) -> str:
    """The name whose :func:`name_text` is ``text``, if ``text`` holds escapes
    ``\\x80`` to ``\\xff`` that UTF-8 cannot have made: the inverse of
    :func:`name_text`, for reading a stored name again.  A name that held such
    an escape as text is read back as bytes: try ``text`` itself first."""
    if "\\x" not in text:
        return text
    return _ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), text)


_ESCAPE = re.compile(r"\\x([89a-f][0-9a-f])")
