"""Where SGF bytes come from: files, folders, archives, standard input.

Scope: resolving the paths a user names (:func:`find_inputs`) and reading the
SGF sources in them (:func:`read_input`), within a size limit, with the errors
of SGF reading (:class:`SgfError` and the classes :mod:`gohash.sgf` raises);
and a source an index stored read again by its name and checked against its
SHA-256 (:func:`source_again`).
Parsing is :mod:`gohash.sgf`'s job; its names for these are the same.
"""

from __future__ import annotations

import bisect
import bz2
import codecs
import gzip
import hashlib
import io
import lzma
import os
import stat
import struct
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import IO, Any

from ..errors import GohashError, SgfBudgetError, SgfError, SgfLimitError, SourceGoneError
from .inputs import (
    CANON_MARKER,
    MAX_SOURCE_BYTES,
    PACK_MARKER,
    Budget,
    Input,
    Meter,
    Skipped,
    Source,
    budget_for,
    special_kind,
)
from .names import fs_name

__all__ = ["find_inputs", "read_input", "source_again", "source_candidates", "source_files"]

# Recognised by content: (leading bytes, format).
_MAGIC = (
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"Rar!\x1a\x07", "rar"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"LZIP", "lzip"),
    (b"\x1f\x9d", "compress"),
)
_DECOMPRESSORS: dict[str, Callable[[IO[bytes]], io.BufferedIOBase]] = {
    "gzip": lambda f: gzip.GzipFile(fileobj=f),
    "bzip2": bz2.BZ2File,
    "xz": lzma.LZMAFile,
}
_UNSUPPORTED = {
    "7z": "a 7z archive",
    "rar": "a RAR archive",
    "zstd": "Zstandard-compressed data",
    "lzip": "lzip-compressed data",
    "compress": "compress (.Z) data",
}
# By name, for files whose content is no known format: read as the name says,
# so a damaged archive is reported as one.
_ARCHIVE_NAMES = (
    (".zip", "zip"),
    (".tar", "tar"),
    (".tar.gz", "tar"),
    (".tgz", "tar"),
    (".tar.bz2", "tar"),
    (".tbz2", "tar"),
    (".tbz", "tar"),
    (".tar.xz", "tar"),
    (".txz", "tar"),
)
_ARCHIVE_SUFFIXES = tuple(suffix for suffix, _ in _ARCHIVE_NAMES)
_READ_ERRORS = (
    OSError, EOFError, zipfile.BadZipFile, tarfile.TarError, lzma.LZMAError, zlib.error,
)


# Two bytes, not one: zstd's magic begins with "(", as every SGF file does.
_MAGIC_PREFIXES = frozenset(magic[:2] for magic, _ in _MAGIC)
# What tarfile may read as a header's checksum: the field up to its first NUL,
# stripped of blanks (str.strip's), through int(..., 8), which also takes "_",
# signs and "0o".  Any other byte there and the block is no tar header.
_CHECKSUM_BYTES = frozenset(b"01234567_+-oO \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")


def _sniff(head: bytes) -> str | None:
    """The format of data starting with ``head`` (512 bytes or all there is): a
    name from :data:`_MAGIC`, ``"tar"``, or None for anything else (SGF text)."""
    if head[:2] in _MAGIC_PREFIXES:  # one set look-up spares ten prefix tests per file
        for magic, name in _MAGIC:
            if head.startswith(magic):
                return name
    return "tar" if _is_tar_header(head) else None


def _is_tar_header(block: bytes) -> bool:
    if len(block) < tarfile.BLOCKSIZE:
        return False
    checksum = block[148:156]
    # Text is refused here, before tarfile parses the whole header: a quarter of
    # the time of reading a small SGF file went to that.
    if checksum[0] not in (0o200, 0o377) and not _CHECKSUM_BYTES.issuperset(
        checksum.split(b"\0", 1)[0]
    ):
        return False
    try:
        tarfile.TarInfo.frombuf(block[: tarfile.BLOCKSIZE], "utf-8", "surrogateescape")
    except tarfile.HeaderError:  # a bad checksum, as any text has
        return False
    return True


