// @ts-check
// The Pattern mode: a rectangular region drawn on the board (dragged across, or two corners
// clicked) holds the pattern; a click on one of its points goes through empty, black,
// white and anything (* ), a Shift-click through all of . X O * x o; the board's other
// points are outside it (-).  The server searches it (/api/pattern, gohash.pattern); the
// page draws the answer in the same panel as a position's, and a continuation played
// (its row, its letter on the board, its key) puts its stone into the pattern, or goes
// after the sequence (the moves searched after the pattern, numbered on the board) when
// there is one.  Undo takes back the pattern's or the sequence's last change.

import { getJson } from "./api.js";
import { drawBoard } from "./board.js";
import { $, buttonOf, fmt, inputOf, selectOf, showMessage, svgOf } from "./dom.js";
import { showFilters } from "./filters.js";
import { setMode } from "./modes.js";
import { GTP, LETTERS, gtp } from "./points.js";
import { continuationMarks, continuationRows, renderContinuations, renderGames }
  from "./results.js";
import { change, drawLatest, searches } from "./search.js";
import { page, patternText, readPattern, search, tidySequence } from "./state.js";

/** @typedef {import("./state.js").Pattern} Pattern */
/** @typedef {import("./state.js").Results} Results */
/** @typedef {import("./types.js").PatternAnswer} PatternAnswer */

let dragFrom = /** @type {string | null} */ (null); // the point a drag across the board started on
let dragged = false; // the last press was a drag: the click that may follow is not a click

/** The pattern searched (in the Pattern mode, there is one). @returns {Pattern} */
function pattern() {
  return /** @type {Pattern} */ (search.pattern);
}

/** The character of the point row, col (counted from the top-left) of the pattern.
 * @param {Pattern} pattern @param {number} row @param {number} col @returns {string} */
function patternAt(pattern, row, col) {
  const r = row - pattern.top;
  const c = col - pattern.left;
  if (r < 0 || r >= pattern.rows.length || c < 0 || c >= pattern.rows[r].length) return "-";
  return pattern.rows[r][c];
}

/** The full board diagram of docs/patterns.md, as /api/pattern takes it.
 * @param {Pattern} pattern @param {number} size @returns {string} */
function patternDiagram(pattern, size) {
  const lines = [];
  for (let r = 0; r < size; r++) {
    let line = "";
    for (let c = 0; c < size; c++) line += patternAt(pattern, r, c);
    lines.push(line);
  }
  return lines.join("\n");
}

/** The rectangle between two corners, holding what the position shown holds there (so a
 * shape played on the board becomes a pattern), or empty points.
 * @param {string} a @param {string} b @returns {Pattern} */
function regionFrom(a, b) {
  const cols = [a[0], b[0]].map((ch) => LETTERS.indexOf(ch));
  const rows = [a[1], b[1]].map((ch) => LETTERS.indexOf(ch));
  const [left, right, top, bottom] = [Math.min(...cols), Math.max(...cols), Math.min(...rows),
    Math.max(...rows)];
  const shown = page.shown;
  const stones = shown && Number(shown.size) === Number(search.size) ? shown.stones : null;
  const lines = [];
  for (let r = top; r <= bottom; r++) {
    let line = "";
    for (let c = left; c <= right; c++) line += stones ? stones[r][c] : ".";
    lines.push(line);
  }
  return { top, left, rows: lines };
}

/** The parameters of /api/pattern for the state's pattern: ``limit`` hits from the
 * ``offset``-th.
 * @param {number} offset @param {number} limit @returns {Record<string, string | number>} */
export function patternParams(offset, limit) {
  const size = Number(search.size);
  /** @type {Record<string, string | number>} */
  const params = { diagram: patternDiagram(pattern(), size), offset, limit };
  for (const [name, value] of Object.entries(search.filters)) {
    if (name !== "symmetry" && name !== "turn") params[name] = value;  // the position's own
  }
  if (search.patternSymmetry !== "full") params.symmetry = search.patternSymmetry;
  if (search.toMove) params.to_move = search.toMove;
  if (search.maxMove) params.max_move = search.maxMove;
  if (search.sequence) params.sequence = search.sequence;
  return params;
}

