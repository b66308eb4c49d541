// @ts-check
// Points as the page names them: SGF letters ("pd": column, then row from the top), as
// the JSON gives them ([row, col], row 0 the bottom line) and as GTP vertices ("Q16").

/** @typedef {import("./types.js").Point} Point */

export const LETTERS = "abcdefghijklmnopqrstuvwxyz";
export const GTP = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

/** The SGF letters of the point ``row``, ``col`` (row 0 the bottom line).
 * @param {number} row @param {number} col @param {number} size @returns {string} */
export function letters(row, col, size) {
  return LETTERS[col] + LETTERS[size - 1 - row];
}

/** A point as the JSON gives it ([row, col], row 0 the bottom line; null for a pass) as the
 * SGF letters the page works in (docs/schemas.md).
 * @param {Point | null} point @param {number} size @returns {string | null} */
export function pointLetters(point, size) {
  return point ? letters(point[0], point[1], size) : null;
}

/** The GTP vertex of a point's SGF letters ("pass" for none).
 * @param {string | null} point @param {number} size @returns {string} */
export function gtp(point, size) {
  if (!point) return "pass";
  const col = LETTERS.indexOf(point[0]);
  const row = size - 1 - LETTERS.indexOf(point[1]);
  return (col < GTP.length ? GTP[col] : "AA") + (row + 1);
}