def _inner_kind(stream: IO[bytes], fmt: str) -> str:
    """``"tar"`` if the compressed ``stream`` holds a tar archive, else ``"compressed"``."""
    with _DECOMPRESSORS[fmt](stream) as inner:
        return "tar" if _is_tar_header(inner.read(tarfile.BLOCKSIZE)) else "compressed"


def _mode(path: str) -> int | None:
    """The file mode of ``path`` (symbolic links followed), or None if there is
    nothing there: one system call, where exists, isdir and isfile make three."""
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):
        return None


def _head(path: str) -> bytes:
    """The first block of a file, by system calls alone: a file object for each
    of thousands of paths cost a third of the time of finding their formats."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        return _read_up_to(partial(os.read, fd), tarfile.BLOCKSIZE)
    finally:
        os.close(fd)


def _input_for(path: str, mode: int | None) -> Input:
    if path == "-":
        return Input("stdin", "-")
    if mode is None:
        return Input("missing", path)
    special = special_kind(mode)
    if special is not None:  # a read could wait for ever: standard input is "-"
        return Input("refused", path, special)
    lower = path.lower()
    by_name = None
    if lower.endswith(_ARCHIVE_SUFFIXES):
        by_name = next(kind for suffix, kind in _ARCHIVE_NAMES if lower.endswith(suffix))
    fmt = None
    try:
        fmt = _sniff(_head(path))
        if fmt in _DECOMPRESSORS:
            with open(path, "rb") as f:
                return Input(_inner_kind(f, fmt), path, fmt)
    except _READ_ERRORS:  # unreadable or damaged: read_input says why
        if fmt in _DECOMPRESSORS:
            return Input("tar" if by_name == "tar" else "compressed", path, fmt)
    if fmt is None:
        return Input(by_name or "file", path)
    return Input("unsupported" if fmt in _UNSUPPORTED else fmt, path, fmt)


def find_inputs(paths: Iterable[str | Input]) -> Iterator[Input]:
    """Resolve paths: folders become their ``*.sgf`` files (recursively, sorted);
    a file's format is found from its first bytes.  A packed dataset
    (:mod:`gohash.sgf.pack`) becomes its parts, a canon dataset
    (:mod:`gohash.tools.parquet`) its ``positions`` parts.  An :class:`Input`
    (one resolved before, as a sharded index hands its shards theirs) is itself."""
    for path in paths:
        if isinstance(path, Input):
            yield path
            continue
        mode = None if path == "-" else _mode(path)
        is_folder = mode is not None and stat.S_ISDIR(mode)
        if is_folder and _is_dataset(path):
            yield from _dataset_inputs(path)
        elif is_folder:
            for folder, subfolders, files in os.walk(path):
                subfolders.sort()
                for name in sorted(files):
                    if name.lower().endswith(".sgf"):
                        found = os.path.join(folder, name)
                        yield _found_in_folder(found, _mode(found))
        else:
            yield _input_for(path, mode)


def _found_in_folder(path: str, mode: int | None) -> Input:
    """A ``*.sgf`` found in a folder: a file (symbolic links followed), or, for
    anything else (a pipe, whose reading would block, a socket, a device), an
    input that :func:`read_input` reports as not read."""
    special = None if mode is None else special_kind(mode)
    if special is None:  # a file, or gone since listed: read_input says so
        return Input("file", path)
    return Input("special", path, special)


def _is_dataset(path: str) -> bool:
    return any(os.path.isfile(os.path.join(path, m)) for m in (PACK_MARKER, CANON_MARKER))


def _dataset_inputs(path: str) -> Iterator[Input]:
    if os.path.isfile(os.path.join(path, PACK_MARKER)):
        from .pack import pack_inputs  # reads the marker only: no pyarrow needed

        yield from pack_inputs(path)
    else:
        yield Input("canon-parquet", path)


def _read_limited(
    stream: IO[bytes] | io.BufferedIOBase, name: str, limit: int, size: int | None = None
) -> bytes:
    """All of ``stream``, or a limit error if it holds more than ``limit`` bytes.

    ``size``, where known (a plain file's, an archive member's declared size),
    is what is asked for first: a read of ``limit + 1`` bytes allocates that
    much, and a 64 MiB buffer per small file costs more than reading the file.
    A file that grew since, or a member larger than it said, is read on.
    """
    # Read one byte more than allowed: a declared size can lie (a zip bomb), the
    # bytes actually read cannot.
    first = limit if size is None else min(size, limit)
    data = _read_up_to(stream.read, first + 1)
    if first < limit and len(data) > first:
        data += _read_up_to(stream.read, limit + 1 - len(data))
    if len(data) > limit:
        raise SgfLimitError(f"{name!r} is larger than the limit of {limit:,} bytes", file=name)
    return data


def _read_up_to(read: Callable[[int], bytes], count: int) -> bytes:
    """``count`` bytes by ``read(n)``, fewer only at the end (a raw file's read, one
    system call, may return fewer)."""
    data = read(count)
    if len(data) == count or not data:
        return data
    parts = [data]
    count -= len(data)
    while count and (more := read(count)):
        parts.append(more)
        count -= len(more)
    return b"".join(parts)


def read_input(
    inp: Input, *, limit: int = MAX_SOURCE_BYTES, budget: Budget | None = None
) -> Iterator[Source | SgfError | Skipped]:
    """The SGF sources of one input: one for a file or stdin, one per ``.sgf``
    member of an archive.  A source that cannot be read is yielded as an error
    (so an archive's other members are still read); an archive that cannot be
    opened at all is yielded as one error, and so is an input beyond its
    ``budget`` (by default :func:`budget_for` its size), after the sources read
    before.  A special file found in a folder is yielded as :class:`Skipped`,
    unopened.  Data read whole (stdin, a pipe, a file found in a folder) is
    recognised by content as well."""
    name = inp.name
    try:
        if inp.kind == "missing":
            yield SgfError("no such file or folder", file=name)
        elif inp.kind == "stdin":
            data = _read_limited(sys.stdin.buffer, "standard input", limit)
            meter = Meter(name, budget or budget_for(len(data)))
            yield from _data_sources(name, data, limit, meter)
        elif inp.kind == "file":
            # Unbuffered: a file is read whole, and the buffer's copy cost a
            # fifth of the time of reading a small file.
            with open(name, "rb", buffering=0) as raw:
                data = _read_limited(raw, name, limit, os.fstat(raw.fileno()).st_size)
            meter = Meter(name, budget or budget_for(len(data)))
            yield from _data_sources(name, data, limit, meter)
        elif inp.kind == "special":
            yield Skipped(name, f"{inp.format}, not a regular file: skipped")
        elif inp.kind == "refused":
            yield SgfError(f"{inp.format}, not a regular file: not read (give - to read "
                           "standard input)", file=name)
        elif inp.kind == "zip":
            meter = Meter(name, budget or budget_for(os.path.getsize(name)))
            with open(name, "rb") as f:
                yield from _zip_sources(name, f, limit, meter)
        elif inp.kind == "tar":
            meter = Meter(name, budget or budget_for(os.path.getsize(name)))
            with open(name, "rb") as f:
                yield from _tar_file_sources(name, f, inp.format, limit, meter)
        elif inp.kind == "packed":
            from .pack import read_packed  # pyarrow, imported only for packed datasets

            yield from read_packed(inp, budget)
        elif inp.kind == "canon-parquet":
            yield SgfError(
                "a gohash canon dataset (Parquet positions): only gohash index build reads "
                "it; give the SGF files, or a packed dataset (gohash pack)", file=name,
            )
        elif inp.kind == "compressed":
            meter = Meter(name, budget or budget_for(os.path.getsize(name)))
            with open(name, "rb") as f, _DECOMPRESSORS[inp.format](f) as inner:
                yield _text_source(name, _read_limited(meter.wrap(inner), name, limit), limit)
        else:
            yield _unsupported(name, inp.format)
    except SgfError as e:
        e.located(file=name)
        yield e
    except _READ_ERRORS as e:
        yield SgfError(f"cannot read {name!r}: {e}", file=name)


def _unsupported(name: str, fmt: str) -> SgfError:
    return SgfError(
        f"{_UNSUPPORTED[fmt]}, which gohash does not read "
        "(unpack it, or repack it as .zip or .tar.gz)",
        file=name,
    )


def _data_sources(
    name: str, data: bytes, limit: int, meter: Meter
) -> Iterator[Source | SgfError]:
    """The sources in data read whole: an archive's members, or the data itself."""
    fmt = _sniff(data[: tarfile.BLOCKSIZE])
    if fmt in _DECOMPRESSORS:
        if _inner_kind(io.BytesIO(data), fmt) == "tar":
            yield from _tar_file_sources(name, io.BytesIO(data), fmt, limit, meter)
            return
        with _DECOMPRESSORS[fmt](io.BytesIO(data)) as inner:
            data = _read_limited(meter.wrap(inner), name, limit)
        fmt = None
    if fmt == "zip":
        yield from _zip_sources(name, io.BytesIO(data), limit, meter)
    elif fmt == "tar":
        yield from _tar_file_sources(name, io.BytesIO(data), fmt, limit, meter)
    elif fmt is not None:
        yield _unsupported(name, fmt)
    else:
        yield _text_source(name, data, limit)


def _zip_sources(
    path: str, file: IO[bytes], limit: int, meter: Meter
) -> Iterator[Source | SgfError]:
    try:
        archive = zipfile.ZipFile(file)
        names = [info.filename for info in archive.infolist()]
    except UnicodeDecodeError:  # a name flagged UTF-8 that is not
        unflagged = _ZipNames(file)
        archive = zipfile.ZipFile(unflagged)
        if len(archive.infolist()) != len(unflagged.flagged):
            raise zipfile.BadZipFile("the central directory's entries cannot be counted") from None
        names = [unflagged.name(info.filename, flagged) for info, flagged
                 in zip(archive.infolist(), unflagged.flagged, strict=True)]
    seen: set[str] = set()
    with archive:
        for number, (info, member_name) in enumerate(
                zip(archive.infolist(), names, strict=True), 1):
            if info.is_dir() or not member_name.lower().endswith(".sgf"):
                continue
            name = _member_name(path, member_name, number, seen)
            if info.file_size > limit:
                yield SgfLimitError(
                    f"archive member {member_name!r} is larger than the limit of {limit:,} bytes",
                    file=name,
                )
                continue
            try:
                # Every member is charged, as entries can share their data: a
                # zip of many entries naming one stream is a bomb.
                with archive.open(info) as member:
                    data = _read_limited(meter.wrap(member), member_name, limit,
                                         info.file_size)
                yield _text_source(name, data, limit)
            except SgfBudgetError:
                raise
            except SgfLimitError as e:
                e.file = name
                yield e
            except (OSError, zipfile.BadZipFile, EOFError, ValueError) as e:
                yield SgfError(f"cannot read archive member {member_name!r}: {e}", file=name)


class _ZipNames(io.RawIOBase):
    """A zip file as :mod:`zipfile` is to see it: its central directory and local
    headers flagging no name as UTF-8.  zipfile decodes a flagged name
    strictly, so it cannot open a zip holding a flagged name that is not
    UTF-8; unflagged, every name is decoded as cp437, which takes any bytes,
    and :meth:`name` gives what a flagged one's bytes spell in UTF-8, the
    others as surrogate escapes.  The end record is found by zipfile's own
    search, so the central directory read here is the one zipfile reads.
    ``flagged`` says, for each entry in order, whether it was."""

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__()
        end = zipfile._EndRecData(file)  # type: ignore[attr-defined]
        if not end:
            raise zipfile.BadZipFile("File is not a zip file")
        size = end[zipfile._ECD_SIZE]  # type: ignore[attr-defined]
        start = end[zipfile._ECD_LOCATION] - size  # type: ignore[attr-defined]
        if end[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:  # type: ignore[attr-defined]
            start -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator  # type: ignore[attr-defined]
        concat = start - end[zipfile._ECD_OFFSET]  # type: ignore[attr-defined]
        file.seek(start)
        directory = bytearray(file.read(size))
        self.flagged: list[bool] = []
        # The byte holding the flag of each flagged entry's local header, by offset.
        local: dict[int, int] = {}
        at = 0
        while directory[at : at + 4] == b"PK\x01\x02" and at + 46 <= len(directory):
            flagged = bool(directory[at + 9] & _UTF8_FLAG)
            self.flagged.append(flagged)
            if flagged:
                directory[at + 9] ^= _UTF8_FLAG
                (header,) = struct.unpack_from("<I", directory, at + 42)
                flags = header + concat + 7
                file.seek(max(flags, 0))
                byte = file.read(1)
                if byte and flags >= 0:
                    local[flags] = byte[0] & (0xFF ^ _UTF8_FLAG)
            lengths = struct.unpack_from("<HHH", directory, at + 28)
            at += 46 + sum(lengths)
        self._file = file
        self._start = start
        self._directory = bytes(directory)
        self._local = local
        self._local_offsets = sorted(local)

    @staticmethod
    def name(decoded: str, flagged: bool) -> str:
        """An entry's name: as zipfile decoded it unflagged (cp437), or for an
        entry that was flagged, its bytes as UTF-8, any others as surrogate escapes."""
        return decoded.encode("cp437").decode("utf-8", "surrogateescape") if flagged else decoded

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0, /) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def read(self, size: int = -1, /) -> bytes:
        at = self._file.tell()
        data = self._file.read(size)
        low, high = max(at, self._start), min(at + len(data), self._start + len(self._directory))
        offsets = self._local_offsets
        first = bisect.bisect_left(offsets, at)
        last = bisect.bisect_left(offsets, at + len(data))
        if low >= high and first == last:
            return data
        patched = bytearray(data)
        if low < high:
            patched[low - at : high - at] = self._directory[low - self._start : high - self._start]
        for offset in offsets[first:last]:
            patched[offset - at] = self._local[offset]
        return bytes(patched)

    def readinto(self, buffer: Any, /) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


_UTF8_FLAG = 0x08  # bit 11 of the flags: the second byte's bit 3


def _tar_file_sources(
    path: str, file: IO[bytes], fmt: str, limit: int, meter: Meter
) -> Iterator[Source | SgfError]:
    """The members of a tar archive, plain or compressed (``fmt``), in ``file``."""
    if fmt in _DECOMPRESSORS:
        with _DECOMPRESSORS[fmt](file) as inner:
            yield from _tar_stream_sources(path, meter.wrap(inner), limit)
    else:
        yield from _tar_stream_sources(path, meter.wrap(file), limit)


def _tar_stream_sources(path: str, stream: IO[bytes], limit: int) -> Iterator[Source | SgfError]:
    # Stream mode ("r|"), uncompressed: members are read in order, never
    # extracted to disk; decompression is the stream's (see the module docstring).
    with tarfile.open(fileobj=stream, mode="r|") as archive:
        yield from _tar_sources(path, archive, limit)


def _tar_sources(path: str, archive: tarfile.TarFile, limit: int) -> Iterator[Source | SgfError]:
    seen: set[str] = set()
    for number, info in enumerate(archive, 1):
        if not info.isfile() or not info.name.lower().endswith(".sgf"):
            continue
        name = _member_name(path, info.name, number, seen)
        if info.size > limit:
            yield SgfLimitError(
                f"archive member {info.name!r} is larger than the limit of {limit:,} bytes",
                file=name,
            )
            continue
        member = archive.extractfile(info)
        if member is not None:
            yield _text_source(name, _read_limited(member, info.name, limit, info.size), limit)


def _member_name(path: str, member: str, number: int, seen: set[str]) -> str:
    """The name of the archive ``path``'s member ``member``, entry ``number`` (from 1):
    ``ARCHIVE:MEMBER``, or for a name an earlier ``*.sgf`` entry had (a zip of
    two ``x.sgf``, a tar appended to) ``ARCHIVE:MEMBER#NUMBER``, so that no
    game is stored under another's name.  Such a name never ends in ``.sgf``,
    so it is no member's own."""
    if member in seen:
        return f"{path}:{member}#{number}"
    seen.add(member)
    return f"{path}:{member}"


def _utf16(data: bytes) -> tuple[str, str] | None:
    """The codec of UTF-16 (or UTF-32 with a byte-order mark) text, and what was
    seen, or None for anything else.  Without a byte-order mark the NUL bytes
    tell: SGF is mostly ASCII, whose UTF-16 code units hold one NUL each."""
    if data[:1] in _BOM_FIRST:
        for bom, codec, seen in _BOMS:
            if data.startswith(bom):
                return codec, f"{seen} (byte-order mark)"
    sample = data[:4096]
    if b"\0" not in sample:
        return None
    units = len(sample) // 2
    even, odd = sample[0 : 2 * units : 2].count(0), sample[1 : 2 * units : 2].count(0)
    if odd >= units // 4 and odd > 4 * even:
        return "utf-16-le", "UTF-16-LE (no byte-order mark: NUL bytes at odd offsets)"
    if even >= units // 4 and even > 4 * odd:
        return "utf-16-be", "UTF-16-BE (no byte-order mark: NUL bytes at even offsets)"
    return None


# UTF-32 first: its little-endian mark starts with UTF-16's.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32", "UTF-32-LE"),
    (b"\x00\x00\xfe\xff", "utf-32", "UTF-32-BE"),
    (b"\xff\xfe", "utf-16", "UTF-16-LE"),
    (b"\xfe\xff", "utf-16", "UTF-16-BE"),
)
_BOM_FIRST = frozenset(bom[:1] for bom, _, _ in _BOMS)


