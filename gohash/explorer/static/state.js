// @ts-check
// The page's state, which lives in its URL (the parameters are listed in app.js), and
// what the page keeps besides: the answers drawn, the mode, the steps to redo.

import { LETTERS } from "./points.js";

/** @typedef {import("./types.js").Info} Info */
/** @typedef {import("./types.js").PositionAnswer} PositionAnswer */
/** @typedef {import("./types.js").FindResult} FindResult */
/** @typedef {import("./types.js").Played} Played */
/** @typedef {import("./types.js").Match} Match */
/** @typedef {import("./types.js").Hit} Hit */
/** @typedef {import("./types.js").PatternAnswer} PatternAnswer */

/**
 * A pattern: its region's top-left point (rows counted from the top) and its rows, one
 * character per point (docs/patterns.md: ``X O . * x o``, ``-`` outside it); no rows
 * while no region is drawn; ``error`` says why the URL's form did not read.
 * @typedef {{top: number, left: number, rows: string[], error?: string}} Pattern
 */

/**
 * The search shown (a position's or a pattern's): what a change the server refuses
 * takes back.
 * @typedef {object} Search
 * @property {number | string} size
 * @property {string[]} moves the move list's steps (gohash/index/movelist.py)
 * @property {Record<string, string>} filters the form's fields: the filters, symmetry, turn
 * @property {number} offset the first game listed
 * @property {string} order the games' order ("-" before it: descending)
 * @property {Pattern | null} pattern the pattern searched, null for a position
 * @property {string} patternSymmetry
 * @property {string} toMove
 * @property {string} maxMove
 * @property {string} sequence
 */

/** @type {Search} */
export const search = {
  size: 19, moves: [], filters: {}, offset: 0, order: "", pattern: null,
  patternSymmetry: "full", toMove: "", maxMove: "", sequence: "",
};

/**
 * The game in the viewer: its id (null: none), the position shown and the element it is
 * seen through; the hit's place in the games list and its position, if opened there.
 * @type {{game: string | null, at: number, view: string, hit: number | null,
 *   hitAt: number | null}}
 */
export const viewed = { game: null, at: 0, view: "identity", hit: null, hitAt: null };

/** The player's page shown (``who`` null: none), its games' order and first game.
 * @type {{who: string | null, whoOrder: string, whoOffset: number}} */
export const profile = { who: null, whoOrder: "", whoOffset: 0 };

/**
 * A continuation as the panel shows it: a position's, or a pattern's with its share of
 * the hits.
 * @typedef {Played & {share: number, tenuki?: number}} PanelContinuation
 */

/**
 * A page of the games the panel lists: a position's matches, or a pattern's hits.
 * @typedef {{total: number, offset: number, limit: number | null,
 *   matches: Array<Match | Hit>}} GamesPage
 */

/**
 * The panel's answer: a position's, or a pattern's in the same form (``pattern``).
 * @typedef {object} Results
 * @property {number} size
 * @property {{moves: PanelContinuation[]}} continuations
 * @property {GamesPage} games
 * @property {PatternAnswer} [pattern]
 */

/**
 * What the page keeps besides its URL.
 * @type {{info: Info | null, mode: string, shown: PositionAnswer | null,
 *   results: Results | null, selecting: string | null, redo: string[],
 *   patternUndo: Array<{pattern: Pattern | null, sequence: string}>}}
 */
export const page = {
  info: null, // /api/info's answer
  mode: "play", // play, B, W (edit) or pattern
  shown: null, // the last position answer drawn
  results: null, // the answer in the side panel: the position's, or the pattern's
  selecting: null, // the first corner of a pattern's region being drawn, or null
  redo: [], // steps taken back with the left arrow, for the right arrow
  patternUndo: [], // the patterns (and sequences) before each change, for Undo
};

/** The form's fields: the filters, which /api/info lists (see filters.js), then the search
 * options symmetry and turn.
 * @type {string[]} */
export const FILTERS = [];

