// @ts-check
// The board's modes: Play and Edit (Black, White) search the position, Pattern a pattern.

import { $ } from "./dom.js";
import { page, search } from "./state.js";

/** Shows the mode ``next`` as the one on (its button pressed, the pattern's bar).
 * @param {string} next */
export function setMode(next) {
  page.mode = next;
  for (const button of document.querySelectorAll("button.mode")) {
    const mode = /** @type {HTMLButtonElement} */ (button).dataset.mode;
    button.setAttribute("aria-pressed", String(mode === page.mode));
  }
  document.body.classList.toggle("pattern-mode", page.mode === "pattern");
  $("pattern-bar").hidden = page.mode !== "pattern";
}

/** The mode of the state read from the URL: Pattern for a pattern, else Play (unless
 * already a position's mode). */
export function followMode() {
  if ((page.mode === "pattern") !== (search.pattern !== null)) {
    setMode(search.pattern !== null ? "pattern" : "play");
  }
}

/** Leaves the pattern search for the position search (from the viewer, a player's page). */
export function leavePattern() {
  search.pattern = null;
  if (page.mode === "pattern") setMode("play");
}