/** A pattern's answer in the form of a position's, for the panel they share: the share of a
 * continuation is of the pattern's hits.
 * @param {PatternAnswer} data @returns {Results} */
export function patternResults(data) {
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

/** The moves of a sequence ("B C3 W D4": GTP points) as [colour, SGF letters] pairs; a
 * pair that does not read (the server says why) is left out.
 * @param {string} sequence @param {number} size @returns {Array<[string, string]>} */
function sequenceMoves(sequence, size) {
  const words = sequence.split(" ");
  /** @type {Array<[string, string]>} */
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

/** Draws the pattern's stones and wildcards, and the sequence's stones numbered in their
 * order (a later move on a point shows over an earlier one; captures are not played out). */
export function drawPattern() {
  const size = Number(search.size);
  const shape = pattern();
  /** @type {string[][]} */
  const grid = [];
  /** @type {Map<string, string>} */
  const wild = new Map();
  for (let r = 0; r < size; r++) {
    const row = [];
    for (let c = 0; c < size; c++) {
      const ch = patternAt(shape, r, c);
      row.push(ch === "X" || ch === "O" ? ch : ".");
      if ("*xo".includes(ch)) wild.set(LETTERS[c] + LETTERS[r], ch);
    }
    grid.push(row);
  }
  /** @type {Map<string, number>} */
  const number = new Map();
  sequenceMoves(search.sequence, size).forEach(([colour, point], i) => {
    grid[LETTERS.indexOf(point[1])][LETTERS.indexOf(point[0])] = colour === "b" ? "X" : "O";
    wild.delete(point);
    number.set(point, i + 1);
  });
  const rows = grid.map((row) => row.join(""));
  const drawn = shape.rows.length > 0;
  const region = drawn ? {
    top: shape.top, left: shape.left, height: shape.rows.length,
    width: shape.rows[0].length,
  } : null;
  const board = svgOf("board");
  drawBoard(board, size, rows, {
    marks: drawn && page.results ? continuationMarks(page.results) : new Map(), region, wild,
    number, corner: page.selecting, onPoint: onPatternPoint,
  });
  board.classList.toggle("selecting", !drawn);
  board.dataset.pattern = patternText(shape);
  let status;
  if (!region) {
    status = page.selecting
      ? `Corner ${gtp(page.selecting, size)}: click the opposite corner of the region.`
      : "Drag across the board, or click two opposite corners, to draw the pattern's region.";
  } else {
    const corners = [LETTERS[region.left] + LETTERS[region.top + region.height - 1],
      LETTERS[region.left + region.width - 1] + LETTERS[region.top]];
    status = `Region ${corners.map((p) => gtp(p, size)).join("\u2013")} ` +
      `(${region.width}\u00d7${region.height}): click a point for empty, black, white or ` +
      "any (*); Shift-click also for x (black or empty) and o (white or empty); a " +
      (search.sequence ? "letter plays its continuation after the sequence."
        : "letter puts its continuation's stone there.");
  }
  $("status").textContent = status;
}

/** @param {PatternAnswer | null} data */
function renderPattern(data) {
  const results = data ? patternResults(data) : null;
  page.results = results;
  drawPattern();
  $("results").hidden = !data;
  buttonOf("undo").disabled = page.patternUndo.length === 0;
  showFilters();
  showPatternOptions();
  selectOf("size").value = String(search.size);
  if (data && results) {
    renderContinuations(results);
    const tenuki = data.tenuki ? `, ${fmt(data.tenuki)} after a tenuki` : "";
    $("summary").textContent = data.total
      ? `${fmt(data.total)} hits in ${fmt(data.games)} games${tenuki}; ${fmt(data.ended)} ` +
        `with no next move in the region (${data.placements} placements, ` +
        `${fmt(data.candidates)} of ${fmt(data.searched)} games replayed)`
      : `No hit in ${fmt(data.searched)} games.`;
    renderGames(results.games);
  }
  const text = patternText(pattern());
  $("continuations").dataset.pattern = text;
  document.dispatchEvent(new CustomEvent("gohash:pattern", { detail: text }));
}

/** Asks for the pattern of the state (as loadPosition does for a position).
 * @returns {Promise<boolean>} */
export async function loadPattern() {
  searches.drop();  // an answer on its way is no longer wanted
  const shape = pattern();
  const size = Number(search.size);
  if (shape.error) {
    showMessage(shape.error);
    return false;
  }
  if (shape.rows.length && (shape.top + shape.rows.length > size ||
      shape.left + shape.rows[0].length > size)) {
    showMessage(`the pattern's region does not fit on a ${size}\u00d7${size} board`);
    return false;
  }
  if (!shape.rows.length) {
    renderPattern(null);
    return true;
  }
  return drawLatest(() => getJson("/api/pattern", patternParams(search.offset, 20)),
    renderPattern);
}

/** A click on the board in the Pattern mode: a corner of the region being drawn, or the
 * next character of a point of the region (a continuation's letter: its stone).
 * @param {string} point @param {string} stone @param {MouseEvent} event */
function onPatternPoint(point, stone, event) {
  if (dragged) {
    dragged = false;
    return;
  }
  const shape = pattern();
  if (!shape.rows.length) {
    if (page.selecting === null) {
      page.selecting = point;
      drawPattern();
    } else {
      setPattern(regionFrom(page.selecting, point));
    }
    return;
  }
  const [col, row] = [LETTERS.indexOf(point[0]), LETTERS.indexOf(point[1])];
  const now = patternAt(shape, row, col);
  // Outside the region; or a numbered stone of the sequence, which is edited in its field.
  if (now === "-" || sequenceMoves(search.sequence, Number(search.size)).some(
    ([, p]) => p === point)) return;
  // The continuation lettered there, else the one it is ringed for.
  const moves = page.results && !event.shiftKey ? continuationRows(page.results) : [];
  const played = moves.find((c) => c.point === point) ||
    moves.find((c) => c.equivalent.includes(point));
  if (played) {
    addToPattern(played.colour, point);
    return;
  }
  const cycle = event.shiftKey ? ".XO*xo" : ".XO*";
  editPattern(point, cycle[(cycle.indexOf(now) + 1) % cycle.length]);
}

/** A continuation played (b or w, its point as SGF letters): after the sequence, when there
 * is one (its continuations come after it); else its stone goes into the pattern.
 * @param {string} colour @param {string} point */
export function addToPattern(colour, point) {
  if (search.sequence) {
    const move = `${colour.toUpperCase()} ${gtp(point, Number(search.size))}`;
    undoable(() => { search.sequence += ` ${move}`; });
  } else {
    editPattern(point, colour === "b" ? "X" : "O");
  }
}

/** Sets the character of a point of the pattern's region and searches again.
 * @param {string} point @param {string} ch */
async function editPattern(point, ch) {
  const shape = pattern();
  const [r, c] = [LETTERS.indexOf(point[1]) - shape.top, LETTERS.indexOf(point[0]) - shape.left];
  const rows = shape.rows.slice();
  rows[r] = rows[r].slice(0, c) + ch + rows[r].slice(c + 1);
  return setPattern({ ...shape, rows });
}

/** Shows another pattern (Undo goes back to this one) and searches it.
 * @param {Pattern} next */
export function setPattern(next) {
  /** @param {Pattern} p */
  const region = (p) => [p.top, p.left, p.rows.length, p.rows.length && p.rows[0].length].join();
  return undoable(() => {
    if (region(next) === region(pattern())) search.pattern = next;
    else newRegion(next);
  });
}

/** Changes the pattern or its sequence as ``update`` says, and searches; Undo takes it back.
 * @param {() => void} update */
async function undoable(update) {
  page.patternUndo.push({ pattern: search.pattern, sequence: search.sequence });
  page.selecting = null;
  if (!await change(update)) page.patternUndo.pop();
}

/** A pattern of another region: the sequence names points of the old one, so it goes.
 * @param {Pattern} shape */
export function newRegion(shape) {
  search.pattern = shape;
  search.sequence = "";
}

/** Takes back the pattern's (or its sequence's) last change. */
export function undoPattern() {
  const before = page.patternUndo.pop();
  if (before) change(() => Object.assign(search, before));
}

/** The point under a pointer (a touch keeps its pointer: the point under it is looked up).
 * @param {PointerEvent} event @returns {string | null} */
function pointUnder(event) {
  const target = document.elementFromPoint(event.clientX, event.clientY);
  return target instanceof SVGElement || target instanceof HTMLElement
    ? target.dataset.p || null : null;
}

function drawingRegion() {
  return search.pattern !== null && !search.pattern.rows.length;
}

/** A drag across the board draws the region.
 * @param {PointerEvent} event */
function onBoardDown(event) {
  dragged = false;
  dragFrom = drawingRegion() ? pointUnder(event) : null;
}

/** @param {PointerEvent} event */
function onBoardUp(event) {
  const from = dragFrom;
  dragFrom = null;
  const to = pointUnder(event);
  if (!from || !to || from === to || !drawingRegion()) return;
  dragged = true;
  setPattern(regionFrom(from, to));
}

function showPatternOptions() {
  selectOf("pattern-symmetry").value = search.patternSymmetry;
  selectOf("pattern-to-move").value = search.toMove;
  showTyped(inputOf("pattern-max-move"), search.maxMove);
  showTyped(inputOf("pattern-sequence"), search.sequence);
}

/** A typed option's field shows the state's value, unless the field is being typed in and
 * not yet searched (an answer to another change arriving meanwhile leaves it alone).
 * @param {HTMLInputElement} input @param {string} value */
function showTyped(input, value) {
  if (input === document.activeElement && input.value !== input.dataset.searched) return;
  input.value = value;
  input.dataset.searched = value;
}

/** Play and Edit search the position; Pattern draws a pattern (from the position shown).
 * @param {string} next */
export function chooseMode(next) {
  page.selecting = null;
  if (next === "pattern" && search.pattern === null) {
    page.patternUndo = [];
    change(() => newRegion(readPattern("")));
  } else if (next !== "pattern" && search.pattern !== null) {
    change(() => { search.pattern = null; });
  }
  setMode(next);
}

/** Escape: the first corner of a region was a slip. */
export function dropCorner() {
  page.selecting = null;
  drawPattern();
}

/** The pattern's fields and the board's drags. */
export function wirePattern() {
  const symmetry = selectOf("pattern-symmetry");
  symmetry.addEventListener("change", () => change(() => {
    search.patternSymmetry = symmetry.value;
  }));
  const toMove = selectOf("pattern-to-move");
  toMove.addEventListener("change", () => change(() => {
    search.toMove = toMove.value;
  }));
  // The server checks both (a sequence's points in GTP, on the board and in the region),
  // and a refusal is shown with its reason.
  const maxMove = inputOf("pattern-max-move");
  maxMove.addEventListener("change", () => {
    maxMove.dataset.searched = maxMove.value;
    // A number field's value is empty for what does not read as a number.
    if (maxMove.validity.badInput) showMessage("max move must be a whole number (empty: any)");
    else change(() => { search.maxMove = maxMove.value.trim(); });
  });
  const sequence = inputOf("pattern-sequence");
  sequence.addEventListener("change", () => {
    sequence.dataset.searched = sequence.value;
    change(() => { search.sequence = tidySequence(sequence.value); });
  });
  $("board").addEventListener("pointerdown", onBoardDown);
  $("board").addEventListener("pointerup", onBoardUp);
}
