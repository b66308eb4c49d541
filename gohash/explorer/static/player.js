// @ts-check
// A player's page: what the server counts (gohash.index.players): games, results by colour
// and year, and the most played openings up to symmetry and corner patterns; the page only
// draws them.  And the player search: the names holding what is typed (/api/players),
// listed under the field; a click on one opens their page, and Enter opens the name typed
// exactly (any case) or the only one found.

import { getJson, Latest } from "./api.js";
import { SVG, el, starPoints } from "./board.js";
import { $, buttonOf, cell, colourDot, fmt, formOf, heads, inputOf, percent, showMessage,
  tableOf } from "./dom.js";
import { leavePattern, setMode } from "./modes.js";
import { newRegion } from "./pattern.js";
import { LETTERS, gtp } from "./points.js";
import { markOrder, nextOrder, playerLink, resultCell } from "./results.js";
import { change } from "./search.js";
import { page, profile, pushUrl, search, viewed } from "./state.js";
import { loadGame, openGame } from "./viewer.js";

/** @typedef {import("./types.js").Opening} Opening */
/** @typedef {import("./types.js").PlayerAnswer} PlayerAnswer */
/** @typedef {import("./types.js").PlayersAnswer} PlayersAnswer */
/** @typedef {import("./types.js").Results} Results */
/** @typedef {import("./state.js").Pattern} Pattern */

/** The answers for the player's page. */
const pages = new Latest();

/** Opens a player's page; from the viewer, in its place (the back button returns to it).
 * @param {string} name */
export function openPlayer(name) {
  profile.who = name;
  profile.whoOrder = "";
  profile.whoOffset = 0;
  const fromViewer = viewed.game !== null;
  Object.assign(viewed, { game: null, hit: null, hitAt: null });
  pushUrl(false);
  if (fromViewer) loadGame();
  loadPlayer();
}

export function closePlayer() {
  profile.who = null;
  pushUrl(false);
  loadPlayer();
}

/** Whether a player's page is shown.
 * @returns {boolean} */
export function playerOpen() {
  return !$("player-page").hidden;
}

/** The heads of the tables of results (class "results"; data-first names the first column). */
function resultsHeads() {
  for (const table of document.querySelectorAll("table.results")) {
    const results = /** @type {HTMLTableElement} */ (table);
    const tr = document.createElement("tr");
    for (const [text, cls] of [[results.dataset.first || "", ""], ["Games", "num"],
      ["Won", "num"], ["Lost", "num"], ["Other", "num"], ["Won %", "num"]]) {
      const th = document.createElement("th");
      th.textContent = text;
      th.className = cls;
      tr.append(th);
    }
    /** @type {HTMLTableSectionElement} */ (results.tHead).replaceChildren(tr);
  }
}

/** @param {string} label @param {Results} r @returns {HTMLTableRowElement} */
function resultsRow(label, r) {
  const tr = document.createElement("tr");
  cell(tr, label);
  cell(tr, fmt(r.games), "num");
  cell(tr, fmt(r.wins), "num");
  cell(tr, fmt(r.losses), "num");
  cell(tr, fmt(r.other), "num");
  cell(tr, percent(r.wins, r.wins + r.losses), "num");
  return tr;
}

/** A small board of the moves of an opening (``region`` null: the whole board) or of a
 * corner pattern (``region``: {top, left, side}, rows counted from the top), each stone
 * numbered in the order played, and the moves written under it.
 * @param {Opening} opening @param {{top: number, left: number, side: number} | null} region
 * @returns {HTMLDivElement} */
