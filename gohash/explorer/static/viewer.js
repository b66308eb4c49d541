// @ts-check
// The game viewer: a game of the index, from the position that matched, seen in the
// query's orientation and colours.  A game comes in pages of GAME_PAGE positions, fetched
// as the viewer reaches them; the last GAME_PAGES_KEPT pages are kept.

import { getJson, Latest } from "./api.js";
import { drawBoard } from "./board.js";
import { $, buttonOf, colourDot, fmt, inputOf, showMessage, svgOf } from "./dom.js";
import { leavePattern } from "./modes.js";
import { LETTERS } from "./points.js";
import { fetchGames, playerLink } from "./results.js";
import { change } from "./search.js";
import { page, profile, pushUrl, search, viewed } from "./state.js";

/** @typedef {import("./types.js").GamePage} GamePage */
/** @typedef {import("./types.js").GameSteps} GameSteps */
/** @typedef {import("./types.js").Match} Match */
/** @typedef {import("./types.js").Hit} Hit */

/**
 * The game in the viewer: its first page (info) and the pages kept, by their start.
 * @typedef {{id: string, view: string, info: GamePage, pages: Map<number, GamePage>}} Game
 */

const GAME_PAGE = 200;
const GAME_PAGES_KEPT = 20;
/** The answers for the viewer: the game opened, the position shown. */
const answers = new Latest();
/** @type {Game | null} */
let viewerGame = null;
/** The match whose game was opened last.
 * @type {Match | Hit | null} */
let hitMatch = null;
let showNumbers = false;

/** Whether the viewer shows a game.
 * @returns {boolean} */
export function viewerOpen() {
  return viewerGame !== null && !$("viewer").hidden;
}

/** The pattern's region on the viewer's board, when the game was opened at a pattern's
 * hit: where the view shows the pattern (its match's view_offset), or null.
 * @returns {{top: number, left: number, height: number, width: number} | null} */
function viewerRegion() {
  const pattern = search.pattern;
  if (!pattern || !pattern.rows.length || viewed.hit === null) return null;
  const results = page.results;
  const listed = results && results.games.matches[viewed.hit - results.games.offset];
  const match = /** @type {Hit | null} */ (
    hitMatch && String(hitMatch.game_id) === viewed.game ? hitMatch : listed);
  if (!match || String(match.game_id) !== viewed.game || !match.view_offset) return null;
  const [rows, cols] = match.view_offset;  // rows count up the board; pattern.top down
  return {
    top: pattern.top - rows, left: pattern.left + cols, height: pattern.rows.length,
    width: pattern.rows[0].length,
  };
}

/** Opens a game of the games list (the ``hit``-th, from 0) at the position that matched.
 * @param {{game_id: number, seq: number, view: string}} match @param {number} [hit] */
export function openGame(match, hit) {
  hitMatch = /** @type {Match} */ (match);
  viewed.game = String(match.game_id);
  viewed.at = match.seq;
  viewed.view = match.view;
  viewed.hit = hit === undefined ? null : hit;
  viewed.hitAt = hit === undefined ? null : match.seq;
  pushUrl(false);
  loadGame();
}

/** @param {string} id @param {string} view @param {number} start @returns {Promise<GamePage>} */
function fetchGamePage(id, view, start) {
  return getJson(`/api/game/${encodeURIComponent(id)}`, { view, start, count: GAME_PAGE });
}

/** @param {Game} game @param {GamePage} gamePage */
function keepPage(game, gamePage) {
  game.pages.set(gamePage.start, gamePage);
  while (game.pages.size > GAME_PAGES_KEPT) {
    game.pages.delete(/** @type {number} */ (game.pages.keys().next().value));
  }
}

/** The page holding position i of the game, fetched if it is not kept.
 * @param {Game} game @param {number} i @returns {Promise<GamePage>} */
async function gamePage(game, i) {
  const start = i - (i % GAME_PAGE);
  let kept = game.pages.get(start);
  if (!kept) {
    kept = await fetchGamePage(game.id, game.view, start);
    keepPage(game, kept);
  }
  return kept;
}