/** Reads the search and the viewer's and player's page from the URL. */
export function readUrl() {
  const params = new URLSearchParams(location.search);
  const size = params.get("size");
  search.size = size === null ? (page.info ? page.info.default_size : 19) : size;
  const moves = params.get("moves");
  search.moves = moves ? moves.split(",") : [];
  search.filters = {};
  for (const name of FILTERS) {
    const value = params.get(name);
    if (value) search.filters[name] = value;
  }
  search.offset = Number(params.get("offset") || 0) || 0;
  viewed.game = params.get("game");
  viewed.at = Number(params.get("at") || 0) || 0;
  viewed.view = params.get("view") || "identity";
  search.order = params.get("order") || "";
  const hit = params.get("hit");
  viewed.hit = hit === null || hit === "" ? null : Number(hit) || 0;
  viewed.hitAt = viewed.hit === null ? null : Number(params.get("hit_at") || 0) || 0;
  profile.who = params.get("who");
  profile.whoOrder = params.get("who_order") || "";
  profile.whoOffset = Number(params.get("who_offset") || 0) || 0;
  const pattern = params.get("pattern");
  search.pattern = pattern === null ? null : readPattern(pattern);
  search.patternSymmetry = params.get("pattern_symmetry") || "full";
  search.toMove = params.get("to_move") || "";
  search.maxMove = params.get("max_move") || "";
  search.sequence = tidySequence(params.get("sequence") || "");
}

/** The position's parameters, as /api/position and /api/games take them.
 * @returns {Record<string, string>} */
export function positionParams() {
  /** @type {Record<string, string>} */
  const params = { size: String(search.size), moves: search.moves.join(","), ...search.filters };
  if (search.order) params.order = search.order;
  return params;
}

/** The URL's query of the state.
 * @returns {string} */
function pageUrl() {
  const params = new URLSearchParams(positionParams());
  if (!search.moves.length) params.delete("moves");
  if (search.offset) params.set("offset", String(search.offset));
  if (viewed.game !== null) {
    params.set("game", viewed.game);
    params.set("at", String(viewed.at));
    params.set("view", viewed.view);
    if (viewed.hit !== null) {
      params.set("hit", String(viewed.hit));
      params.set("hit_at", String(viewed.hitAt));
    }
  }
  if (profile.who !== null) {
    params.set("who", profile.who);
    if (profile.whoOrder) params.set("who_order", profile.whoOrder);
    if (profile.whoOffset) params.set("who_offset", String(profile.whoOffset));
  }
  if (search.pattern !== null) {
    params.set("pattern", patternText(search.pattern));
    if (search.patternSymmetry !== "full") params.set("pattern_symmetry", search.patternSymmetry);
    if (search.toMove) params.set("to_move", search.toMove);
    if (search.maxMove) params.set("max_move", search.maxMove);
    if (search.sequence) params.set("sequence", search.sequence);
  }
  // Commas, slashes and colons need no escape in a query: keep move lists and patterns
  // readable in the address bar.
  return "?" + params.toString().replace(/%2C/g, ",").replace(/%2F/g, "/")
    .replace(/%3A/g, ":");
}

/** Writes the state into the URL: a new entry of the history, or (``replace``) in place.
 * @param {boolean} replace */
export function pushUrl(replace) {
  const url = pageUrl();
  if (url === location.search) return;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
}

// -- the pattern's URL form -----------------------------------------------------------------------

const PATTERN_CHARS = "XO.*xo-";

/** The pattern of the URL's compact form (app.js describes it); a form that does not read
 * has an ``error`` the page shows.
 * @param {string} text @returns {Pattern} */
export function readPattern(text) {
  const none = { top: 0, left: 0, rows: [] };
  if (!text) return none;
  const match = /^([a-z])([a-z])([a-z])([a-z]):(.*)$/.exec(text);
  const [left, top, right, bottom] = match ? [1, 2, 3, 4].map((i) => LETTERS.indexOf(match[i]))
    : [0, 0, -1, -1];
  const rows = match ? match[5].split("/") : [];
  if (right < left || bottom < top || rows.length !== bottom - top + 1 ||
      rows.some((row) => row.length !== right - left + 1 ||
        [...row].some((ch) => !PATTERN_CHARS.includes(ch)))) {
    return { ...none, error: `the pattern ${JSON.stringify(text.slice(0, 40))} does not read: ` +
      "expected its region's corners (SGF letters), a colon, and its rows joined by /" };
  }
  return { top, left, rows };
}

/** @param {Pattern} pattern @returns {string} */
export function patternText(pattern) {
  const { top, left, rows } = pattern;
  if (!rows.length) return "";
  return LETTERS[left] + LETTERS[top] + LETTERS[left + rows[0].length - 1] +
    LETTERS[top + rows.length - 1] + ":" + rows.join("/");
}

/** A sequence as the page keeps it: one space between words, in capitals (GTP reads
 * either case).
 * @param {string} text @returns {string} */
export function tidySequence(text) {
  return text.trim().replace(/\s+/g, " ").toUpperCase();
}
