// gohash explorer: the page's state lives in its URL; the server replays it.
//
// URL parameters (the same the JSON endpoints take):
//   size   board size;  moves  the move list (see gohash/index/movelist.py)
//   the filters (their names come from /api/info) and the search options symmetry, turn
//          (gohash/explorer/app.py)
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
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const GTP = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
const CONTINUATION_LABELS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const CELL = 30;
const MARGIN = 32;

// The form's fields: the filters, which /api/info lists (see addFilters), then the search
// options symmetry and turn.
const FILTERS = [];
const state = {
  size: 19, moves: [], filters: {}, offset: 0, game: null, at: 0, view: "identity",
  order: "", hit: null, hitAt: null, who: null, whoOrder: "", whoOffset: 0,
  pattern: null, patternSymmetry: "full", toMove: "", maxMove: "", sequence: "",
};
let mode = "play";
let shown = null; // the last position answer drawn
let results = null; // the answer in the side panel: the position's, or the pattern's
let selecting = null; // the first corner of a pattern's region being drawn, or null
let viewerGame = null; // the game in the viewer: its first page (info) and pages kept
let requestSeq = 0;
let info = null;
let redo = []; // steps taken back with the left arrow, for the right arrow
let continuationSort = { key: "count", descending: true };
let showNumbers = false;

const $ = (id) => document.getElementById(id);

// -- URL state --------------------------------------------------------------------------------

function readUrl() {
  const params = new URLSearchParams(location.search);
  const size = params.get("size");
  state.size = size === null ? (info ? info.default_size : 19) : size;
  const moves = params.get("moves");
  state.moves = moves ? moves.split(",") : [];
  state.filters = {};
  for (const name of FILTERS) {
    if (params.get(name)) state.filters[name] = params.get(name);
  }
  state.offset = Number(params.get("offset") || 0) || 0;
  state.game = params.get("game");
  state.at = Number(params.get("at") || 0) || 0;
  state.view = params.get("view") || "identity";
  state.order = params.get("order") || "";
  const hit = params.get("hit");
  state.hit = hit === null || hit === "" ? null : Number(hit) || 0;
  state.hitAt = state.hit === null ? null : Number(params.get("hit_at") || 0) || 0;
  state.who = params.get("who");
  state.whoOrder = params.get("who_order") || "";
  state.whoOffset = Number(params.get("who_offset") || 0) || 0;
  const pattern = params.get("pattern");
  state.pattern = pattern === null ? null : readPattern(pattern);
  state.patternSymmetry = params.get("pattern_symmetry") || "full";
  state.toMove = params.get("to_move") || "";
  state.maxMove = params.get("max_move") || "";
  state.sequence = tidySequence(params.get("sequence") || "");
  if ((mode === "pattern") !== (state.pattern !== null)) {
    setMode(state.pattern !== null ? "pattern" : "play");
  }
}

function positionParams() {
  const params = { size: String(state.size), moves: state.moves.join(","), ...state.filters };
  if (state.order) params.order = state.order;
  return params;
}

function pageUrl() {
  const params = new URLSearchParams(positionParams());
  if (!state.moves.length) params.delete("moves");
  if (state.offset) params.set("offset", state.offset);
  if (state.game !== null) {
    params.set("game", state.game);
    params.set("at", state.at);
    params.set("view", state.view);
    if (state.hit !== null) {
      params.set("hit", state.hit);
      params.set("hit_at", state.hitAt);
    }
  }
  if (state.who !== null) {
    params.set("who", state.who);
    if (state.whoOrder) params.set("who_order", state.whoOrder);
    if (state.whoOffset) params.set("who_offset", state.whoOffset);
  }
  if (state.pattern !== null) {
    params.set("pattern", patternText(state.pattern));
    if (state.patternSymmetry !== "full") params.set("pattern_symmetry", state.patternSymmetry);
    if (state.toMove) params.set("to_move", state.toMove);
    if (state.maxMove) params.set("max_move", state.maxMove);
    if (state.sequence) params.set("sequence", state.sequence);
  }
  // Commas, slashes and colons need no escape in a query: keep move lists and patterns
  // readable in the address bar.
  return "?" + params.toString().replace(/%2C/g, ",").replace(/%2F/g, "/")
    .replace(/%3A/g, ":");
}

function pushUrl(replace) {
  const url = pageUrl();
  if (url === location.search) return;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
}

// -- server ------------------------------------------------------------------------------------

async function getJson(path, params) {
  const query = params ? "?" + new URLSearchParams(params).toString() : "";
  const response = await fetch(path + query);
  let body;
  try {
    body = await response.json();
  } catch (e) {
    body = { error: `${response.status} ${response.statusText}` };
  }
  if (!response.ok) {
    const error = new Error(body.error || `${response.status} ${response.statusText}`);
    // An illegal step of a move list: its number and the reason in a few words.
    error.step = body.step;
    error.refusal = body.refusal;
    throw error;
  }
  return body;
}

function showMessage(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
}

// A click the rules refuse (occupied, ko, suicide): the reason beside the board, and
// nothing else changes.
function showRefusal(text) {
  const note = $("refusal");
  note.textContent = text || "";
  note.hidden = !text;
}

// A count as the page writes every count: with thousands separators.
function fmt(n) {
  return n === null || n === undefined ? "" : Number(n).toLocaleString("en-US");
}

// -- drawing -------------------------------------------------------------------------------------

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function letters(row, col, size) {
  return LETTERS[col] + LETTERS[size - 1 - row];
}

// A point as the JSON gives it ([row, col], row 0 the bottom line; null for a pass) as the
// SGF letters the page works in (docs/schemas.md).
function pointLetters(point, size) {
  return point ? letters(point[0], point[1], size) : null;
}

// The letters of a continuation's point and of the points equivalent to it.
function equivalentLetters(c, size) {
  return c.equivalent.map((p) => pointLetters(p, size));
}

function gtp(point, size) {
  if (!point) return "pass";
  const col = LETTERS.indexOf(point[0]);
  const row = size - 1 - LETTERS.indexOf(point[1]);
  return (col < GTP.length ? GTP[col] : "AA") + (row + 1);
}

function starPoints(size) {
  if (size < 7) return size % 2 ? [[size >> 1, size >> 1]] : [];
  const edge = size >= 13 ? 3 : 2;
  const lines = [edge, size - 1 - edge];
  const centre = size >> 1;
  const points = [];
  for (const r of lines) for (const c of lines) points.push([r, c]);
  if (size % 2) {
    points.push([centre, centre]);
    if (size >= 15) {
      points.push([centre, edge], [centre, size - 1 - edge], [edge, centre],
        [size - 1 - edge, centre]);
    }
  }
  return points;
}