def _text_source(name: str, data: bytes, limit: int) -> Source | SgfError:
    """The source of one file's bytes, decoded to UTF-8 first if it is UTF-16."""
    found = _utf16(data)
    if found is None:
        return Source(name, data)
    codec, seen = found
    # In pieces, so the memory it takes is the UTF-8 text and one piece of the rest.
    decoder = codecs.getincrementaldecoder(codec)()
    utf8 = io.BytesIO()
    try:
        for start in range(0, len(data), _PIECE):
            piece = data[start : start + _PIECE]
            utf8.write(decoder.decode(piece, final=start + _PIECE >= len(data)).encode("utf-8"))
            if utf8.tell() > limit:
                return SgfLimitError(
                    f"{name!r} is larger than the limit of {limit:,} bytes once decoded",
                    file=name,
                )
    except UnicodeDecodeError as e:
        return SgfError(f"text is {seen} but not valid {codec.upper()[:6]}: {e}", file=name)
    return Source(name, utf8.getvalue(), (f"text is {seen}: decoded to UTF-8",))


_PIECE = 1024 * 1024


# -- a source read again (an index's, by name and SHA-256) ------------------------------------


def source_candidates(name: str, folders: Sequence[str]) -> list[str]:
    """Where the source an index stored as ``name`` may be: the name as given,
    from each of ``folders`` if it is relative, and each with the bytes of the
    name that are not UTF-8 restored (a stored name holds them as escapes)."""
    candidates = [name]
    if not os.path.isabs(name) and name != "-":
        candidates += [os.path.join(folder, name) for folder in folders]
    return candidates + [fs for candidate in candidates
                         if (fs := fs_name(candidate)) != candidate]


def source_files(candidate: str) -> list[str]:
    """The files that may hold the source ``candidate``: the part before each colon
    and the whole (an archive member is named ``archive:member``)."""
    return [candidate[:i] for i in range(1, len(candidate) + 1)
            if candidate[i:i + 1] in (":", "")]


def source_again(name: str, sha256: str, folders: Sequence[str]) -> Source:
    """The SGF source ``name`` (a file, or ``archive:member``) read again and
    checked against its SHA-256; reported under ``name``.  A relative path is
    tried from the current folder, then from each of ``folders``
    (:func:`source_candidates`)."""
    for candidate in source_candidates(name, folders):
        containers = [path for path in source_files(candidate) if os.path.isfile(path)]
        for container in containers:
            for inp in find_inputs([container]):
                for source in read_input(inp):
                    if isinstance(source, Source) and source.name == candidate:
                        if hashlib.sha256(source.data).hexdigest() != sha256:
                            raise GohashError(
                                "changed since it was indexed (its SHA-256 differs): "
                                "rebuild the index", file=name,
                            )
                        return Source(name, source.data, source.notes)
    raise SourceGoneError(
        "cannot read it again: not found (paths are as given to the build: relative "
        "to the folder it ran in, or to the index's)", file=name,
    )
