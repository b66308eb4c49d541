// @ts-check
// Boards drawn in SVG: the explorer's, the pattern's and the viewer's board.

import { GTP, LETTERS, letters } from "./points.js";

export const SVG = "http://www.w3.org/2000/svg";
const CELL = 30;
const MARGIN = 32;

/** An SVG element with its attributes and text.
 * @param {string} name @param {Record<string, string | number>} attrs @param {string} [text]
 * @returns {SVGElement} */
export function el(name, attrs, text) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG, name));
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The star points of a board, as [row, col].
 * @param {number} size @returns {number[][]} */
export function starPoints(size) {
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

/**
 * What a board shows besides its stones (see drawBoard).
 * @typedef {object} Drawing
 * @property {string | null} [last]
 * @property {Map<string, {label?: string, of?: string, title: string}>} [marks]
 * @property {Map<string, number>} [number]
 * @property {boolean} [hit]
 * @property {((point: string, stone: string, event: MouseEvent) => void) | null} [onPoint]
 * @property {{top: number, left: number, height: number, width: number} | null} [region]
 * @property {Map<string, string>} [wild]
 * @property {string | null} [corner]
 */

/** Draws a board into an <svg>: rows are strings of ".XO", top row first.  ``marks`` maps
 * a point's letters to {label, title} (a letter drawn on it) or {of, title} (a point
 * equivalent to the lettered point ``of``: nothing is drawn there, a click on it is the
 * letter's), the title shown on hover; ``number``
 * maps points to the move numbers drawn on their stones; ``hit`` marks the last move
 * as the search's hit; ``onPoint`` makes every point clickable (it gets the point, its
 * stone and the click).  A pattern's drawing adds ``region`` ({top, left, height, width},
 * rows counted from the top), ``wild`` (points' letters to the characters * x o drawn on
 * them) and ``corner`` (the first corner of a region being drawn).
 * @param {SVGSVGElement} svg @param {number} size @param {string[]} rows
 * @param {Drawing} [drawing] */
export function drawBoard(svg, size, rows, drawing = {}) {
  const { last = null, marks = new Map(), number = new Map(), hit = false, onPoint = null,
    region = null, wild = new Map(), corner = null } = drawing;
  const extent = 2 * MARGIN + (size - 1) * CELL;
  const far = MARGIN + (size - 1) * CELL;
  svg.setAttribute("viewBox", `0 0 ${extent} ${extent}`);
  svg.dataset.size = String(size);
  /** @param {number} row @param {number} col @returns {[number, number]} */
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
      const mark = marks.get(point);
      const wildcard = wild.get(point);
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
      } else if (mark) {
        if (mark.label) {
          parts.append(el("circle", { cx: x, cy: y, r: CELL / 2 - 3, fill: "#dcb35c" }));
          parts.append(el("text", {
            x, y: y + 6, "text-anchor": "middle", "font-size": 17, "font-weight": "bold",
            fill: "#0b3d91", class: "mark", "data-mark": point,
          }, mark.label));
        }
      } else if (wildcard) {
        parts.append(el("text", {
          x, y: y + 6, "text-anchor": "middle", "font-size": 18, "font-weight": "bold",
          fill: "#5a1d00", class: "wild", "data-wild": point,
        }, wildcard));
      }
      if (number.has(point) && stone !== ".") {
        parts.append(el("text", {
          x, y: y + 5, "text-anchor": "middle", "font-size": 13, class: "number",
          fill: stone === "X" ? "#f8f8f8" : "#111", "data-number": point,
        }, String(number.get(point))));
      }
      if (onPoint || mark) {
        const hit = el("rect", {
          x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, fill: "transparent",
          class: "hit", "data-p": point,
        });
        if (mark) {
          hit.append(el("title", {}, mark.title));
          if (mark.of) hit.dataset.equivalentOf = mark.of;
        }
        if (onPoint) {
          hit.addEventListener("click", (event) => onPoint(point, stone,
            /** @type {MouseEvent} */ (event)));
        }
        parts.append(hit);
      }
    }
  }
  svg.replaceChildren(parts);
}