/** @param {string} label @param {Node | string | number} value @returns {HTMLSpanElement} */
function infoItem(label, value) {
  const item = document.createElement("span");
  item.className = "item";
  const name = document.createElement("span");
  name.className = "label";
  name.textContent = `${label} `;
  item.append(name, value instanceof Node ? value : String(value));
  return item;
}

/** @param {GamePage} first */
function renderViewerInfo(first) {
  const title = $("viewer-title");
  const [black, white] = [playerLink(first.black, first.black_rank),
    playerLink(first.white, first.white_rank)];
  if (first.colours_exchanged) {
    title.replaceChildren(black, " (Black, shown as White) vs ", white,
      " (White, shown as Black)");
  } else {
    title.replaceChildren(colourDot("b"), black, " vs ", colourDot("w"), white);
  }
  const items = [];
  if (first.outcome) items.push(infoItem("Result", first.outcome));
  if (first.date || first.iso_date) {
    items.push(infoItem("Date", /** @type {string} */ (first.date || first.iso_date)));
  }
  if (first.komi !== null && first.komi !== undefined) items.push(infoItem("Komi", first.komi));
  items.push(infoItem("Handicap", first.handicap >= 2 ? first.handicap : "none"));
  if (first.event) items.push(infoItem("Event", first.event));
  items.push(infoItem("Record", first.game ? `${first.source}, game ${first.game + 1}`
    : first.source));
  if (first.colours_exchanged) items.push(infoItem("Shown", "with colours exchanged"));
  $("viewer-info").replaceChildren(...items);
  /** @type {HTMLAnchorElement} */ ($("viewer-sgf")).href =
    `/api/game/${encodeURIComponent(first.game_id)}/sgf`;
}

function renderHits() {
  const results = page.results;
  const hit = viewed.hit;
  $("viewer-hits").hidden = !(hit !== null && results !== null);
  if (hit === null || results === null) return;
  const total = results.games.total;
  $("hit-where").textContent = `hit ${fmt(hit + 1)} of ${fmt(total)}`;
  buttonOf("hit-prev").disabled = hit <= 0;
  buttonOf("hit-next").disabled = hit + 1 >= total;
}

/** Opens the previous (-1) or next (+1) game of the games list at its hit.
 * @param {number} delta */
async function stepHit(delta) {
  if (viewed.hit === null) return;
  const hit = viewed.hit + delta;
  if (hit < 0 || (page.results && hit >= page.results.games.total)) return;
  try {
    const games = await fetchGames(hit, 1);
    if (games.matches.length) openGame(games.matches[0], hit);
  } catch (error) {
    showMessage(/** @type {Error} */ (error).message);
  }
}

/** Opens the state's game (or closes the viewer, for none). */
export async function loadGame() {
  const id = viewed.game;
  if (id === null) {
    answers.drop();
    $("viewer").hidden = true;
    viewerGame = null;
    return;
  }
  try {
    const at = Math.max(0, viewed.at);
    const view = viewed.view;
    const answer = await answers.run(() => fetchGamePage(id, view, at - (at % GAME_PAGE)));
    if (answer === null) return;
    const first = answer.value;
    const game = { id, view, info: first, pages: new Map() };
    keepPage(game, first);
    viewerGame = game;
    $("viewer").hidden = false;
    renderViewerInfo(first);
    renderHits();
    inputOf("viewer-slider").max = String(first.positions_total - 1);
    await showGameAt(viewed.at);
  } catch (error) {
    showMessage(/** @type {Error} */ (error).message);
    $("viewer").hidden = true;
  }
}

/** The move number of each stone on the board at position ``index``: the last move played
 * on its point (the pages before are fetched, only when numbers are asked for).
 * @param {Game} game @param {number} index @param {string[]} rows
 * @returns {Promise<Map<string, number>>} */
async function moveNumbers(game, index, rows) {
  /** @type {Map<string, number>} */
  const numbers = new Map();
  for (let start = 0; start <= index; start += GAME_PAGE) {
    const kept = await gamePage(game, start);
    const end = Math.min(index - start, kept.positions.length - 1);
    for (let k = 0; k <= end; k++) {
      const last = kept.last[k];
      if (last) numbers.set(last, kept.move_numbers[k]);
    }
  }
  for (const point of [...numbers.keys()]) {
    const row = rows[LETTERS.indexOf(point[1])];
    if (row[LETTERS.indexOf(point[0])] === ".") numbers.delete(point);
  }
  return numbers;
}

