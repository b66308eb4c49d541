// gohash explorer: the page's state lives in its URL; the server replays it.
//
// URL parameters (the same the JSON endpoints take):
//   size   board size;  moves  the move list (see gohash/movelist.py)
//   the filters (their names come from /api/info) and the search options symmetry, turn
//          (gohash/explorer/app.py)
//   offset first game shown;  game, at, view  the game viewer: a game id, a position
//   of its main line (0 the initial one), and the symmetry element that shows the
//   game in the query's orientation and colours.
// Every change pushes a new URL, so the browser's back button undoes it too.
// When the continuations and games of a position are drawn, #continuations gets
// data-moves (the position's move list) and the event "gohash:rendered" fires:
// tests and benchmarks wait for it.
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
};
let mode = "play";
let shown = null; // the last position answer drawn
let viewerGame = null; // the game in the viewer: its first page (info) and pages kept
let requestSeq = 0;
let info = null;

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
}

function positionParams() {
  return { size: String(state.size), moves: state.moves.join(","), ...state.filters };
}

function pageUrl() {
  const params = new URLSearchParams(positionParams());
  if (!state.moves.length) params.delete("moves");
  if (state.offset) params.set("offset", state.offset);
  if (state.game !== null) {
    params.set("game", state.game);
    params.set("at", state.at);
    params.set("view", state.view);
  }
  // Commas need no escape in a query: keep move lists readable in the address bar.
  return "?" + params.toString().replace(/%2C/g, ",");
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
  if (!response.ok) throw new Error(body.error || `${response.status} ${response.statusText}`);
  return body;
}

