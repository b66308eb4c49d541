"""What the explorer's viewer and download take from a record (gohash.sgf.extract):
one game of a collection as a record of its own, and its main line's comments
position by position, against the descriptions of random records
(tests/support/sgfgen.py) and the walker's own positions."""

from __future__ import annotations

import dataclasses

from hypothesis import example, given, settings
from sgfmill import sgf

from gohash.errors import GohashError
from gohash.sgf.extract import game_record, main_line_comments
from gohash.sgf.inputs import Source
from gohash.sgf.walk import BaseVisitor, PositionEvent, walk_source
from tests.support.sgfgen import Game, Node, Record, Tree, records


def commented(record: Record) -> Record:
    """The record with a comment of its own on every node: ``n0``, ``n1``... in file order."""
    count = 0

    def node(n: Node) -> Node:
        nonlocal count
        count += 1
        extra = (*((k, v) for k, v in n.extra if k != "C"), ("C", f"n{count - 1}"))
        return dataclasses.replace(n, extra=extra)

    def tree(t: Tree) -> Tree:
        return Tree(tuple(node(n) for n in t.nodes), tuple(tree(c) for c in t.children))

    return Record(tuple(Game(g.size, tree(g.tree)) for g in record.games))


def expected_comments(game: Game) -> list[str | None]:
    """The walker's rule, on the description: the root is a position, and after it
    each main-line node with a move or setup; a node with neither adds its
    comment to the position before it (or gives it one, where it had none: the
    position after a root's own move)."""
    nodes: list[Node] = []
    tree: Tree | None = game.tree
    while tree is not None:
        nodes += tree.nodes
        tree = tree.children[0] if tree.children else None
    root, *rest = nodes
    comments: list[str | None] = [root.value("C")]
    if root.has_move:
        comments.append(None)
    for n in rest:
        if n.has_move or n.has_setup:
            comments.append(n.value("C"))
        else:
            before = comments[-1]
            comments[-1] = n.value("C") if before is None else f"{before}\n{n.value('C')}"
    return comments


class MainLine(BaseVisitor):
    """Counts the main line's positions of each game, and the games with errors
    (a root's bad setup: the only fault records(faults=False) makes)."""

    def __init__(self) -> None:
        self.positions: dict[int, int] = {}
        self.faulty: set[int | None] = set()

    def visit_position(self, event: PositionEvent) -> None:
        if event.variation == ():
            self.positions[event.game] = self.positions.get(event.game, 0) + 1

    def handle_error(self, error: GohashError) -> bool:
        self.faulty.add(error.game)
        return True


# A root with a move, then a node with neither: its comment is the position's own.
ROOT_MOVE_THEN_COMMENT = Record((Game(4, Tree((
    Node((), (), (), (("B", ("ad",)),), (("GM", "1"), ("FF", "4"), ("SZ", "4"))),
    Node((), (), (), (), (("C", "a comment"),)),
), ())),))


@given(records(faults=False, max_games=3, max_nodes=30))
@example(ROOT_MOVE_THEN_COMMENT)
@settings(max_examples=150, deadline=None)
def test_games_and_comments_as_the_description_and_the_walker_say(record: Record) -> None:
    record = commented(record)
    data = record.sgf().encode()
    seen = MainLine()
    # As tests/support/sgfgen.py's records are played: suicides remove the group, kos are retaken.
    walk_source(Source("f.sgf", data), seen,
                board_options={"suicide_allowed": True, "simple_ko": False})
    for i, game in enumerate(record.games):
        assert game_record(data, "f.sgf", i) == game.sgf()
        comments = main_line_comments(data, "f.sgf", i)
        assert comments == expected_comments(game)
        # A node the walker skips as an error is a position fewer: read_game then
        # shows no comments rather than misplaced ones.
        if i not in seen.faulty:
            assert len(comments) == seen.positions[i]


def test_records_in_other_encodings_are_marked_utf8() -> None:
    names = "PB[\u674e\u660c\u9550]PW[Cho]C[\u5929\u5143]"
    gb = f"(;GM[1]CA[gb2312]SZ[9]{names};B[ee])".encode("gb2312")
    text = game_record(gb, "f", 0)
    assert text == f"(;GM[1]CA[UTF-8]SZ[9]{names};B[ee])"
    game = sgf.Sgf_game.from_bytes(text.encode("utf-8"))
    assert game.get_root().get("PB") == "\u674e\u660c\u9550"
    assert main_line_comments(gb, "f", 0) == ["\u5929\u5143", None]
    # No CA, not UTF-8: read as ISO-8859-1, as the walker reads it, and marked.
    latin = "(;GM[1]SZ[9]PB[M\u00fcller]C[gr\u00fc\u00df];B[ee]C[a\\]b\nc])".encode("latin-1")
    text = game_record(latin, "f", 0)
    assert text == "(;CA[UTF-8]GM[1]SZ[9]PB[M\u00fcller]C[gr\u00fc\u00df];B[ee]C[a\\]b\nc])"
    assert main_line_comments(latin, "f", 0) == ["gr\u00fc\u00df", "a]b\nc"]
    # UTF-8 as it is: the text unchanged, labelled (FF[4] readers such as sgfmill
    # take a record without CA for ISO-8859-1).
    utf8 = f"(;GM[1]SZ[9]{names};B[ee])".encode()
    assert game_record(utf8, "f", 0) == "(;CA[UTF-8]" + utf8.decode()[2:]
    assert sgf.Sgf_game.from_string(game_record(utf8, "f", 0)).get_root().get("PB") == (
        "\u674e\u660c\u9550")