// Draws a board into an <svg>: rows are strings of ".XO", top row first.  ``marks`` maps
// a point's letters to {label, title} (a letter drawn on it) or {of, title} (a point
// equivalent to the lettered point ``of``: nothing is drawn there, a click on it is the
// letter's), the title shown on hover; ``number``
// maps points to the move numbers drawn on their stones; ``hit`` marks the last move
// as the search's hit; ``onPoint`` makes every point clickable (it gets the point, its
// stone and the click).  A pattern's drawing adds ``region`` ({top, left, height, width},
// rows counted from the top), ``wild`` (points' letters to the characters * x o drawn on
// them) and ``corner`` (the first corner of a region being drawn).
function drawBoard(svg, size, rows,
  { last = null, marks = new Map(), number = new Map(), hit = false, onPoint = null,
    region = null, wild = new Map(), corner = null } = {}) {
  const extent = 2 * MARGIN + (size - 1) * CELL;
  const far = MARGIN + (size - 1) * CELL;
  svg.setAttribute("viewBox", `0 0 ${extent} ${extent}`);
  svg.dataset.size = size;
  const xy = (row, col) => [MARGIN + col * CELL, MARGIN + (size - 1 - row) * CELL];
  const parts = document.createDocumentFragment();
  parts.append(el("rect", { width: extent, height: extent, fill: "#dcb35c" }));
  for (let i = 0; i < size; i++) {
    const at = MARGIN + i * CELL;
    parts.append(el("line", { x1: MARGIN, y1: at, x2: far, y2: at, stroke: "#000" }));
    parts.append(el("line", { x1: at, y1: MARGIN, x2: at, y2: far, stroke: "#000" }));
    const label = i < GTP.length ? GTP[i] : "AA";
    const [x] = xy(0, i);
    const [, y] = xy(i, 0);
    for (const ty of [MARGIN - 16, far + 24]) {
      parts.append(el("text", { x, y: ty, "text-anchor": "middle", "font-size": 12 }, label));
    }
    for (const tx of [MARGIN - 20, far + 20]) {
      parts.append(el("text", { x: tx, y: y + 4, "text-anchor": "middle", "font-size": 12 },
        String(i + 1)));
    }
  }
  for (const [row, col] of starPoints(size)) {
    const [x, y] = xy(row, col);
    parts.append(el("circle", { cx: x, cy: y, r: 3.5, fill: "#000" }));
  }
  if (region) {
    parts.append(el("rect", {
      x: MARGIN + (region.left - 0.5) * CELL, y: MARGIN + (region.top - 0.5) * CELL,
      width: region.width * CELL, height: region.height * CELL, fill: "rgba(42,111,176,0.16)",
      stroke: "#2a6fb0", "stroke-width": 2, class: "region",
      "data-region": LETTERS[region.left] + LETTERS[region.top],
    }));
  }
  if (corner) {
    const [cx, cy] = [MARGIN + LETTERS.indexOf(corner[0]) * CELL,
      MARGIN + LETTERS.indexOf(corner[1]) * CELL];
    parts.append(el("rect", {
      x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL, fill: "none",
      stroke: "#2a6fb0", "stroke-width": 3, class: "corner", "data-corner": corner,
    }));
  }
  for (let r = 0; r < size; r++) {
    const rowText = rows[r];
    const row = size - 1 - r;
    for (let col = 0; col < size; col++) {
      const stone = rowText[col];
      const point = letters(row, col, size);
      const [x, y] = xy(row, col);
      if (stone !== ".") {
        parts.append(el("circle", {
          cx: x, cy: y, r: CELL / 2 - 1, class: "stone",
          fill: stone === "X" ? "#151515" : "#f6f6f6", stroke: "#000", "data-stone": point,
          "data-colour": stone === "X" ? "b" : "w",
        }));
        if (point === last && hit) {
          parts.append(el("rect", {
            x: x - CELL / 2 + 1, y: y - CELL / 2 + 1, width: CELL - 2, height: CELL - 2,
            fill: "none", stroke: "#d0021b", "stroke-width": 3, class: "hit-move",
          }));
        } else if (point === last && !number.has(point)) {
          parts.append(el("circle", {
            cx: x, cy: y, r: CELL / 5, fill: "none", "stroke-width": 2,
            stroke: stone === "X" ? "#f8f8f8" : "#111",
          }));
        }
      } else if (marks.has(point)) {
        const mark = marks.get(point);
        if (mark.label) {
          parts.append(el("circle", { cx: x, cy: y, r: CELL / 2 - 3, fill: "#dcb35c" }));
          parts.append(el("text", {
            x, y: y + 6, "text-anchor": "middle", "font-size": 17, "font-weight": "bold",
            fill: "#0b3d91", class: "mark", "data-mark": point,
          }, mark.label));
        }
      } else if (wild.has(point)) {
        parts.append(el("text", {
          x, y: y + 6, "text-anchor": "middle", "font-size": 18, "font-weight": "bold",
          fill: "#5a1d00", class: "wild", "data-wild": point,
        }, wild.get(point)));
      }
      if (number.has(point) && stone !== ".") {
        parts.append(el("text", {
          x, y: y + 5, "text-anchor": "middle", "font-size": 13, class: "number",
          fill: stone === "X" ? "#f8f8f8" : "#111", "data-number": point,
        }, String(number.get(point))));
      }
      if (onPoint || marks.has(point)) {
        const hit = el("rect", {
          x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, fill: "transparent",
          class: "hit", "data-p": point,
        });
        if (marks.has(point)) {
          hit.append(el("title", {}, marks.get(point).title));
          if (marks.get(point).of) hit.dataset.equivalentOf = marks.get(point).of;
        }
        if (onPoint) hit.addEventListener("click", (event) => onPoint(point, stone, event));
        parts.append(hit);
      }
    }
  }
  svg.replaceChildren(parts);
}

// -- the explorer --------------------------------------------------------------------------------

function continuationLabel(i) {
  return i < CONTINUATION_LABELS.length ? CONTINUATION_LABELS[i] : "";
}

function moveToken(colour, point) {
  const body = point || "pass";
  return shown && colour === shown.to_move ? body : colour + body;
}

function onBoardPoint(point, stone) {
  if (!shown) return;
  if (mode === "play") {
    const next = shown.continuations.moves.find(
      (c) => equivalentLetters(c, shown.size).includes(point));
    change(() => state.moves.push(moveToken(next ? next.colour : shown.to_move, point)),
      false, true);
  } else {
    const mine = mode === "B" ? "X" : "O";
    change(() => state.moves.push((stone === mine ? "E" : mode) + point), false, true);
  }
}

function winBar(c) {
  const bar = document.createElement("span");
  bar.className = "winbar";
  const decided = c.black_wins + c.white_wins;
  bar.title = `Black won ${c.black_wins}, White won ${c.white_wins}` +
    (c.count > decided ? `, ${c.count - decided} other or unknown` : "");
  for (const [cls, n] of [["bw", c.black_wins], ["ww", c.white_wins]]) {
    const part = document.createElement("span");
    part.className = cls;
    part.style.width = `${c.count ? (100 * n) / c.count : 0}%`;
    bar.append(part);
  }
  return bar;
}

function dates(first, last) {
  if (!first && !last) return "";
  if (first === last || !last) return first;
  if (!first) return last;
  return `${first} \u2013 ${last}`;
}

function cell(row, text, cls) {
  const td = document.createElement("td");
  if (cls) td.className = cls;
  if (text instanceof Node) td.append(text);
  else td.textContent = text === null || text === undefined ? "" : String(text);
  row.append(td);
  return td;
}

function colourDot(colour) {
  const dot = document.createElement("span");
  dot.className = `dot ${colour}`;
  return dot;
}

function player(name, rank) {
  const who = name || "?";
  return rank ? `${who} (${rank})` : who;
}

