// @ts-check
// The search shown, a position's or a pattern's: every change to it is searched, drawn
// and pushed into the URL, or, refused by the server, taken back.

import { ApiError, Latest } from "./api.js";
import { showMessage, showRefusal } from "./dom.js";
import { addToPattern, loadPattern } from "./pattern.js";
import { loadPosition, moveToken } from "./position.js";
import { page, pushUrl, search } from "./state.js";

/** @typedef {import("./results.js").ContinuationRow} ContinuationRow */

/** The answers of the searches: the latest drawn, never an older one over it. */
export const searches = new Latest();

/** Draws ``render(await fetching())`` unless a newer search was made meanwhile; false if
 * the server refused it: its message is shown, or, for a click the rules refuse (the
 * last step), its reason in a few words beside the board.
 * @template T
 * @param {() => Promise<T>} fetching @param {(data: T) => void} render
 * @param {boolean} [click] @returns {Promise<boolean>} */
export async function drawLatest(fetching, render, click) {
  try {
    const answer = await searches.run(fetching);
    if (answer === null) return true;
    showMessage("");
    showRefusal("");
    render(answer.value);
    return true;
  } catch (error) {
    if (click && error instanceof ApiError && error.refusal &&
        error.step === search.moves.length) {
      showMessage("");
      showRefusal(error.refusal);
    } else {
      showRefusal("");
      showMessage(/** @type {Error} */ (error).message);
    }
    return false;
  }
}

/** The search the state asks for: a pattern's or a position's.
 * @param {boolean} [click] @returns {Promise<boolean>} */
export function load(click) {
  return search.pattern !== null ? loadPattern() : loadPosition(click);
}

/** Applies a change to the search and draws it; a change the server refuses (an illegal
 * move: the message says why) is taken back, and the URL is left as it was.  Any change
 * but the arrows' own forgets the steps the left arrow took back; ``click`` says the
 * change is a click on the board (see loadPosition).
 * @param {() => void} update @param {boolean} [keepRedo] @param {boolean} [click]
 * @returns {Promise<boolean>} */
export async function change(update, keepRedo, click) {
  const before = structuredClone(search);
  update();
  search.offset = 0;
  if (await load(click)) {
    if (!keepRedo) page.redo = [];
    pushUrl(false);
    return true;
  }
  Object.assign(search, before);
  return false;
}

/** Plays a continuation (its point as SGF letters): on the position, or, in a pattern
 * search, as a stone added to the pattern.
 * @param {{colour: string, point: string | null}} c */
export function playContinuation(c) {
  if (search.pattern !== null) {
    if (c.point) addToPattern(c.colour, c.point);
    return;
  }
  change(() => search.moves.push(moveToken(c.colour, c.point)));
}
