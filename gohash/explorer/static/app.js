// @ts-check
// gohash explorer: the page's state lives in its URL; the server replays it.
//
// URL parameters (the same the JSON endpoints take):
//   size   board size;  moves  the move list (see gohash/index/movelist.py)
//   the filters (their names come from /api/info) and the search options symmetry, turn
//          (gohash/explorer/answers.py)
//   order  the games' order (date, rank, result; "-" before it: descending)
//   offset first game shown;  game, at, view  the game viewer: a game id, a position
//   of its main line (0 the initial one), and the symmetry element that shows the
//   game in the query's orientation and colours;  hit  the viewer's game's place in
//   the games list (previous and next hit), and its position there
//   hit_at the position of the hit in the viewer's game
//   who, who_order, who_offset  the player page of that name, its games' order and page
//   pattern  a pattern search (the Pattern mode): the region's top-left and bottom-right
//          points as SGF letters, ":", then the region's rows top first, joined by "/",
//          one character per point as in docs/patterns.md (``X O . * x o``); empty while
//          no region is drawn.  pattern_symmetry, to_move, max_move, sequence  its options
//          (a sequence: GTP moves such as "B C3 W D4", the region's; a new region drops it)
// The side panel (#results: continuations and games) shows the position search's or
// the pattern search's answer, in the same form (``results``).
// Every change pushes a new URL, so the browser's back button undoes it too.
// When the continuations and games of a position are drawn, #continuations gets
// data-moves (the position's move list) and the event "gohash:rendered" fires:
// tests and benchmarks wait for it; for a pattern, data-pattern (its URL form) and
// "gohash:pattern".
//
// The script is this module and the modules it loads, one concept each (no build step):
// state.js the state and its URL; api.js the server's answers (the latest wins); board.js
// the boards drawn; search.js, position.js and pattern.js the search shown (Play and Edit,
// Pattern) with results.js its panel and filters.js its form; modes.js the board's
// modes; viewer.js the game viewer; player.js the player's page and search; keys.js the
// keyboard.  types.js has the JSON's types (docs/schemas.md), for the type checker.

import { getJson } from "./api.js";
import { $, fmt, formOf, heads, selectOf, showMessage, tableOf } from "./dom.js";
import { addFilters, readFilters } from "./filters.js";
import { followMode, leavePattern } from "./modes.js";
import { chooseMode, newRegion, setPattern, undoPattern, wirePattern } from "./pattern.js";
import { loadGame, wireViewer } from "./viewer.js";
import { loadPlayer, wirePlayer } from "./player.js";
import { loadPosition, pass } from "./position.js";
import { gamesStep, nextOrder, pageGames, sortContinuations, toggleAllContinuations }
  from "./results.js";
import { change, load } from "./search.js";
import { page, pushUrl, readPattern, readUrl, search } from "./state.js";
import { wireKeys } from "./keys.js";

/** @typedef {import("./types.js").Info} Info */

/** The board's size, its buttons, the form and the tables' headers. */
function wireSearch() {
  const select = selectOf("size");
  select.addEventListener("change", () => change(() => {
    search.size = select.value;
    search.moves = [];
    if (search.pattern !== null) newRegion(readPattern(""));
  }));
  for (const button of document.querySelectorAll("button.mode")) {
    const mode = /** @type {string} */ (/** @type {HTMLButtonElement} */ (button).dataset.mode);
    button.addEventListener("click", () => chooseMode(mode));
  }
  $("undo").addEventListener("click", () => {
    if (search.pattern !== null) {
      undoPattern();
    } else if (search.moves.length) {
      change(() => search.moves.pop());
    }
  });
  $("pass").addEventListener("click", pass);
  $("clear").addEventListener("click", () => {
    if (search.pattern !== null) setPattern(readPattern(""));
    else change(() => { search.moves = []; });
  });
  wirePattern();
  formOf("filters").addEventListener("submit", (event) => {
    event.preventDefault();
    change(() => { search.filters = readFilters(); });
  });
  $("games-prev").addEventListener("click", () => pageGames(-gamesStep()));
  $("games-next").addEventListener("click", () => pageGames(gamesStep()));
  for (const th of heads(tableOf("continuations"), "th[data-sort]")) {
    th.addEventListener("click", () => sortContinuations(/** @type {string} */ (th.dataset.sort)));
  }
  for (const th of heads(tableOf("games"), "th[data-order]")) {
    // A pattern's hits come in the index's order only.
    th.addEventListener("click", () => search.pattern === null && change(() => {
      search.order = nextOrder(search.order, /** @type {string} */ (th.dataset.order));
    }));
  }
  $("continuations-more").addEventListener("click", toggleAllContinuations);
}

async function start() {
  /** @type {Info} */
  let info;
  try {
    info = await getJson("/api/info");
  } catch (error) {
    showMessage(/** @type {Error} */ (error).message);
    return;
  }
  page.info = info;
  addFilters(info.filters);
  const select = selectOf("size");
  const sizes = Object.keys(info.sizes).length ? Object.keys(info.sizes) : [String(info.default_size)];
  select.replaceChildren(...sizes.map((s) => {
    const option = document.createElement("option");
    option.value = s;
    option.textContent = `${s}\u00d7${s}` + (info.sizes[s] ? ` (${fmt(info.sizes[s])} games)` : "");
    return option;
  }));
  $("index-info").textContent =
    `${fmt(info.games)} games, ${fmt(info.distinct)} distinct positions`;
  wireSearch();
  wireViewer();
  wireKeys();
  wirePlayer();
  window.addEventListener("popstate", () => {
    readUrl();
    followMode();
    load();
    loadGame();
    loadPlayer();
  });
  readUrl();
  followMode();
  if (await load()) {
    pushUrl(true);
  } else {
    // A bookmark that no longer makes sense: say why, and start from the empty board.
    const message = $("message").textContent;
    Object.assign(search, {
      size: info.default_size, moves: [], filters: {}, offset: 0, order: "",
    });
    leavePattern();
    await loadPosition();
    showMessage(`${message} (showing the empty board instead)`);
  }
  await loadGame();
  await loadPlayer();
}

start();