function openingFigure(opening, region) {
  const size = opening.size;
  const { top, left, side } = region || { top: 0, left: 0, side: size };
  const unit = 10;
  const margin = 7;
  const extent = 2 * margin + (side - 1) * unit;
  /** @param {number} col @param {number} row @returns {[number, number]} */
  const xy = (col, row) => [margin + (col - left) * unit, margin + (row - top) * unit];
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${extent} ${extent}`);
  svg.setAttribute("class", region ? "small-board corner" : "small-board");
  svg.setAttribute("role", "img");
  const steps = opening.moves.split(",");
  svg.setAttribute("aria-label", steps.map((step) => gtp(step.slice(1), size)).join(" "));
  const parts = [el("rect", { width: extent, height: extent, fill: "#dcb35c" })];
  // A line goes on past the region's side where the board does (half a point).
  const [low, high] = [top, top + side - 1];
  const [first, last] = [left, left + side - 1];
  for (let i = 0; i < side; i++) {
    const [x1] = xy(first - (first > 0 ? 0.5 : 0), 0);
    const [x2] = xy(last + (last < size - 1 ? 0.5 : 0), 0);
    const [, y] = xy(0, top + i);
    parts.push(el("line", { x1, y1: y, x2, y2: y, stroke: "#000", "stroke-width": 0.6 }));
    const [, y1] = xy(0, low - (low > 0 ? 0.5 : 0));
    const [, y2] = xy(0, high + (high < size - 1 ? 0.5 : 0));
    const [x] = xy(left + i, 0);
    parts.push(el("line", { x1: x, y1, x2: x, y2, stroke: "#000", "stroke-width": 0.6 }));
  }
  for (const [row, col] of starPoints(size)) {
    const fromTop = size - 1 - row;
    if (fromTop < low || fromTop > high || col < first || col > last) continue;
    const [x, y] = xy(col, fromTop);
    parts.push(el("circle", { cx: x, cy: y, r: 1.3, fill: "#000" }));
  }
  steps.forEach((step, i) => {
    const [x, y] = xy(LETTERS.indexOf(step[1]), LETTERS.indexOf(step[2]));
    const black = step[0] === "b";
    parts.push(el("circle", {
      cx: x, cy: y, r: unit / 2 - 0.4, fill: black ? "#151515" : "#f6f6f6", stroke: "#000",
      "stroke-width": 0.5, "data-stone": step.slice(1), "data-colour": step[0],
    }));
    parts.push(el("text", {
      x, y: y + 2.6, "text-anchor": "middle", "font-size": 7.5, fill: black ? "#fff" : "#000",
    }, String(i + 1)));
  });
  svg.replaceChildren(...parts);
  const words = document.createElement("span");
  words.className = "opening-moves";
  for (const step of steps) {
    const move = document.createElement("span");
    move.className = "move";
    move.append(colourDot(step[0]), gtp(step.slice(1), size));
    words.append(move, " ");
  }
  const figure = document.createElement("div");
  figure.append(svg, words);
  return figure;
}

/** An opening's or corner pattern's row: its moves, how often, (for a corner pattern, how
 * often the player was Black / White,) how it went for the player, and by year.
 * @param {HTMLTableRowElement} tr @param {Opening} o @param {string} [sides] */
function openingCells(tr, o, sides) {
  const corner = sides === undefined ? null : cornerPattern(o);
  cell(tr, openingFigure(o, corner && { top: corner.top, left: corner.left,
    side: corner.rows.length }));
  cell(tr, fmt(o.count), "num");
  if (sides !== undefined) cell(tr, sides, "num");
  cell(tr, `${fmt(o.results.wins)}\u2013${fmt(o.results.losses)}` +
    (o.results.other ? ` (${fmt(o.results.other)} other)` : ""), "num");
  cell(tr, Object.entries(o.years).map(([y, n]) => `${y}: ${fmt(n)}`).join(", "), "dates");
}

/** The pattern of a corner pattern's shape: the top right corner region
 * (gohash.index.players.corner_side) holding the stones of its moves, the rest empty.
 * @param {Opening} p @returns {Pattern} */
function cornerPattern(p) {
  const side = Math.min(9, Math.ceil(p.size / 2));
  const left = p.size - side;
  const rows = Array.from({ length: side }, () => Array(side).fill("."));
  for (const step of p.moves.split(",")) {
    rows[LETTERS.indexOf(step[2])][LETTERS.indexOf(step[1]) - left] = step[0] === "b" ? "X" : "O";
  }
  return { top: 0, left, rows: rows.map((row) => row.join("")) };
}

/** @param {PlayerAnswer} data */
function renderPlayer(data) {
  $("player-name").textContent = data.name;
  const all = /** @type {Results} */ (["games", "wins", "losses", "other"].reduce((sum, key) => {
    const name = /** @type {keyof Results} */ (key);
    sum[name] = data.colours.b[name] + data.colours.w[name];
    return sum;
  }, /** @type {Record<string, number>} */ ({})));
  tableOf("player-colours").tBodies[0].replaceChildren(resultsRow("as Black", data.colours.b),
    resultsRow("as White", data.colours.w), resultsRow("all", all));
  tableOf("player-years").tBodies[0].replaceChildren(
    ...Object.entries(data.years).reverse().map(([year, r]) => resultsRow(year, r)));
  $("player-opening-length").textContent = String(data.opening_length);
  tableOf("player-openings").tBodies[0].replaceChildren(...data.openings.map((o) => {
    const tr = document.createElement("tr");
    tr.dataset.moves = o.moves;
    openingCells(tr, o);
    tr.title = "Explore this opening";
    tr.addEventListener("click", () => {
      profile.who = null;
      $("player-page").hidden = true;
      change(() => {
        leavePattern();
        search.size = o.size;
        search.moves = o.moves.split(",");
      });
    });
    return tr;
  }));
  $("no-openings").hidden = data.openings.length > 0;
  $("player-corner-length").textContent = String(data.corner_length);
  tableOf("player-corners").tBodies[0].replaceChildren(...data.corners.map((p) => {
    const tr = document.createElement("tr");
    tr.dataset.moves = p.moves;
    const player = p.player || {};
    openingCells(tr, p, `${fmt(player.b || 0)}\u00a0/\u00a0${fmt(player.w || 0)}`);
    tr.title = "Search this shape (a pattern search of the corner)";
    tr.addEventListener("click", () => {
      profile.who = null;
      $("player-page").hidden = true;
      page.patternUndo = [];
      change(() => {
        search.size = p.size;
        search.moves = [];
        newRegion(cornerPattern(p));
      });
      setMode("pattern");
    });
    return tr;
  }));
  $("no-corners").hidden = data.corners.length > 0;
  const games = data.games;
  const table = tableOf("player-games");
  table.tBodies[0].replaceChildren(...games.records.map((g) => {
    const tr = document.createElement("tr");
    tr.dataset.game = String(g.game_id);
    cell(tr, g.iso_date);
    cell(tr, playerLink(g.black, g.black_rank));
    cell(tr, playerLink(g.white, g.white_rank));
    resultCell(tr, g);
    tr.addEventListener("click", () => {
      openGame({ game_id: g.game_id, seq: 0, view: "identity" });
    });
    return tr;
  }));
  markOrder(table, profile.whoOrder || "-date");
  const end = games.offset + games.records.length;
  $("player-range").textContent = games.total
    ? `${fmt(games.offset + 1)}\u2013${fmt(end)} of ${fmt(games.total)}` : "none";
  buttonOf("player-prev").disabled = games.offset <= 0;
  buttonOf("player-next").disabled = end >= games.total;
  document.dispatchEvent(new CustomEvent("gohash:player", { detail: data.name }));
}

/** Shows the state's player's page (or hides it, for none). */
export async function loadPlayer() {
  const name = profile.who;
  if (name === null) {
    pages.drop();
    $("player-page").hidden = true;
    return;
  }
  /** @type {Record<string, string | number>} */
  const params = { name, offset: profile.whoOffset, limit: 20 };
  if (profile.whoOrder) params.order = profile.whoOrder;
  try {
    /** @type {{value: PlayerAnswer} | null} */
    const answer = await pages.run(() => getJson("/api/player", params));
    if (answer === null) return;
    renderPlayer(answer.value);
    $("player-page").hidden = false;
  } catch (error) {
    showMessage(/** @type {Error} */ (error).message);
    $("player-page").hidden = true;
  }
}

// -- the player search ---------------------------------------------------------------------------

const PLAYER_MATCHES = 12;
/** The answers of the player search. */
const matches = new Latest();
/** @type {number | undefined} */
let playerSearchTimer;

/** Lists the names holding the text typed; the players found, or null.
 * @returns {Promise<Array<{name: string, games: number}> | null>} */
async function searchPlayers() {
  clearTimeout(playerSearchTimer);
  const list = $("player-matches");
  const text = inputOf("player-q").value.trim();
  if (!text) {
    matches.drop();
    list.hidden = true;
    list.replaceChildren();
    return null;
  }
  /** @type {{value: PlayersAnswer} | null} */
  let answer;
  try {
    answer = await matches.run(() => getJson("/api/players", { q: text, limit: PLAYER_MATCHES }));
  } catch (error) {
    showMessage(/** @type {Error} */ (error).message);
    return null;
  }
  if (answer === null) return null;
  const data = answer.value;
  list.replaceChildren(...data.players.map((p) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.name = p.name;
    button.textContent = `${p.name} (${fmt(p.games)} game${p.games === 1 ? "" : "s"})`;
    button.addEventListener("click", () => choosePlayer(p.name));
    item.append(button);
    return item;
  }));
  if (!data.players.length) {
    const none = document.createElement("li");
    none.className = "none";
    none.textContent = `No player's name contains \u201c${text}\u201d`;
    list.append(none);
  }
  list.dataset.query = text;
  list.hidden = false;
  return data.players;
}

