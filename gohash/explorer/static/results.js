// @ts-check
// The side panel (#results): the continuations and the games of the search shown, a
// position's or a pattern's, in one form (state.js's ``Results``); and the pieces of a
// game record that every table shows (players, results, orders).

import { getJson } from "./api.js";
import { $, buttonOf, cell, colourDot, fmt, heads, percent, showMessage, tableOf } from "./dom.js";
import { patternParams, patternResults } from "./pattern.js";
import { openPlayer } from "./player.js";
import { gtp, pointLetters } from "./points.js";
import { playContinuation } from "./search.js";
import { page, positionParams, pushUrl, search } from "./state.js";
import { openGame } from "./viewer.js";

/** @typedef {import("./state.js").GamesPage} GamesPage */
/** @typedef {import("./state.js").PanelContinuation} PanelContinuation */
/** @typedef {import("./types.js").GameRecord} GameRecord */
/** @typedef {import("./types.js").Match} Match */
/** @typedef {import("./types.js").PatternAnswer} PatternAnswer */
/** @typedef {import("./state.js").Results} Results */

/**
 * A continuation with its point and the points equivalent to it as SGF letters, and its
 * place in the server's order (most played first), which its letter follows.
 * @typedef {Omit<PanelContinuation, "point" | "equivalent"> &
 *   {index: number, point: string | null, equivalent: string[]}} ContinuationRow
 */

export const CONTINUATION_LABELS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** @param {number} i @returns {string} */
function continuationLabel(i) {
  return i < CONTINUATION_LABELS.length ? CONTINUATION_LABELS[i] : "";
}

/** @param {ContinuationRow} c @returns {HTMLSpanElement} */
function winBar(c) {
  const bar = document.createElement("span");
  bar.className = "winbar";
  const decided = c.black_wins + c.white_wins;
  bar.title = `Black won ${c.black_wins}, White won ${c.white_wins}` +
    (c.count > decided ? `, ${c.count - decided} other or unknown` : "");
  for (const [cls, n] of /** @type {Array<[string, number]>} */ ([["bw", c.black_wins],
    ["ww", c.white_wins]])) {
    const part = document.createElement("span");
    part.className = cls;
    part.style.width = `${c.count ? (100 * n) / c.count : 0}%`;
    bar.append(part);
  }
  return bar;
}

/** @param {string | null} first @param {string | null} last @returns {string} */
function dates(first, last) {
  if (!first && !last) return "";
  if (first === last || !last) return first || "";
  if (!first) return last;
  return `${first} \u2013 ${last}`;
}

/** @param {string | null} name @param {string | null} rank @returns {string} */
function playerText(name, rank) {
  const who = name || "?";
  return rank ? `${who} (${rank})` : who;
}

/** A player's name and rank, the name a link to their page (nothing for no name).
 * @param {string | null} name @param {string | null} rank @returns {HTMLSpanElement} */
export function playerLink(name, rank) {
  const span = document.createElement("span");
  if (!name) {
    span.textContent = playerText(name, rank);
    return span;
  }
  const link = document.createElement("a");
  link.className = "player";
  link.textContent = name;
  link.href = "?" + new URLSearchParams({ who: name }).toString();
  link.title = `${name}: games, results and openings`;
  link.addEventListener("click", (event) => {
    event.preventDefault();
    event.stopPropagation();
    openPlayer(name);
  });
  span.append(link);
  if (rank) span.append(` (${rank})`);
  return span;
}

/** Marks the headers of a games table with the order shown (data-order on each header).
 * @param {HTMLTableElement} table @param {string} order */
export function markOrder(table, order) {
  for (const th of heads(table, "th[data-order]")) {
    const on = order.replace(/^-/, "") === th.dataset.order;
    th.setAttribute("aria-sort", on ? (order.startsWith("-") ? "descending" : "ascending")
      : "none");
  }
}

/** The next order when a header is clicked: its own, ascending, then descending.
 * @param {string} current @param {string} name @returns {string} */
export function nextOrder(current, name) {
  return current === name ? "-" + name : name;
}

/** A game's result in one form (the record's ``outcome``: B+R, W+3.5), as recorded on hover.
 * @param {HTMLTableRowElement} tr @param {GameRecord} record */
