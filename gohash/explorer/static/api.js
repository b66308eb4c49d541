// @ts-check
// The server's JSON endpoints (docs/schemas.md, "gohash serve"), and the one rule for
// answers that race: the latest request's answer wins.

/** A refused request: the server's message; for an illegal step of a move list, its
 * number (from 1) and the reason in a few words. */
export class ApiError extends Error {
  /** @param {string} message @param {number} [step] @param {string} [refusal] */
  constructor(message, step, refusal) {
    super(message);
    this.step = step;
    this.refusal = refusal;
  }
}

/** The JSON answer of ``path`` with the query ``params``; an {@link ApiError} if refused.
 * @template T
 * @param {string} path @param {Record<string, string | number>} [params]
 * @returns {Promise<T>} */
export async function getJson(path, params) {
  const query = params ? "?" + new URLSearchParams(
    Object.entries(params).map(([name, value]) => [name, String(value)])).toString() : "";
  const response = await fetch(path + query);
  /** @type {any} */
  let body;
  try {
    body = await response.json();
  } catch (e) {
    body = { error: `${response.status} ${response.statusText}` };
  }
  if (!response.ok) {
    throw new ApiError(body.error || `${response.status} ${response.statusText}`, body.step,
      body.refusal);
  }
  return body;
}

/** The answer of the latest of a kind of request (the position or pattern searched, the
 * viewer's game, the player's page, the player search): one made later makes the
 * earlier ones' answers stale, so a quick click never draws an old answer over a newer. */
export class Latest {
  #seq = 0;

  /** Makes the answer on its way, if any, stale. */
  drop() {
    ++this.#seq;
  }

  /** ``fetching()``'s answer as ``{value}``, or null if a later request was made (or
   * {@link drop} called) meanwhile; its error is thrown only if none was.
   * @template T @param {() => Promise<T>} fetching @returns {Promise<{value: T} | null>} */
  async run(fetching) {
    const seq = ++this.#seq;
    try {
      const value = await fetching();
      return seq === this.#seq ? { value } : null;
    } catch (error) {
      if (seq !== this.#seq) return null;
      throw error;
    }
  }
}