// A player's name and rank, the name a link to their page (nothing for no name).
function playerLink(name, rank) {
  const span = document.createElement("span");
  if (!name) {
    span.textContent = player(name, rank);
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

// Marks the headers of a games table with the order shown (data-order on each header).
function markOrder(table, order) {
  for (const th of table.tHead.querySelectorAll("th[data-order]")) {
    const on = order.replace(/^-/, "") === th.dataset.order;
    th.setAttribute("aria-sort", on ? (order.startsWith("-") ? "descending" : "ascending")
      : "none");
  }
}

// The next order when a header is clicked: its own, ascending, then descending.
function nextOrder(current, name) {
  return current === name ? "-" + name : name;
}

function percent(part, whole) {
  return whole ? `${Math.round((100 * part) / whole)}%` : "";
}

// The continuation table's sort keys, by the data-sort of its headers.
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

// The continuations with their points as SGF letters, each keeping its place in the
// server's order (most played first), which its letter follows.
function continuationRows(data) {
  return data.continuations.moves.map((c, index) => ({
    ...c, index, point: pointLetters(c.point, data.size), equivalent: equivalentLetters(c, data.size),
  }));
}

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

// Rows of the continuation table shown until "Show all" is pressed.
const TOP_ROWS = 10;
let allContinuations = false;

function renderContinuations(data) {
  const body = $("continuations").tBodies[0];
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
  for (const th of $("continuations").tHead.querySelectorAll("th[data-sort]")) {
    const on = th.dataset.sort === continuationSort.key;
    th.setAttribute("aria-sort", on ? (continuationSort.descending ? "descending" : "ascending")
      : "none");
  }
  $("no-continuations").hidden = data.continuations.moves.length > 0;
}

// Plays a continuation (its point as SGF letters): on the position, or, in a pattern
// search, as a stone added to the pattern.
function playContinuation(c) {
  if (state.pattern !== null) {
    if (c.point) addToPattern(c.colour, c.point);
    return;
  }
  change(() => state.moves.push(moveToken(c.colour, c.point)));
}

function sortContinuations(key) {
  if (continuationSort.key === key) continuationSort.descending = !continuationSort.descending;
  else continuationSort = { key, descending: key !== "label" && key !== "dates" };
  if (results) renderContinuations(results);
}

// Letters on one point of each continuation (its representative); nothing is drawn on the
// points equivalent to it under the position's own symmetries, which say so on hover.
function continuationMarks(data) {
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

function renderSummary(summary) {
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

// A game's result in one form (the record's ``outcome``: B+R, W+3.5), as recorded on hover.
function resultCell(tr, record) {
  const td = cell(tr, record.outcome, "result");
  if (record.result && record.result !== record.outcome) td.title = `RE[${record.result}]`;
}

function renderGames(games) {
  const body = $("games").tBodies[0];
  body.replaceChildren(...games.matches.map((m, i) => {
    const tr = document.createElement("tr");
    tr.dataset.game = m.game_id;
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
  markOrder($("games"), state.pattern === null ? state.order : "");  // hits: index order
  $("games-count").textContent = `(${fmt(games.total)})`;
  const end = games.offset + games.matches.length;
  $("games-range").textContent = games.total
    ? `${fmt(games.offset + 1)}\u2013${fmt(end)} of ${fmt(games.total)}` : "none";
  $("games-prev").disabled = games.offset <= 0;
  $("games-next").disabled = end >= games.total;
}

function renderPosition(data) {
  shown = data;
  results = data;
  $("results").hidden = false;
  $("board").classList.remove("selecting");
  delete $("board").dataset.pattern;
  state.moves = data.moves ? data.moves.split(",") : [];  // the server's short form
  drawBoard($("board"), data.size, data.stones,
    { last: data.last, marks: continuationMarks(data), onPoint: onBoardPoint });
  const toMove = data.to_move === "b" ? "Black" : "White";
  $("status").textContent = `Move ${data.move_number}, ${toMove} to play. ` +
    `Captured: ${data.captured.b} by Black, ${data.captured.w} by White.` +
    (data.ko ? ` Ko at ${gtp(data.ko, data.size)}.` : "");
  renderContinuations(data);
  renderSummary(data.continuations);
  renderGames(data.games);
  $("undo").disabled = state.moves.length === 0;
  showFilters();
  $("size").value = String(data.size);
  const table = $("continuations");
  table.dataset.moves = data.moves;
  document.body.dataset.moves = data.moves;
  document.dispatchEvent(new CustomEvent("gohash:rendered", { detail: data.moves }));
}

// Asks for the position of ``state``; answers to older requests are dropped, so quick
// clicks never draw a stale position over a newer one.  ``click``: the last step is a
// click on the board (a refusal of it is shown beside the board).
function loadPosition(click) {
  const params = positionParams();
  return drawLatest(
    () => (state.offset ? loadWithOffset(params) : getJson("/api/position", params)),
    renderPosition, click);
}

// Draws ``render(await fetching())`` unless a newer request was made meanwhile; false if
// the server refused it: its message is shown, or, for a click the rules refuse (the
// last step), its reason in a few words beside the board.
async function drawLatest(fetching, render, click) {
  const seq = ++requestSeq;
  try {
    const data = await fetching();
    if (seq !== requestSeq) return true;
    showMessage("");
    showRefusal("");
    render(data);
    return true;
  } catch (error) {
    if (seq !== requestSeq) return true;
    if (click && error.refusal && error.step === state.moves.length) {
      showMessage("");
      showRefusal(error.refusal);
    } else {
      showRefusal("");
      showMessage(error.message);
    }
    return false;
  }
}

async function loadWithOffset(params) {
  const [data, games] = await Promise.all([
    getJson("/api/position", params),
    getJson("/api/games", { ...params, offset: state.offset }),
  ]);
  data.games = games;
  return data;
}

// Applies a change to the position and draws it; a change the server refuses (an
// illegal move: the message says why) is dropped, and the URL is left as it was.
// Any change but the arrows' own forgets the steps the left arrow took back; ``click``
// says the change is a click on the board (see loadPosition).
async function change(update, keepRedo, click) {
  const before = {
    moves: state.moves.slice(), size: state.size, filters: state.filters, offset: state.offset,
    order: state.order, pattern: state.pattern,
    patternSymmetry: state.patternSymmetry, toMove: state.toMove, maxMove: state.maxMove,
    sequence: state.sequence,
  };
  update();
  state.offset = 0;
  if (await load(click)) {
    if (!keepRedo) redo = [];
    pushUrl(false);
    return true;
  }
  Object.assign(state, before);
  return false;
}

// The games of the search shown (the position's or the pattern's), ``limit`` from the
// ``offset``-th.
async function fetchGames(offset, limit) {
  if (state.pattern !== null) {
    return patternResults(await getJson("/api/pattern", patternParams(offset, limit))).games;
  }
  return getJson("/api/games", { ...positionParams(), offset, limit });
}

async function pageGames(delta) {
  if (!results) return;
  const offset = Math.max(0, state.offset + delta);
  try {
    const games = await fetchGames(offset, results.games.limit);
    state.offset = offset;
    pushUrl(false);
    renderGames(games);
  } catch (error) {
    showMessage(error.message);
  }
}

// -- the pattern search --------------------------------------------------------------------------
// The Pattern mode: a rectangular region drawn on the board (dragged across, or two corners
// clicked) holds the pattern; a click on one of its points goes through empty, black,
// white and anything (* ), a Shift-click through all of . X O * x o; the board's other
// points are outside it (-).  The server searches it (/api/pattern, gohash.pattern); the
// page draws the answer in the same panel as a position's, and a continuation played
// (its row, its letter on the board, its key) puts its stone into the pattern, or goes
// after the sequence (the moves searched after the pattern, numbered on the board) when
// there is one.  Undo takes back the pattern's or the sequence's last change.

const PATTERN_CHARS = "XO.*xo-";
let dragFrom = null; // the point a drag across the board started on
let dragged = false; // the last press was a drag: the click that may follow is not a click
let patternUndo = []; // the patterns (and sequences) before each change, for Undo

// The pattern of the URL's compact form (at the top of this file); a form that does not
// read has an ``error`` the page shows.
function readPattern(text) {
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

function patternText(pattern) {
  const { top, left, rows } = pattern;
  if (!rows.length) return "";
  return LETTERS[left] + LETTERS[top] + LETTERS[left + rows[0].length - 1] +
    LETTERS[top + rows.length - 1] + ":" + rows.join("/");
}

// The character of the point row, col (counted from the top-left) of the pattern.
function patternAt(pattern, row, col) {
  const r = row - pattern.top;
  const c = col - pattern.left;
  if (r < 0 || r >= pattern.rows.length || c < 0 || c >= pattern.rows[r].length) return "-";
  return pattern.rows[r][c];
}

// The full board diagram of docs/patterns.md, as /api/pattern takes it.
function patternDiagram(pattern, size) {
  const lines = [];
  for (let r = 0; r < size; r++) {
    let line = "";
    for (let c = 0; c < size; c++) line += patternAt(pattern, r, c);
    lines.push(line);
  }
  return lines.join("\n");
}

// The rectangle between two corners, holding what the position shown holds there (so a
// shape played on the board becomes a pattern), or empty points.
function regionFrom(a, b) {
  const cols = [a[0], b[0]].map((ch) => LETTERS.indexOf(ch));
  const rows = [a[1], b[1]].map((ch) => LETTERS.indexOf(ch));
  const [left, right, top, bottom] = [Math.min(...cols), Math.max(...cols), Math.min(...rows),
    Math.max(...rows)];
  const stones = shown && Number(shown.size) === Number(state.size) ? shown.stones : null;
  const lines = [];
  for (let r = top; r <= bottom; r++) {
    let line = "";
    for (let c = left; c <= right; c++) line += stones ? stones[r][c] : ".";
    lines.push(line);
  }
  return { top, left, rows: lines };
}

function patternParams(offset, limit) {
  const size = Number(state.size);
  const params = { diagram: patternDiagram(state.pattern, size), offset, limit };
  for (const [name, value] of Object.entries(state.filters)) {
    if (name !== "symmetry" && name !== "turn") params[name] = value;  // the position's own
  }
  if (state.patternSymmetry !== "full") params.symmetry = state.patternSymmetry;
  if (state.toMove) params.to_move = state.toMove;
  if (state.maxMove) params.max_move = state.maxMove;
  if (state.sequence) params.sequence = state.sequence;
  return params;
}

// A pattern's answer in the form of a position's, for the panel they share: the share of a
// continuation is of the pattern's hits.
function patternResults(data) {
  return {
    size: data.size,
    continuations: {
      moves: data.continuations.map((c) => ({
        ...c, share: data.total ? c.count / data.total : 0,
      })),
    },
    games: { matches: data.matches, total: data.total, offset: data.offset, limit: data.limit },
    pattern: data,
  };
}

// A sequence as the page keeps it: one space between words, in capitals (GTP reads
// either case).
function tidySequence(text) {
  return text.trim().replace(/\s+/g, " ").toUpperCase();
}

// The moves of a sequence ("B C3 W D4": GTP points) as [colour, SGF letters] pairs; a
// pair that does not read (the server says why) is left out.
function sequenceMoves(sequence, size) {
  const words = sequence.split(" ");
  const moves = [];
  for (let i = 0; i + 1 < words.length; i += 2) {
    const colour = words[i].toLowerCase();
    const col = GTP.indexOf(words[i + 1][0].toUpperCase());
    const row = Number(words[i + 1].slice(1));
    if ((colour === "b" || colour === "w") && col >= 0 && col < size &&
        Number.isInteger(row) && row >= 1 && row <= size) {
      moves.push([colour, LETTERS[col] + LETTERS[size - row]]);
    }
  }
  return moves;
}

// The pattern's stones and wildcards, and the sequence's stones numbered in their order
// (a later move on a point shows over an earlier one; captures are not played out).
function drawPattern() {
  const size = Number(state.size);
  const pattern = state.pattern;
  const grid = [];
  const wild = new Map();
  for (let r = 0; r < size; r++) {
    const row = [];
    for (let c = 0; c < size; c++) {
      const ch = patternAt(pattern, r, c);
      row.push(ch === "X" || ch === "O" ? ch : ".");
      if ("*xo".includes(ch)) wild.set(LETTERS[c] + LETTERS[r], ch);
    }
    grid.push(row);
  }
  const number = new Map();
  sequenceMoves(state.sequence, size).forEach(([colour, point], i) => {
    grid[LETTERS.indexOf(point[1])][LETTERS.indexOf(point[0])] = colour === "b" ? "X" : "O";
    wild.delete(point);
    number.set(point, i + 1);
  });
  const rows = grid.map((row) => row.join(""));
  const drawn = pattern.rows.length > 0;
  const region = drawn ? {
    top: pattern.top, left: pattern.left, height: pattern.rows.length,
    width: pattern.rows[0].length,
  } : null;
  const board = $("board");
  drawBoard(board, size, rows, {
    marks: drawn && results ? continuationMarks(results) : new Map(), region, wild, number,
    corner: selecting, onPoint: onPatternPoint,
  });
  board.classList.toggle("selecting", !drawn);
  board.dataset.pattern = patternText(pattern);
  let status;
  if (!drawn) {
    status = selecting
      ? `Corner ${gtp(selecting, size)}: click the opposite corner of the region.`
      : "Drag across the board, or click two opposite corners, to draw the pattern's region.";
  } else {
    const corners = [LETTERS[region.left] + LETTERS[region.top + region.height - 1],
      LETTERS[region.left + region.width - 1] + LETTERS[region.top]];
    status = `Region ${corners.map((p) => gtp(p, size)).join("\u2013")} ` +
      `(${region.width}\u00d7${region.height}): click a point for empty, black, white or ` +
      "any (*); Shift-click also for x (black or empty) and o (white or empty); a " +
      (state.sequence ? "letter plays its continuation after the sequence."
        : "letter puts its continuation's stone there.");
  }
  $("status").textContent = status;
}

function renderPattern(data) {
  results = data ? patternResults(data) : null;
  drawPattern();
  $("results").hidden = !data;
  $("undo").disabled = patternUndo.length === 0;
  showFilters();
  showPatternOptions();
  $("size").value = String(state.size);
  if (data) {
    renderContinuations(results);
    const tenuki = data.tenuki ? `, ${fmt(data.tenuki)} after a tenuki` : "";
    $("summary").textContent = data.total
      ? `${fmt(data.total)} hits in ${fmt(data.games)} games${tenuki}; ${fmt(data.ended)} ` +
        `with no next move in the region (${data.placements} placements, ` +
        `${fmt(data.candidates)} of ${fmt(data.searched)} games replayed)`
      : `No hit in ${fmt(data.searched)} games.`;
    renderGames(results.games);
  }
  const text = patternText(state.pattern);
  $("continuations").dataset.pattern = text;
  document.dispatchEvent(new CustomEvent("gohash:pattern", { detail: text }));
}

// Asks for the pattern of ``state`` (as loadPosition does for a position).
async function loadPattern() {
  ++requestSeq;  // an answer on its way is no longer wanted
  const pattern = state.pattern;
  const size = Number(state.size);
  if (pattern.error) {
    showMessage(pattern.error);
    return false;
  }
  if (pattern.rows.length && (pattern.top + pattern.rows.length > size ||
      pattern.left + pattern.rows[0].length > size)) {
    showMessage(`the pattern's region does not fit on a ${size}\u00d7${size} board`);
    return false;
  }
  if (!pattern.rows.length) {
    renderPattern(null);
    return true;
  }
  return drawLatest(() => getJson("/api/pattern", patternParams(state.offset, 20)),
    renderPattern);
}

// The search the state asks for: a pattern's or a position's.
function load(click) {
  return state.pattern !== null ? loadPattern() : loadPosition(click);
}

function onPatternPoint(point, stone, event) {
  if (dragged) {
    dragged = false;
    return;
  }
  const pattern = state.pattern;
  if (!pattern.rows.length) {
    if (selecting === null) {
      selecting = point;
      drawPattern();
    } else {
      setPattern(regionFrom(selecting, point));
    }
    return;
  }
  const [col, row] = [LETTERS.indexOf(point[0]), LETTERS.indexOf(point[1])];
  const now = patternAt(pattern, row, col);
  // Outside the region; or a numbered stone of the sequence, which is edited in its field.
  if (now === "-" || sequenceMoves(state.sequence, Number(state.size)).some(
    ([, p]) => p === point)) return;
  // The continuation lettered there, else the one it is ringed for.
  const moves = results && !event.shiftKey ? continuationRows(results) : [];
  const played = moves.find((c) => c.point === point) ||
    moves.find((c) => c.equivalent.includes(point));
  if (played) {
    addToPattern(played.colour, point);
    return;
  }
  const cycle = event.shiftKey ? ".XO*xo" : ".XO*";
  editPattern(point, cycle[(cycle.indexOf(now) + 1) % cycle.length]);
}

// A continuation played (b or w, its point as SGF letters): after the sequence, when there
// is one (its continuations come after it); else its stone goes into the pattern.
function addToPattern(colour, point) {
  if (state.sequence) {
    const move = `${colour.toUpperCase()} ${gtp(point, Number(state.size))}`;
    undoable(() => { state.sequence += ` ${move}`; });
  } else {
    editPattern(point, colour === "b" ? "X" : "O");
  }
}

// Sets the character of a point of the pattern's region and searches again.
async function editPattern(point, ch) {
  const pattern = state.pattern;
  const [r, c] = [LETTERS.indexOf(point[1]) - pattern.top, LETTERS.indexOf(point[0]) - pattern.left];
  const rows = pattern.rows.slice();
  rows[r] = rows[r].slice(0, c) + ch + rows[r].slice(c + 1);
  return setPattern({ ...pattern, rows });
}

// Shows another pattern (Undo goes back to this one) and searches it.
function setPattern(next) {
  const region = (p) => [p.top, p.left, p.rows.length, p.rows.length && p.rows[0].length].join();
  return undoable(() => {
    if (region(next) === region(state.pattern)) state.pattern = next;
    else newRegion(next);
  });
}

// Changes the pattern or its sequence as ``update`` says, and searches; Undo takes it back.
async function undoable(update) {
  patternUndo.push({ pattern: state.pattern, sequence: state.sequence });
  selecting = null;
  if (!await change(update)) patternUndo.pop();
}

// A pattern of another region: the sequence names points of the old one, so it goes.
function newRegion(pattern) {
  state.pattern = pattern;
  state.sequence = "";
}

function undoPattern() {
  if (patternUndo.length) change(() => Object.assign(state, patternUndo.pop()));
}

// A drag across the board draws the region (a touch keeps its pointer: the point under
// it is looked up).
function pointUnder(event) {
  const target = document.elementFromPoint(event.clientX, event.clientY);
  return target && target.dataset ? target.dataset.p || null : null;
}

function drawingRegion() {
  return state.pattern !== null && !state.pattern.rows.length;
}

function onBoardDown(event) {
  dragged = false;
  dragFrom = drawingRegion() ? pointUnder(event) : null;
}

function onBoardUp(event) {
  const from = dragFrom;
  dragFrom = null;
  const to = pointUnder(event);
  if (!from || !to || from === to || !drawingRegion()) return;
  dragged = true;
  setPattern(regionFrom(from, to));
}

function showPatternOptions() {
  $("pattern-symmetry").value = state.patternSymmetry;
  $("pattern-to-move").value = state.toMove;
  showTyped($("pattern-max-move"), state.maxMove);
  showTyped($("pattern-sequence"), state.sequence);
}

// A typed option's field shows the state's value, unless the field is being typed in and
// not yet searched (an answer to another change arriving meanwhile leaves it alone).
function showTyped(input, value) {
  if (input === document.activeElement && input.value !== input.dataset.searched) return;
  input.value = value;
  input.dataset.searched = value;
}

// Play and Edit search the position; Pattern draws a pattern (from the position shown).
function chooseMode(next) {
  selecting = null;
  if (next === "pattern" && state.pattern === null) {
    patternUndo = [];
    change(() => newRegion(readPattern("")));
  } else if (next !== "pattern" && state.pattern !== null) {
    change(() => { state.pattern = null; });
  }
  setMode(next);
}

// -- the game viewer -------------------------------------------------------------------------------
// A game comes in pages of GAME_PAGE positions, fetched as the viewer reaches them; the
// last GAME_PAGES_KEPT pages are kept.

const GAME_PAGE = 200;
const GAME_PAGES_KEPT = 20;
let viewerSeq = 0;
let hitMatch = null; // the match whose game was opened last

// The pattern's region on the viewer's board, when the game was opened at a pattern's
// hit: where the view shows the pattern (its match's view_offset), or null.
function viewerRegion() {
  const pattern = state.pattern;
  if (!pattern || !pattern.rows.length || state.hit === null) return null;
  const listed = results && results.games.matches[state.hit - results.games.offset];
  const match = hitMatch && String(hitMatch.game_id) === state.game ? hitMatch : listed;
  if (!match || String(match.game_id) !== state.game || !match.view_offset) return null;
  const [rows, cols] = match.view_offset;  // rows count up the board; pattern.top down
  return {
    top: pattern.top - rows, left: pattern.left + cols, height: pattern.rows.length,
    width: pattern.rows[0].length,
  };
}

// Opens a game of the games list (the ``hit``-th, from 0) at the position that matched.
function openGame(match, hit) {
  hitMatch = match;
  state.game = String(match.game_id);
  state.at = match.seq;
  state.view = match.view;
  state.hit = hit === undefined ? null : hit;
  state.hitAt = hit === undefined ? null : match.seq;
  pushUrl(false);
  loadGame();
}

function fetchGamePage(id, view, start) {
  return getJson(`/api/game/${encodeURIComponent(id)}`, { view, start, count: GAME_PAGE });
}

function keepPage(game, page) {
  game.pages.set(page.start, page);
  while (game.pages.size > GAME_PAGES_KEPT) game.pages.delete(game.pages.keys().next().value);
}

// The page holding position i of the game, fetched if it is not kept.
async function gamePage(game, i) {
  const start = i - (i % GAME_PAGE);
  let page = game.pages.get(start);
  if (!page) {
    page = await fetchGamePage(game.id, game.view, start);
    keepPage(game, page);
  }
  return page;
}

function infoItem(label, value) {
  const item = document.createElement("span");
  item.className = "item";
  const name = document.createElement("span");
  name.className = "label";
  name.textContent = `${label} `;
  item.append(name, value instanceof Node ? value : String(value));
  return item;
}

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
  if (first.date || first.iso_date) items.push(infoItem("Date", first.date || first.iso_date));
  if (first.komi !== null && first.komi !== undefined) items.push(infoItem("Komi", first.komi));
  items.push(infoItem("Handicap", first.handicap >= 2 ? first.handicap : "none"));
  if (first.event) items.push(infoItem("Event", first.event));
  items.push(infoItem("Record", first.game ? `${first.source}, game ${first.game + 1}`
    : first.source));
  if (first.colours_exchanged) items.push(infoItem("Shown", "with colours exchanged"));
  $("viewer-info").replaceChildren(...items);
  $("viewer-sgf").href = `/api/game/${encodeURIComponent(first.game_id)}/sgf`;
}

function renderHits() {
  const hits = state.hit !== null && results !== null;
  $("viewer-hits").hidden = !hits;
  if (!hits) return;
  const total = results.games.total;
  $("hit-where").textContent = `hit ${fmt(state.hit + 1)} of ${fmt(total)}`;
  $("hit-prev").disabled = state.hit <= 0;
  $("hit-next").disabled = state.hit + 1 >= total;
}

// Opens the previous (-1) or next (+1) game of the games list at its hit.
async function stepHit(delta) {
  if (state.hit === null) return;
  const hit = state.hit + delta;
  if (hit < 0 || (results && hit >= results.games.total)) return;
  try {
    const games = await fetchGames(hit, 1);
    if (games.matches.length) openGame(games.matches[0], hit);
  } catch (error) {
    showMessage(error.message);
  }
}

async function loadGame() {
  const seq = ++viewerSeq;
  if (state.game === null) {
    $("viewer").hidden = true;
    viewerGame = null;
    return;
  }
  try {
    const at = Math.max(0, state.at);
    const first = await fetchGamePage(state.game, state.view, at - (at % GAME_PAGE));
    if (seq !== viewerSeq) return;
    const game = { id: state.game, view: state.view, info: first, pages: new Map() };
    keepPage(game, first);
    viewerGame = game;
    $("viewer").hidden = false;
    renderViewerInfo(first);
    renderHits();
    $("viewer-slider").max = first.positions_total - 1;
    await showGameAt(state.at);
  } catch (error) {
    if (seq !== viewerSeq) return;
    showMessage(error.message);
    $("viewer").hidden = true;
  }
}

// The move number of each stone on the board at position ``index``: the last move played
// on its point (the pages before are fetched, only when numbers are asked for).
async function moveNumbers(game, index, rows) {
  const numbers = new Map();
  for (let start = 0; start <= index; start += GAME_PAGE) {
    const page = await gamePage(game, start);
    const end = Math.min(index - start, page.positions.length - 1);
    for (let k = 0; k <= end; k++) {
      if (page.last[k]) numbers.set(page.last[k], page.move_numbers[k]);
    }
  }
  for (const point of [...numbers.keys()]) {
    const row = rows[LETTERS.indexOf(point[1])];
    if (row[LETTERS.indexOf(point[0])] === ".") numbers.delete(point);
  }
  return numbers;
}

// Shows position i of the game, fetching its page first if it is not kept; a position
// asked for while another is fetched replaces it.
async function showGameAt(i) {
  const game = viewerGame;
  if (!game) return;
  const seq = ++viewerSeq;
  const index = Math.min(Math.max(i, 0), game.info.positions_total - 1);
  let page;
  let number = new Map();
  try {
    page = await gamePage(game, index);
    const k = index - page.start;
    if (showNumbers) number = await moveNumbers(game, index, page.positions[k]);
  } catch (error) {
    showMessage(error.message);
    return;
  }
  if (seq !== viewerSeq || game !== viewerGame) return;
  const k = index - page.start;
  const hit = state.hitAt !== null && state.hitAt === index;
  drawBoard($("viewer-board"), game.info.size, page.positions[k],
    { last: page.last[k], number, hit, region: viewerRegion() });
  $("viewer-slider").value = index;
  $("viewer-board").dataset.index = index;
  $("viewer-move").textContent = `move ${page.move_numbers[k]} of ${game.info.final_move_number}`;
  $("viewer-at-hit").hidden = !hit;
  $("viewer-hit").disabled = state.hitAt === null || hit;
  const comment = page.comments ? page.comments[k] : null;
  $("viewer-comment").textContent = comment || "";
  $("viewer-comment").hidden = !comment;
  state.at = index;
  pushUrl(true);
}

function viewerIndex() {
  return Number($("viewer-slider").value);
}

function closeGame() {
  state.game = null;
  state.hit = null;
  state.hitAt = null;
  pushUrl(false);
  loadGame();
}

async function exploreFromViewer() {
  const game = viewerGame;
  if (!game) return;
  let answer;
  try {
    answer = await getJson(`/api/game/${encodeURIComponent(game.id)}/steps`,
      { view: game.view, at: viewerIndex() });
  } catch (error) {
    showMessage(error.message);
    return;
  }
  Object.assign(state, { game: null, hit: null, hitAt: null, who: null });
  $("viewer").hidden = true;
  $("player-page").hidden = true;
  viewerGame = null;
  change(() => {
    leavePattern();
    state.size = answer.size;
    state.moves = answer.steps;
  });
}

// -- a player's page ----------------------------------------------------------------------------
// What the server counts (gohash.index.players): games, results by colour and year, and
// the most played openings up to symmetry and corner patterns; the page only draws them.

let playerSeq = 0;

// Opens a player's page; from the viewer, in its place (the back button returns to it).
function openPlayer(name) {
  state.who = name;
  state.whoOrder = "";
  state.whoOffset = 0;
  const fromViewer = state.game !== null;
  Object.assign(state, { game: null, hit: null, hitAt: null });
  pushUrl(false);
  if (fromViewer) loadGame();
  loadPlayer();
}

function closePlayer() {
  state.who = null;
  pushUrl(false);
  loadPlayer();
}

// The heads of the tables of results (class "results"; data-first names the first column).
function resultsHeads() {
  for (const table of document.querySelectorAll("table.results")) {
    const tr = document.createElement("tr");
    for (const [text, cls] of [[table.dataset.first, ""], ["Games", "num"], ["Won", "num"],
      ["Lost", "num"], ["Other", "num"], ["Won %", "num"]]) {
      const th = document.createElement("th");
      th.textContent = text;
      th.className = cls;
      tr.append(th);
    }
    table.tHead.replaceChildren(tr);
  }
}

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

// A small board of the moves of an opening (``region`` null: the whole board) or of a
// corner pattern (``region``: {top, left, side}, rows counted from the top), each stone
// numbered in the order played, and the moves written under it.
function openingFigure(opening, region) {
  const size = opening.size;
  const { top, left, side } = region || { top: 0, left: 0, side: size };
  const unit = 10;
  const margin = 7;
  const extent = 2 * margin + (side - 1) * unit;
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

// An opening's or corner pattern's row: its moves, how often, (for a corner pattern, how
// often the player was Black / White,) how it went for the player, and by year.
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

// The pattern of a corner pattern's shape: the top right corner region
// (gohash.index.players.corner_side) holding the stones of its moves, the rest empty.
function cornerPattern(p) {
  const side = Math.min(9, Math.ceil(p.size / 2));
  const left = p.size - side;
  const rows = Array.from({ length: side }, () => Array(side).fill("."));
  for (const step of p.moves.split(",")) {
    rows[LETTERS.indexOf(step[2])][LETTERS.indexOf(step[1]) - left] = step[0] === "b" ? "X" : "O";
  }
  return { top: 0, left, rows: rows.map((row) => row.join("")) };
}

function renderPlayer(data) {
  $("player-name").textContent = data.name;
  const all = ["games", "wins", "losses", "other"].reduce((sum, key) => {
    sum[key] = data.colours.b[key] + data.colours.w[key];
    return sum;
  }, {});
  $("player-colours").tBodies[0].replaceChildren(resultsRow("as Black", data.colours.b),
    resultsRow("as White", data.colours.w), resultsRow("all", all));
  $("player-years").tBodies[0].replaceChildren(
    ...Object.entries(data.years).reverse().map(([year, r]) => resultsRow(year, r)));
  $("player-opening-length").textContent = data.opening_length;
  $("player-openings").tBodies[0].replaceChildren(...data.openings.map((o) => {
    const tr = document.createElement("tr");
    tr.dataset.moves = o.moves;
    openingCells(tr, o);
    tr.title = "Explore this opening";
    tr.addEventListener("click", () => {
      state.who = null;
      $("player-page").hidden = true;
      change(() => {
        leavePattern();
        state.size = o.size;
        state.moves = o.moves.split(",");
      });
    });
    return tr;
  }));
  $("no-openings").hidden = data.openings.length > 0;
  $("player-corner-length").textContent = data.corner_length;
  $("player-corners").tBodies[0].replaceChildren(...data.corners.map((p) => {
    const tr = document.createElement("tr");
    tr.dataset.moves = p.moves;
    openingCells(tr, p, `${fmt(p.player.b || 0)}\u00a0/\u00a0${fmt(p.player.w || 0)}`);
    tr.title = "Search this shape (a pattern search of the corner)";
    tr.addEventListener("click", () => {
      state.who = null;
      $("player-page").hidden = true;
      patternUndo = [];
      change(() => {
        state.size = p.size;
        state.moves = [];
        newRegion(cornerPattern(p));
      });
      setMode("pattern");
    });
    return tr;
  }));
  $("no-corners").hidden = data.corners.length > 0;
  const games = data.games;
  $("player-games").tBodies[0].replaceChildren(...games.records.map((g) => {
    const tr = document.createElement("tr");
    tr.dataset.game = g.game_id;
    cell(tr, g.iso_date);
    cell(tr, playerLink(g.black, g.black_rank));
    cell(tr, playerLink(g.white, g.white_rank));
    resultCell(tr, g);
    tr.addEventListener("click", () => {
      openGame({ game_id: g.game_id, seq: 0, view: "identity" });
    });
    return tr;
  }));
  markOrder($("player-games"), state.whoOrder || "-date");
  const end = games.offset + games.records.length;
  $("player-range").textContent = games.total
    ? `${fmt(games.offset + 1)}\u2013${fmt(end)} of ${fmt(games.total)}` : "none";
  $("player-prev").disabled = games.offset <= 0;
  $("player-next").disabled = end >= games.total;
  document.dispatchEvent(new CustomEvent("gohash:player", { detail: data.name }));
}

async function loadPlayer() {
  const seq = ++playerSeq;
  if (state.who === null) {
    $("player-page").hidden = true;
    return;
  }
  const params = { name: state.who, offset: state.whoOffset, limit: 20 };
  if (state.whoOrder) params.order = state.whoOrder;
  try {
    const data = await getJson("/api/player", params);
    if (seq !== playerSeq) return;
    renderPlayer(data);
    $("player-page").hidden = false;
  } catch (error) {
    if (seq !== playerSeq) return;
    showMessage(error.message);
    $("player-page").hidden = true;
  }
}

// The player search: the names holding what is typed (/api/players), listed under the
// field; a click on one opens their page, and Enter opens the name typed exactly (any
// case) or the only one found.

const PLAYER_MATCHES = 12;
let playerSearchSeq = 0;
let playerSearchTimer = null;

async function searchPlayers() {
  clearTimeout(playerSearchTimer);
  const seq = ++playerSearchSeq;
  const list = $("player-matches");
  const text = $("player-q").value.trim();
  if (!text) {
    list.hidden = true;
    list.replaceChildren();
    return null;
  }
  let data;
  try {
    data = await getJson("/api/players", { q: text, limit: PLAYER_MATCHES });
  } catch (error) {
    if (seq === playerSearchSeq) showMessage(error.message);
    return null;
  }
  if (seq !== playerSearchSeq) return null;
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

function choosePlayer(name) {
  $("player-matches").hidden = true;
  $("player-q").value = "";
  $("player-q").blur();  // the page's keys (Escape closes it) are the page's again
  openPlayer(name);
}

async function submitPlayerSearch(event) {
  event.preventDefault();
  const text = $("player-q").value.trim();
  const players = await searchPlayers();
  if (!players || !players.length) return;
  const same = players.filter((p) => p.name.toLowerCase() === text.toLowerCase());
  if (same.length === 1) choosePlayer(same[0].name);
  else if (players.length === 1) choosePlayer(players[0].name);
}

function pagePlayer(delta) {
  state.whoOffset = Math.max(0, state.whoOffset + delta);
  pushUrl(false);
  loadPlayer();
}

// -- the keyboard ---------------------------------------------------------------------------------
// Explorer: a letter plays the continuation it labels; the left arrow (or Backspace) takes
// back a step, the right arrow plays it again.  Viewer: the arrows step, Home and End go to
// the ends, N shows move numbers, H goes to the hit, Escape closes.

function typing(target) {
  return target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement ||
    (target instanceof HTMLInputElement && !["range", "checkbox"].includes(target.type));
}

function onKey(event) {
  if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
  if (viewerGame && !$("viewer").hidden) {
    const at = viewerIndex();
    const keys = {
      ArrowLeft: () => showGameAt(at - 1), ArrowRight: () => showGameAt(at + 1),
      Home: () => showGameAt(0), End: () => showGameAt(Infinity), Escape: closeGame,
      n: toggleNumbers, N: toggleNumbers,
      h: () => state.hitAt !== null && showGameAt(state.hitAt),
    };
    if (!(event.key in keys)) return;
    event.preventDefault();
    keys[event.key]();
    return;
  }
  if (!$("player-page").hidden) {
    if (event.key === "Escape") {
      event.preventDefault();
      closePlayer();
    }
    return;
  }
  if (state.pattern !== null) {
    if (event.key === "Escape" && selecting !== null) {
      // The first corner of a region was a slip.
      selecting = null;
      drawPattern();
    } else if ((event.key === "Backspace" || event.key === "ArrowLeft") && patternUndo.length) {
      event.preventDefault();
      undoPattern();
    } else {
      playLetter(event);
    }
    return;
  }
  if ((event.key === "Backspace" || event.key === "ArrowLeft") && state.moves.length) {
    event.preventDefault();
    const step = state.moves[state.moves.length - 1];
    change(() => state.moves.pop(), true).then((done) => { if (done) redo.push(step); });
  } else if (event.key === "ArrowRight" && redo.length) {
    event.preventDefault();
    const step = redo[redo.length - 1];
    change(() => state.moves.push(step), true).then((done) => { if (done) redo.pop(); });
  } else {
    playLetter(event);
  }
}

// A continuation's letter typed plays it.
function playLetter(event) {
  if (event.key.length !== 1 || !results) return;
  const index = CONTINUATION_LABELS.indexOf(event.key);
  const rows = continuationRows(results);
  if (index >= 0 && index < rows.length) {
    event.preventDefault();
    playContinuation(rows[index]);
  }
}

function toggleNumbers() {
  showNumbers = !showNumbers;
  $("viewer-numbers").checked = showNumbers;
  showGameAt(viewerIndex());
}

// -- start ---------------------------------------------------------------------------------------

function readFilters() {
  const form = $("filters");
  const filters = {};
  for (const name of FILTERS) {
    const input = form.elements[name];
    // The checkbox "turn" is on by default, as on the server: only "off" is written.
    const value = input.type === "checkbox" ? (input.checked ? "" : "0") : input.value.trim();
    if (value && !(name === "symmetry" && value === "full")) filters[name] = value;
  }
  return filters;
}

function showFilters() {
  const form = $("filters");
  for (const name of FILTERS) {
    const input = form.elements[name];
    const value = state.filters[name] || "";
    if (input.type === "checkbox") input.checked = value !== "0";
    else input.value = value || (name === "symmetry" ? "full" : "");
  }
}

// Builds the filters' fields of the form from /api/info's list (gohash.index.queries.FILTERS):
// the page has no list of its own.
function addFilters(filters) {
  const options = $("filters").elements.symmetry.closest("label");
  for (const filter of filters) {
    const label = document.createElement("label");
    label.title = filter.help;
    let input;
    if (filter.choices.length) {
      input = document.createElement("select");
      for (const choice of [{ value: "", label: "any" }, ...filter.choices]) {
        const option = document.createElement("option");
        option.value = choice.value;
        option.textContent = choice.label;
        input.append(option);
      }
    } else {
      input = document.createElement("input");
      input.size = filter.kind === "rank" ? 4 : 10;
      input.maxLength = 200;
      input.placeholder = filter.placeholder;
    }
    input.name = filter.name;
    label.append(`${filter.label} `, input);
    options.before(label);
    FILTERS.push(filter.name);
  }
  FILTERS.push("symmetry", "turn");
}

function setMode(next) {
  mode = next;
  for (const button of document.querySelectorAll("button.mode")) {
    button.setAttribute("aria-pressed", String(button.dataset.mode === mode));
  }
  document.body.classList.toggle("pattern-mode", mode === "pattern");
  $("pattern-bar").hidden = mode !== "pattern";
}

// Leaves the pattern search for the position search (from the viewer, a player's page).
function leavePattern() {
  state.pattern = null;
  if (mode === "pattern") setMode("play");
}

async function start() {
  try {
    info = await getJson("/api/info");
  } catch (error) {
    showMessage(error.message);
    return;
  }
  addFilters(info.filters);
  const select = $("size");
  const sizes = Object.keys(info.sizes).length ? Object.keys(info.sizes) : [String(info.default_size)];
  select.replaceChildren(...sizes.map((s) => {
    const option = document.createElement("option");
    option.value = s;
    option.textContent = `${s}\u00d7${s}` + (info.sizes[s] ? ` (${fmt(info.sizes[s])} games)` : "");
    return option;
  }));
  $("index-info").textContent =
    `${fmt(info.games)} games, ${fmt(info.distinct)} distinct positions`;
  select.addEventListener("change", () => change(() => {
    state.size = select.value;
    state.moves = [];
    if (state.pattern !== null) newRegion(readPattern(""));
  }));
  for (const button of document.querySelectorAll("button.mode")) {
    button.addEventListener("click", () => chooseMode(button.dataset.mode));
  }
  $("undo").addEventListener("click", () => {
    if (state.pattern !== null) {
      undoPattern();
    } else if (state.moves.length) {
      change(() => state.moves.pop());
    }
  });
  $("pass").addEventListener("click", () => {
    if (shown && state.pattern === null) {
      change(() => state.moves.push(moveToken(shown.to_move, null)));
    }
  });
  $("clear").addEventListener("click", () => {
    if (state.pattern !== null) setPattern(readPattern(""));
    else change(() => { state.moves = []; });
  });
  $("pattern-symmetry").addEventListener("change", () => change(() => {
    state.patternSymmetry = $("pattern-symmetry").value;
  }));
  $("pattern-to-move").addEventListener("change", () => change(() => {
    state.toMove = $("pattern-to-move").value;
  }));
  // The server checks both (a sequence's points in GTP, on the board and in the region),
  // and a refusal is shown with its reason.
  $("pattern-max-move").addEventListener("change", () => {
    const input = $("pattern-max-move");
    input.dataset.searched = input.value;
    // A number field's value is empty for what does not read as a number.
    if (input.validity.badInput) showMessage("max move must be a whole number (empty: any)");
    else change(() => { state.maxMove = input.value.trim(); });
  });
  $("pattern-sequence").addEventListener("change", () => {
    const input = $("pattern-sequence");
    input.dataset.searched = input.value;
    change(() => { state.sequence = tidySequence(input.value); });
  });
  $("board").addEventListener("pointerdown", onBoardDown);
  $("board").addEventListener("pointerup", onBoardUp);
  $("filters").addEventListener("submit", (event) => {
    event.preventDefault();
    change(() => { state.filters = readFilters(); });
  });
  $("games-prev").addEventListener("click", () => pageGames(-(results ? results.games.limit : 20)));
  $("games-next").addEventListener("click", () => pageGames(results ? results.games.limit : 20));
  $("viewer-close").addEventListener("click", closeGame);
  $("viewer-first").addEventListener("click", () => showGameAt(0));
  $("viewer-prev").addEventListener("click", () => showGameAt(viewerIndex() - 1));
  $("viewer-next").addEventListener("click", () => showGameAt(viewerIndex() + 1));
  $("viewer-last").addEventListener("click", () => showGameAt(Infinity));
  $("viewer-slider").addEventListener("input", () => showGameAt(viewerIndex()));
  $("viewer-explore").addEventListener("click", exploreFromViewer);
  document.addEventListener("keydown", onKey);
  $("viewer-numbers").addEventListener("change", toggleNumbers);
  $("viewer-hit").addEventListener("click", () => showGameAt(state.hitAt));
  $("hit-prev").addEventListener("click", () => stepHit(-1));
  $("hit-next").addEventListener("click", () => stepHit(1));
  for (const th of $("continuations").tHead.querySelectorAll("th[data-sort]")) {
    th.addEventListener("click", () => sortContinuations(th.dataset.sort));
  }
  for (const th of $("games").tHead.querySelectorAll("th[data-order]")) {
    // A pattern's hits come in the index's order only.
    th.addEventListener("click", () => state.pattern === null && change(() => {
      state.order = nextOrder(state.order, th.dataset.order);
    }));
  }
  for (const th of $("player-games").tHead.querySelectorAll("th[data-order]")) {
    th.addEventListener("click", () => {
      state.whoOrder = nextOrder(state.whoOrder || "-date", th.dataset.order);
      state.whoOffset = 0;
      pushUrl(false);
      loadPlayer();
    });
  }
  resultsHeads();
  $("continuations-more").addEventListener("click", () => {
    allContinuations = !allContinuations;
    if (results) renderContinuations(results);
  });
  $("player-q").addEventListener("input", () => {
    clearTimeout(playerSearchTimer);
    playerSearchTimer = setTimeout(searchPlayers, 200);
  });
  $("player-search").addEventListener("submit", submitPlayerSearch);
  $("player-q").addEventListener("keydown", (event) => {
    if (event.key === "Escape") $("player-matches").hidden = true;
  });
  document.addEventListener("click", (event) => {
    if (!$("player-search").contains(event.target)) $("player-matches").hidden = true;
  });
  $("player-close").addEventListener("click", closePlayer);
  $("player-prev").addEventListener("click", () => pagePlayer(-20));
  $("player-next").addEventListener("click", () => pagePlayer(20));
  window.addEventListener("popstate", () => {
    readUrl();
    load();
    loadGame();
    loadPlayer();
  });
  readUrl();
  if (await load()) {
    pushUrl(true);
  } else {
    // A bookmark that no longer makes sense: say why, and start from the empty board.
    const message = $("message").textContent;
    Object.assign(state, {
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
