// @ts-check
// The page's elements, by id, and the small pieces every part of the page writes with:
// the message line, counts, table cells, colour dots.

/** The element of id ``id`` (the page has every id the script names).
 * @param {string} id @returns {HTMLElement} */
export function $(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/** @param {string} id @returns {HTMLInputElement} */
export const inputOf = (id) => /** @type {HTMLInputElement} */ ($(id));
/** @param {string} id @returns {HTMLSelectElement} */
export const selectOf = (id) => /** @type {HTMLSelectElement} */ ($(id));
/** @param {string} id @returns {HTMLButtonElement} */
export const buttonOf = (id) => /** @type {HTMLButtonElement} */ ($(id));
/** @param {string} id @returns {HTMLTableElement} */
export const tableOf = (id) => /** @type {HTMLTableElement} */ ($(id));
/** @param {string} id @returns {HTMLFormElement} */
export const formOf = (id) => /** @type {HTMLFormElement} */ ($(id));
/** @param {string} id @returns {SVGSVGElement} */
export const svgOf = (id) => /** @type {SVGSVGElement} */ (/** @type {unknown} */ ($(id)));

/** The headers of a table's head row.
 * @param {HTMLTableElement} table @param {string} selector @returns {HTMLElement[]} */
export function heads(table, selector) {
  const head = /** @type {HTMLTableSectionElement} */ (table.tHead);
  return [...head.querySelectorAll(selector)].map((th) => /** @type {HTMLElement} */ (th));
}

/** @param {string | null | undefined} text */
export function showMessage(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
}

/** A click the rules refuse (occupied, ko, suicide): the reason beside the board, and
 * nothing else changes.
 * @param {string | null | undefined} text */
export function showRefusal(text) {
  const note = $("refusal");
  note.textContent = text || "";
  note.hidden = !text;
}

/** A count as the page writes every count: with thousands separators.
 * @param {number | string | null | undefined} n @returns {string} */
export function fmt(n) {
  return n === null || n === undefined ? "" : Number(n).toLocaleString("en-US");
}

/** Appends a cell holding ``text`` (or a node) to a table row.
 * @param {HTMLTableRowElement} row @param {Node | string | number | null | undefined} text
 * @param {string} [cls] @returns {HTMLTableCellElement} */
export function cell(row, text, cls) {
  const td = document.createElement("td");
  if (cls) td.className = cls;
  if (text instanceof Node) td.append(text);
  else td.textContent = text === null || text === undefined ? "" : String(text);
  row.append(td);
  return td;
}

/** @param {string} colour @returns {HTMLSpanElement} */
export function colourDot(colour) {
  const dot = document.createElement("span");
  dot.className = `dot ${colour}`;
  return dot;
}

/** @param {number} part @param {number} whole @returns {string} */
export function percent(part, whole) {
  return whole ? `${Math.round((100 * part) / whole)}%` : "";
}