/** @param {string} name */
function choosePlayer(name) {
  $("player-matches").hidden = true;
  const field = inputOf("player-q");
  field.value = "";
  field.blur();  // the page's keys (Escape closes it) are the page's again
  openPlayer(name);
}

/** @param {SubmitEvent} event */
async function submitPlayerSearch(event) {
  event.preventDefault();
  const text = inputOf("player-q").value.trim();
  const players = await searchPlayers();
  if (!players || !players.length) return;
  const same = players.filter((p) => p.name.toLowerCase() === text.toLowerCase());
  if (same.length === 1) choosePlayer(same[0].name);
  else if (players.length === 1) choosePlayer(players[0].name);
}

/** @param {number} delta */
function pagePlayer(delta) {
  profile.whoOffset = Math.max(0, profile.whoOffset + delta);
  pushUrl(false);
  loadPlayer();
}

/** The player's page's tables and buttons, and the player search. */
export function wirePlayer() {
  for (const th of heads(tableOf("player-games"), "th[data-order]")) {
    th.addEventListener("click", () => {
      profile.whoOrder = nextOrder(profile.whoOrder || "-date", /** @type {string} */ (
        th.dataset.order));
      profile.whoOffset = 0;
      pushUrl(false);
      loadPlayer();
    });
  }
  resultsHeads();
  const field = inputOf("player-q");
  field.addEventListener("input", () => {
    clearTimeout(playerSearchTimer);
    playerSearchTimer = setTimeout(searchPlayers, 200);
  });
  formOf("player-search").addEventListener("submit", submitPlayerSearch);
  field.addEventListener("keydown", (event) => {
    if (event.key === "Escape") $("player-matches").hidden = true;
  });
  document.addEventListener("click", (event) => {
    if (!$("player-search").contains(/** @type {Node} */ (event.target))) {
      $("player-matches").hidden = true;
    }
  });
  $("player-close").addEventListener("click", closePlayer);
  $("player-prev").addEventListener("click", () => pagePlayer(-20));
  $("player-next").addEventListener("click", () => pagePlayer(20));
}