export function resultCell(tr, record) {
  const td = cell(tr, record.outcome, "result");
  if (record.result && record.result !== record.outcome) td.title = `RE[${record.result}]`;
}

// -- the continuations ---------------------------------------------------------------------------

/** The continuation table's sort keys, by the data-sort of its headers.
 * @type {Record<string, (c: ContinuationRow) => number | string>} */
const CONTINUATION_KEYS = {
  label: (c) => c.index,
  count: (c) => c.count,
  share: (c) => c.count,
  black: (c) => (c.count ? c.black_wins / c.count : 0),
  white: (c) => (c.count ? c.white_wins / c.count : 0),
  other: (c) => (c.count ? c.other / c.count : 0),
  tenuki: (c) => c.tenuki || 0,
  dates: (c) => c.last_date || "",
};

let continuationSort = { key: "count", descending: true };
/** Rows of the continuation table shown until "Show all" is pressed. */
const TOP_ROWS = 10;
let allContinuations = false;

/** The continuations with their points as SGF letters, each keeping its place in the
 * server's order (most played first), which its letter follows.
 * @param {Results} data @returns {ContinuationRow[]} */
export function continuationRows(data) {
  return data.continuations.moves.map((c, index) => ({
    ...c, index, point: pointLetters(c.point, data.size),
    equivalent: /** @type {string[]} */ (c.equivalent.map((p) => pointLetters(p, data.size))),
  }));
}

/** @param {Results} data @returns {ContinuationRow[]} */
function sortedContinuations(data) {
  const rows = continuationRows(data);
  const key = CONTINUATION_KEYS[continuationSort.key];
  const sign = continuationSort.descending ? -1 : 1;
  // Ties keep the server's order (most played first): the letters' order.
  return rows.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -sign : x > y ? sign : a.index - b.index;
  });
}

/** @param {Results} data */
export function renderContinuations(data) {
  const table = tableOf("continuations");
  const body = table.tBodies[0];
  /** @type {HTMLTableRowElement[]} */
  const rows = [];
  for (const c of sortedContinuations(data)) {
    const tr = document.createElement("tr");
    tr.dataset.p = c.point || "pass";
    tr.dataset.colour = c.colour;
    tr.dataset.equivalent = c.equivalent.join(",");
    tr.dataset.label = continuationLabel(c.index);
    cell(tr, continuationLabel(c.index), "letter");
    const move = document.createElement("span");
    move.append(colourDot(c.colour), c.gtp);
    cell(tr, move);
    cell(tr, fmt(c.count), "num");
    cell(tr, `${(100 * c.share).toFixed(1)}%`, "num share");
    cell(tr, percent(c.black_wins, c.count), "num black");
    cell(tr, percent(c.white_wins, c.count), "num white");
    cell(tr, percent(c.other, c.count), "num other");
    cell(tr, c.tenuki === undefined ? "" : fmt(c.tenuki), "num tenuki");
    cell(tr, winBar(c), "bar");
    cell(tr, dates(c.first_date, c.last_date), "dates");
    tr.addEventListener("click", () => playContinuation(c));
    tr.hidden = !allContinuations && rows.length >= TOP_ROWS;
    rows.push(tr);
  }
  body.replaceChildren(...rows);
  const more = $("continuations-more");
  more.hidden = rows.length <= TOP_ROWS;
  more.textContent = allContinuations ? `Show the top ${TOP_ROWS}` : `Show all ${rows.length}`;
  for (const th of heads(table, "th[data-sort]")) {
    const on = th.dataset.sort === continuationSort.key;
    th.setAttribute("aria-sort", on ? (continuationSort.descending ? "descending" : "ascending")
      : "none");
  }
  $("no-continuations").hidden = data.continuations.moves.length > 0;
}

/** Sorts the continuations by a header's key (again: the other way).
 * @param {string} key */
export function sortContinuations(key) {
  if (continuationSort.key === key) continuationSort.descending = !continuationSort.descending;
  else continuationSort = { key, descending: key !== "label" && key !== "dates" };
  if (page.results) renderContinuations(page.results);
}

/** Shows all the continuations, or the top ones again. */
export function toggleAllContinuations() {
  allContinuations = !allContinuations;
  if (page.results) renderContinuations(page.results);
}