/** Shows position i of the game, fetching its page first if it is not kept; a position
 * asked for while another is fetched replaces it.
 * @param {number} i */
export async function showGameAt(i) {
  const game = viewerGame;
  if (!game) return;
  const index = Math.min(Math.max(i, 0), game.info.positions_total - 1);
  let answer;
  try {
    answer = await answers.run(async () => {
      const kept = await gamePage(game, index);
      const k = index - kept.start;
      return { kept, number: showNumbers ? await moveNumbers(game, index, kept.positions[k])
        : new Map() };
    });
  } catch (error) {
    showMessage(/** @type {Error} */ (error).message);
    return;
  }
  if (answer === null || game !== viewerGame) return;
  const { kept, number } = answer.value;
  const k = index - kept.start;
  const hit = viewed.hitAt !== null && viewed.hitAt === index;
  const board = svgOf("viewer-board");
  drawBoard(board, game.info.size, kept.positions[k],
    { last: kept.last[k], number, hit, region: viewerRegion() });
  inputOf("viewer-slider").value = String(index);
  board.dataset.index = String(index);
  $("viewer-move").textContent = `move ${kept.move_numbers[k]} of ${game.info.final_move_number}`;
  $("viewer-at-hit").hidden = !hit;
  buttonOf("viewer-hit").disabled = viewed.hitAt === null || hit;
  const comment = kept.comments ? kept.comments[k] : null;
  $("viewer-comment").textContent = comment || "";
  $("viewer-comment").hidden = !comment;
  viewed.at = index;
  pushUrl(true);
}

/** The position the viewer shows.
 * @returns {number} */
export function viewerIndex() {
  return Number(inputOf("viewer-slider").value);
}

export function closeGame() {
  viewed.game = null;
  viewed.hit = null;
  viewed.hitAt = null;
  pushUrl(false);
  loadGame();
}

/** Shows the viewer's position in the explorer (its move list). */
async function exploreFromViewer() {
  const game = viewerGame;
  if (!game) return;
  /** @type {GameSteps} */
  let answer;
  try {
    answer = await getJson(`/api/game/${encodeURIComponent(game.id)}/steps`,
      { view: game.view, at: viewerIndex() });
  } catch (error) {
    showMessage(/** @type {Error} */ (error).message);
    return;
  }
  Object.assign(viewed, { game: null, hit: null, hitAt: null });
  profile.who = null;
  $("viewer").hidden = true;
  $("player-page").hidden = true;
  viewerGame = null;
  change(() => {
    leavePattern();
    search.size = answer.size;
    search.moves = answer.steps;
  });
}

/** Move numbers on the stones, or not. */
export function toggleNumbers() {
  showNumbers = !showNumbers;
  inputOf("viewer-numbers").checked = showNumbers;
  showGameAt(viewerIndex());
}

/** Goes to the position of the hit, if the game was opened at one. */
export function showHit() {
  if (viewed.hitAt !== null) showGameAt(viewed.hitAt);
}

/** The viewer's buttons. */
export function wireViewer() {
  $("viewer-close").addEventListener("click", closeGame);
  $("viewer-first").addEventListener("click", () => showGameAt(0));
  $("viewer-prev").addEventListener("click", () => showGameAt(viewerIndex() - 1));
  $("viewer-next").addEventListener("click", () => showGameAt(viewerIndex() + 1));
  $("viewer-last").addEventListener("click", () => showGameAt(Infinity));
  $("viewer-slider").addEventListener("input", () => showGameAt(viewerIndex()));
  $("viewer-explore").addEventListener("click", exploreFromViewer);
  $("viewer-numbers").addEventListener("change", toggleNumbers);
  $("viewer-hit").addEventListener("click", () => showGameAt(/** @type {number} */ (viewed.hitAt)));
  $("hit-prev").addEventListener("click", () => stepHit(-1));
  $("hit-next").addEventListener("click", () => stepHit(1));
}
