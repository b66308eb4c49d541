// @ts-check
// The Play and Edit modes: a position, built by clicks on the board (Play: the side to
// move's stone; Edit: Black's or White's, or a stone taken off), and what the index
// holds of it: its continuations and games.

import { getJson } from "./api.js";
import { $, buttonOf, selectOf, svgOf } from "./dom.js";
import { drawBoard } from "./board.js";
import { showFilters } from "./filters.js";
import { gtp } from "./points.js";
import { continuationMarks, continuationRows, renderContinuations, renderGames, renderSummary }
  from "./results.js";
import { change, drawLatest } from "./search.js";
import { page, positionParams, search } from "./state.js";

/** @typedef {import("./types.js").PositionAnswer} PositionAnswer */
/** @typedef {import("./types.js").FindResult} FindResult */

/** A step of the move list: a play by the side to move is written without its colour.
 * @param {string} colour @param {string | null} point @returns {string} */
export function moveToken(colour, point) {
  const body = point || "pass";
  return page.shown && colour === page.shown.to_move ? body : colour + body;
}

/** A click on the board: in Play, the continuation there (or the side to move's stone);
 * in Edit, the mode's colour's stone, or a stone of that colour taken off.
 * @param {string} point @param {string} stone */
function onBoardPoint(point, stone) {
  const shown = page.shown;
  if (!shown) return;
  if (page.mode === "play") {
    const next = continuationRows(shown).find(
      (c) => c.equivalent.includes(point));
    change(() => search.moves.push(moveToken(next ? next.colour : shown.to_move, point)),
      false, true);
  } else {
    const mine = page.mode === "B" ? "X" : "O";
    change(() => search.moves.push((stone === mine ? "E" : page.mode) + point), false, true);
  }
}

/** @param {PositionAnswer} data */
function renderPosition(data) {
  page.shown = data;
  page.results = data;
  $("results").hidden = false;
  const board = svgOf("board");
  board.classList.remove("selecting");
  delete board.dataset.pattern;
  search.moves = data.moves ? data.moves.split(",") : [];  // the server's short form
  drawBoard(board, data.size, data.stones,
    { last: data.last, marks: continuationMarks(data), onPoint: onBoardPoint });
  const toMove = data.to_move === "b" ? "Black" : "White";
  $("status").textContent = `Move ${data.move_number}, ${toMove} to play. ` +
    `Captured: ${data.captured.b} by Black, ${data.captured.w} by White.` +
    (data.ko ? ` Ko at ${gtp(data.ko, data.size)}.` : "");
  renderContinuations(data);
  renderSummary(data.continuations);
  renderGames(data.games);
  buttonOf("undo").disabled = search.moves.length === 0;
  showFilters();
  selectOf("size").value = String(data.size);
  const table = $("continuations");
  table.dataset.moves = data.moves;
  document.body.dataset.moves = data.moves;
  document.dispatchEvent(new CustomEvent("gohash:rendered", { detail: data.moves }));
}

/** Asks for the position of the state (drawLatest: answers to older requests are
 * dropped, so quick clicks never draw a stale position over a newer one).  ``click``: the
 * last step is a click on the board (a refusal of it is shown beside the board).
 * @param {boolean} [click] @returns {Promise<boolean>} */
export function loadPosition(click) {
  const params = positionParams();
  return drawLatest(
    () => (search.offset ? loadWithOffset(params) : getJson("/api/position", params)),
    renderPosition, click);
}

/** The position, and its games from the state's offset.
 * @param {Record<string, string>} params @returns {Promise<PositionAnswer>} */
async function loadWithOffset(params) {
  const [data, games] = await Promise.all([
    /** @type {Promise<PositionAnswer>} */ (getJson("/api/position", params)),
    /** @type {Promise<FindResult>} */ (
      getJson("/api/games", { ...params, offset: search.offset })),
  ]);
  data.games = games;
  return data;
}

/** Passes: the side to move's turn goes to the other. */
export function pass() {
  if (page.shown && search.pattern === null) {
    const shown = page.shown;
    change(() => search.moves.push(moveToken(shown.to_move, null)));
  }
}