/** Letters on one point of each continuation (its representative); nothing is drawn on the
 * points equivalent to it under the position's own symmetries, which say so on hover.
 * @param {Results} data
 * @returns {Map<string, {label?: string, of?: string, title: string}>} */
export function continuationMarks(data) {
  /** @type {Map<string, {label?: string, of?: string, title: string}>} */
  const marks = new Map();
  continuationRows(data).forEach((c) => {
    if (!c.point) return;
    const label = continuationLabel(c.index);
    const name = gtp(c.point, data.size);
    const games = `${fmt(c.count)} game${c.count === 1 ? "" : "s"}`;
    const title = `${label}: ${c.colour === "b" ? "Black" : "White"} ${name}, ${games}`;
    const there = marks.get(c.point);
    if (there && there.label) {
      // The other colour's move at a lettered point: its letter is in the table.
      there.title += `; ${title}`;
      return;
    }
    marks.set(c.point, { label, title });
    for (const point of c.equivalent) {
      if (point !== c.point && !marks.has(point)) {
        marks.set(point, {
          of: c.point,
          title: `${gtp(point, data.size)}: equivalent to ${label} (${name}) by the ` +
            `position's symmetry, ${games}`,
        });
      }
    }
  });
  return marks;
}

/** The counts of a position's continuations, in words.
 * @param {import("./types.js").Continuations} summary */
export function renderSummary(summary) {
  const parts = [];
  if (summary.total) {
    parts.push(`${fmt(summary.total)} occurrences: Black won ${fmt(summary.black_wins)}, ` +
      `White won ${fmt(summary.white_wins)}, ${fmt(summary.other)} other`);
    if (summary.exchanged_colours) {
      parts.push(`${fmt(summary.exchanged_colours)} with colours exchanged`);
    }
    if (summary.ended) parts.push(`${fmt(summary.ended)} with no next move`);
  }
  $("summary").textContent = parts.join("; ");
}

// -- the games -----------------------------------------------------------------------------------

/** @param {GamesPage} games */
export function renderGames(games) {
  const table = tableOf("games");
  table.tBodies[0].replaceChildren(...games.matches.map((m, i) => {
    const tr = document.createElement("tr");
    tr.dataset.game = String(m.game_id);
    tr.title = `${m.source}, game ${m.game}`;
    cell(tr, playerLink(m.black, m.black_rank));
    cell(tr, playerLink(m.white, m.white_rank));
    cell(tr, m.iso_date);
    resultCell(tr, m);
    cell(tr, m.move_number, "num");
    cell(tr, m.colours_exchanged ? "exchanged" : "same", "colours");
    const hit = games.offset + i;
    tr.addEventListener("click", () => openGame(m, hit));
    return tr;
  }));
  markOrder(table, search.pattern === null ? search.order : "");  // hits: index order
  $("games-count").textContent = `(${fmt(games.total)})`;
  const end = games.offset + games.matches.length;
  $("games-range").textContent = games.total
    ? `${fmt(games.offset + 1)}\u2013${fmt(end)} of ${fmt(games.total)}` : "none";
  buttonOf("games-prev").disabled = games.offset <= 0;
  buttonOf("games-next").disabled = end >= games.total;
}

/** The games of the search shown (the position's or the pattern's), ``limit`` from the
 * ``offset``-th.
 * @param {number} offset @param {number} limit @returns {Promise<GamesPage>} */
export async function fetchGames(offset, limit) {
  if (search.pattern !== null) {
    /** @type {PatternAnswer} */
    const answer = await getJson("/api/pattern", patternParams(offset, limit));
    return patternResults(answer).games;
  }
  return getJson("/api/games", { ...positionParams(), offset, limit });
}

/** The games' previous (``delta`` < 0) or next page.
 * @param {number} delta */
export async function pageGames(delta) {
  if (!page.results) return;
  const offset = Math.max(0, search.offset + delta);
  try {
    const games = await fetchGames(offset, /** @type {number} */ (page.results.games.limit));
    search.offset = offset;
    pushUrl(false);
    renderGames(games);
  } catch (error) {
    showMessage(/** @type {Error} */ (error).message);
  }
}

/** The step of the games' pages: the page shown's.
 * @returns {number} */
export function gamesStep() {
  return page.results ? /** @type {number} */ (page.results.games.limit) : 20;
}
