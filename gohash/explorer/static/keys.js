// @ts-check
// The keyboard.  Explorer: a letter plays the continuation it labels; the left arrow (or
// Backspace) takes back a step, the right arrow plays it again.  Viewer: the arrows step,
// Home and End go to the ends, N shows move numbers, H goes to the hit, Escape closes.

import { dropCorner, undoPattern } from "./pattern.js";
import { closePlayer, playerOpen } from "./player.js";
import { CONTINUATION_LABELS, continuationRows } from "./results.js";
import { change, playContinuation } from "./search.js";
import { page, search } from "./state.js";
import { closeGame, showGameAt, showHit, toggleNumbers, viewerIndex, viewerOpen }
  from "./viewer.js";

/** Whether a key goes to a field being typed in.
 * @param {EventTarget | null} target */
function typing(target) {
  return target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement ||
    (target instanceof HTMLInputElement && !["range", "checkbox"].includes(target.type));
}

/** @param {KeyboardEvent} event */
function onKey(event) {
  if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
  if (viewerOpen()) {
    const at = viewerIndex();
    /** @type {Record<string, () => void>} */
    const keys = {
      ArrowLeft: () => showGameAt(at - 1), ArrowRight: () => showGameAt(at + 1),
      Home: () => showGameAt(0), End: () => showGameAt(Infinity), Escape: closeGame,
      n: toggleNumbers, N: toggleNumbers, h: showHit,
    };
    if (!(event.key in keys)) return;
    event.preventDefault();
    keys[event.key]();
    return;
  }
  if (playerOpen()) {
    if (event.key === "Escape") {
      event.preventDefault();
      closePlayer();
    }
    return;
  }
  if (search.pattern !== null) {
    if (event.key === "Escape" && page.selecting !== null) {
      dropCorner();  // the first corner of a region was a slip
    } else if ((event.key === "Backspace" || event.key === "ArrowLeft") &&
        page.patternUndo.length) {
      event.preventDefault();
      undoPattern();
    } else {
      playLetter(event);
    }
    return;
  }
  if ((event.key === "Backspace" || event.key === "ArrowLeft") && search.moves.length) {
    event.preventDefault();
    const step = search.moves[search.moves.length - 1];
    change(() => search.moves.pop(), true).then((done) => { if (done) page.redo.push(step); });
  } else if (event.key === "ArrowRight" && page.redo.length) {
    event.preventDefault();
    const step = page.redo[page.redo.length - 1];
    change(() => search.moves.push(step), true).then((done) => { if (done) page.redo.pop(); });
  } else {
    playLetter(event);
  }
}

/** A continuation's letter typed plays it.
 * @param {KeyboardEvent} event */
function playLetter(event) {
  if (event.key.length !== 1 || !page.results) return;
  const index = CONTINUATION_LABELS.indexOf(event.key);
  const rows = continuationRows(page.results);
  if (index >= 0 && index < rows.length) {
    event.preventDefault();
    playContinuation(rows[index]);
  }
}

/** The page's keys. */
export function wireKeys() {
  document.addEventListener("keydown", onKey);
}