function showMessage(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
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
// a point's letters to a label drawn on it; ``onPoint`` makes every point clickable.
function drawBoard(svg, size, rows, { last = null, marks = new Map(), onPoint = null } = {}) {
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
        if (point === last) {
          parts.append(el("circle", {
            cx: x, cy: y, r: CELL / 5, fill: "none", "stroke-width": 2,
            stroke: stone === "X" ? "#f8f8f8" : "#111",
          }));
        }
      } else if (marks.has(point)) {
        parts.append(el("circle", { cx: x, cy: y, r: CELL / 2 - 3, fill: "#dcb35c" }));
        parts.append(el("text", {
          x, y: y + 6, "text-anchor": "middle", "font-size": 17, "font-weight": "bold",
          fill: "#0b3d91", class: "mark", "data-mark": point,
        }, marks.get(point)));
      }
      if (onPoint) {
        const hit = el("rect", {
          x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, fill: "transparent",
          class: "hit", "data-p": point,
        });
        hit.addEventListener("click", () => onPoint(point, stone));
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
    change(() => state.moves.push(moveToken(next ? next.colour : shown.to_move, point)));
  } else {
    const mine = mode === "B" ? "X" : "O";
    change(() => state.moves.push((stone === mine ? "E" : mode) + point));
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

function renderContinuations(data) {
  const body = $("continuations").tBodies[0];
  const rows = [];
  const moves = data.continuations.moves;
  moves.forEach((c, i) => {
    const point = pointLetters(c.point, data.size);
    const tr = document.createElement("tr");
    tr.dataset.p = point || "pass";
    tr.dataset.colour = c.colour;
    tr.dataset.equivalent = equivalentLetters(c, data.size).join(",");
    cell(tr, continuationLabel(i), "letter");
    const move = document.createElement("span");
    move.append(colourDot(c.colour), c.gtp);
    cell(tr, move);
    cell(tr, c.count, "num");
    cell(tr, winBar(c));
    cell(tr, dates(c.first_date, c.last_date));
    tr.addEventListener("click", () => change(() => state.moves.push(moveToken(c.colour, point))));
    rows.push(tr);
  });
  body.replaceChildren(...rows);
  $("no-continuations").hidden = moves.length > 0;
}

function renderSummary(summary) {
  const parts = [];
  if (summary.total) {
    parts.push(`${summary.total} occurrences: Black won ${summary.black_wins}, ` +
      `White won ${summary.white_wins}, ${summary.other} other`);
    if (summary.exchanged_colours) {
      parts.push(`${summary.exchanged_colours} with colours exchanged`);
    }
    if (summary.ended) parts.push(`${summary.ended} with no next move`);
  }
  $("summary").textContent = parts.join("; ");
}

function renderGames(games) {
  const body = $("games").tBodies[0];
  body.replaceChildren(...games.matches.map((m) => {
    const tr = document.createElement("tr");
    tr.dataset.game = m.game_id;
    tr.title = `${m.file}, game ${m.game}`;
    cell(tr, player(m.black, m.black_rank));
    cell(tr, player(m.white, m.white_rank));
    cell(tr, m.iso_date);
    cell(tr, m.result);
    cell(tr, m.move_number, "num");
    cell(tr, m.colours_exchanged ? "exchanged" : "same");
    tr.addEventListener("click", () => openGame(m));
    return tr;
  }));
  $("games-count").textContent = `(${games.total})`;
  const end = games.offset + games.matches.length;
  $("games-range").textContent = games.total
    ? `${games.offset + 1}\u2013${end} of ${games.total}` : "none";
  $("games-prev").disabled = games.offset <= 0;
  $("games-next").disabled = end >= games.total;
}

function renderPosition(data) {
  shown = data;
  state.moves = data.moves ? data.moves.split(",") : [];  // the server's short form
  const marks = new Map();
  data.continuations.moves.forEach((c, i) => {
    // A move's images under the position's own symmetries lead to the same position.
    for (const point of equivalentLetters(c, data.size)) {
      if (!marks.has(point)) marks.set(point, continuationLabel(i));
    }
  });
  drawBoard($("board"), data.size, data.stones, { last: data.last, marks, onPoint: onBoardPoint });
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
// clicks never draw a stale position over a newer one.
async function loadPosition() {
  const seq = ++requestSeq;
  const params = positionParams();
  try {
    const data = state.offset
      ? await loadWithOffset(params)
      : await getJson("/api/position", params);
    if (seq !== requestSeq) return true;
    showMessage("");
    renderPosition(data);
    return true;
  } catch (error) {
    if (seq !== requestSeq) return true;
    showMessage(error.message);
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
async function change(update) {
  const before = {
    moves: state.moves.slice(), size: state.size, filters: state.filters, offset: state.offset,
  };
  update();
  state.offset = 0;
  if (await loadPosition()) {
    pushUrl(false);
  } else {
    Object.assign(state, before);
  }
}

async function pageGames(delta) {
  if (!shown) return;
  const offset = Math.max(0, state.offset + delta);
  try {
    const games = await getJson("/api/games", { ...positionParams(), offset });
    state.offset = offset;
    pushUrl(false);
    renderGames(games);
  } catch (error) {
    showMessage(error.message);
  }
}

// -- the game viewer -------------------------------------------------------------------------------
// A game comes in pages of GAME_PAGE positions, fetched as the viewer reaches them; the
// last GAME_PAGES_KEPT pages are kept.

const GAME_PAGE = 200;
const GAME_PAGES_KEPT = 20;
let viewerSeq = 0;

function openGame(match) {
  state.game = String(match.game_id);
  state.at = match.seq;
  state.view = match.view;
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
    $("viewer-title").textContent =
      first.colours_exchanged
        ? `${player(first.black, first.black_rank)} (Black, shown as White) vs ` +
          `${player(first.white, first.white_rank)} (White, shown as Black)`
        : `${player(first.black, first.black_rank)} (B) vs ` +
          `${player(first.white, first.white_rank)} (W)`;
    $("viewer-info").textContent = [first.date, first.result, first.event, first.file]
      .filter(Boolean).join(" \u00b7 ") +
      (first.colours_exchanged ? " \u00b7 shown with colours exchanged" : "");
    $("viewer-slider").max = first.positions_total - 1;
    await showGameAt(state.at);
  } catch (error) {
    if (seq !== viewerSeq) return;
    showMessage(error.message);
    $("viewer").hidden = true;
  }
}

// Shows position i of the game, fetching its page first if it is not kept; a position
// asked for while another is fetched replaces it.
async function showGameAt(i) {
  const game = viewerGame;
  if (!game) return;
  const seq = ++viewerSeq;
  const index = Math.min(Math.max(i, 0), game.info.positions_total - 1);
  const start = index - (index % GAME_PAGE);
  let page = game.pages.get(start);
  if (!page) {
    try {
      page = await fetchGamePage(game.id, game.view, start);
    } catch (error) {
      showMessage(error.message);
      return;
    }
    keepPage(game, page);
    if (seq !== viewerSeq || game !== viewerGame) return;
  }
  const k = index - start;
  drawBoard($("viewer-board"), game.info.size, page.positions[k], { last: page.last[k] });
  $("viewer-slider").value = index;
  $("viewer-board").dataset.index = index;
  $("viewer-move").textContent = `move ${page.move_numbers[k]} of ${game.info.final_move_number}`;
  state.at = index;
  pushUrl(true);
}

function viewerIndex() {
  return Number($("viewer-slider").value);
}

function closeGame() {
  state.game = null;
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
  state.game = null;
  $("viewer").hidden = true;
  viewerGame = null;
  change(() => {
    state.size = answer.size;
    state.moves = answer.steps;
  });
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
    option.textContent = `${s}\u00d7${s}` + (info.sizes[s] ? ` (${info.sizes[s]} games)` : "");
    return option;
  }));
  $("index-info").textContent =
    `${info.games} games, ${info.distinct} distinct positions`;
  select.addEventListener("change", () => change(() => {
    state.size = select.value;
    state.moves = [];
  }));
  for (const button of document.querySelectorAll("button.mode")) {
    button.addEventListener("click", () => setMode(button.dataset.mode));
  }
  $("undo").addEventListener("click", () => {
    if (state.moves.length) change(() => state.moves.pop());
  });
  $("pass").addEventListener("click", () => {
    if (shown) change(() => state.moves.push(moveToken(shown.to_move, null)));
  });
  $("clear").addEventListener("click", () => change(() => { state.moves = []; }));
  $("filters").addEventListener("submit", (event) => {
    event.preventDefault();
    change(() => { state.filters = readFilters(); });
  });
  $("games-prev").addEventListener("click", () => pageGames(-(shown ? shown.games.limit : 20)));
  $("games-next").addEventListener("click", () => pageGames(shown ? shown.games.limit : 20));
  $("viewer-close").addEventListener("click", closeGame);
  $("viewer-first").addEventListener("click", () => showGameAt(0));
  $("viewer-prev").addEventListener("click", () => showGameAt(viewerIndex() - 1));
  $("viewer-next").addEventListener("click", () => showGameAt(viewerIndex() + 1));
  $("viewer-last").addEventListener("click", () => showGameAt(Infinity));
  $("viewer-slider").addEventListener("input", () => showGameAt(viewerIndex()));
  $("viewer-explore").addEventListener("click", exploreFromViewer);
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
    if (viewerGame) {
      if (event.key === "ArrowLeft") showGameAt(viewerIndex() - 1);
      else if (event.key === "ArrowRight") showGameAt(viewerIndex() + 1);
      else if (event.key === "Escape") closeGame();
      else return;
      event.preventDefault();
    } else if (event.key === "Backspace" && state.moves.length) {
      event.preventDefault();
      change(() => state.moves.pop());
    }
  });
  window.addEventListener("popstate", () => {
    readUrl();
    loadPosition();
    loadGame();
  });
  readUrl();
  if (await loadPosition()) {
    pushUrl(true);
  } else {
    // A bookmark that no longer makes sense: say why, and start from the empty board.
    const message = $("message").textContent;
    Object.assign(state, { size: info.default_size, moves: [], filters: {}, offset: 0 });
    await loadPosition();
    showMessage(`${message} (showing the empty board instead)`);
  }
  await loadGame();
}

start();
