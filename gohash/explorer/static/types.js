// @ts-check
// The JSON of the server's answers (docs/schemas.md, "gohash serve"), as the page reads
// it: types only, for the type checker (tests/explorer/test_page_types.py).

/**
 * A point as the JSON gives it: [row, col], row 0 the bottom line.
 * @typedef {[number, number]} Point
 */

/**
 * @typedef {"b" | "w"} Colour
 */

/**
 * A move: its colour, its point (null for a pass), as a GTP vertex and SGF letters.
 * @typedef {object} Move
 * @property {Colour} colour
 * @property {Point | null} point
 * @property {string} gtp
 * @property {string} sgf
 */

/**
 * A game record (docs/schemas.md, "A game record"), as the server writes it.
 * @typedef {object} GameRecord
 * @property {number} game_id
 * @property {string} source
 * @property {number} game
 * @property {number} size
 * @property {number} moves
 * @property {string | null} black
 * @property {string | null} white
 * @property {string | null} black_rank
 * @property {string | null} white_rank
 * @property {string | null} date
 * @property {string | null} result
 * @property {number | null} komi
 * @property {number} handicap
 * @property {string | null} event
 * @property {string | null} name
 * @property {string | null} place
 * @property {string | null} iso_date
 * @property {"B" | "W" | null} winner
 * @property {string | null} outcome
 */

/**
 * Where and how a query occurred in a game.
 * @typedef {{
 *   move_number: number, seq: number, element: string, view: string,
 *   colours_exchanged: boolean, to_move: Colour, next_move: Move | null,
 * }} Occurrence
 */

/**
 * A match: a game record, and where and how the query occurred in it (on which line).
 * @typedef {GameRecord & Occurrence & {variation: number[]}} Match
 */

/**
 * A pattern's hit: a match, with the offsets that place the pattern there, whether its
 * next move there came after a move elsewhere, and how many placements hit at once.
 * @typedef {GameRecord & Occurrence & {
 *   offset: [number, number], view_offset: [number, number], tenuki: boolean,
 *   placements: number,
 * }} Hit
 */

/**
 * A find result (/api/games).
 * @typedef {object} FindResult
 * @property {string} key
 * @property {number} total
 * @property {number} offset
 * @property {number | null} limit
 * @property {number} rejected
 * @property {Match[]} matches
 */

/**
 * What the continuations of a position and of a pattern share: a move, the points
 * equivalent to it, and its games' counts.
 * @typedef {Move & {
 *   equivalent: Point[], count: number, black_wins: number, white_wins: number,
 *   other: number, first_date: string | null, last_date: string | null,
 * }} Played
 */

/**
 * A continuation of a position: its share of the occurrences, and how they matched.
 * @typedef {Played & {
 *   share: number, same_colours: number, exchanged_colours: number,
 * }} Continuation
 */

/**
 * A continuation of a pattern: how many of its hits came after a move elsewhere.
 * @typedef {Played & {tenuki: number}} PatternContinuation
 */

/**
 * The continuations of a position (docs/schemas.md, "Continuations").
 * @typedef {object} Continuations
 * @property {string} key
 * @property {number} size
 * @property {Colour | "any"} to_move
 * @property {number} total
 * @property {number} ended
 * @property {number} same_colours
 * @property {number} exchanged_colours
 * @property {number} black_wins
 * @property {number} white_wins
 * @property {number} other
 * @property {Record<string, number>} years
 * @property {string[]} symmetries
 * @property {string} setup
 * @property {number} setup_left_out
 * @property {Continuation[]} moves
 */

/**
 * /api/position: the board after a move list, its continuations and first games.
 * @typedef {object} PositionAnswer
 * @property {number} size
 * @property {string} moves
 * @property {Colour} to_move
 * @property {number} move_number
 * @property {string[]} stones
 * @property {string | null} last
 * @property {string | null} ko
 * @property {{b: number, w: number}} captured
 * @property {Continuations} continuations
 * @property {FindResult} games
 */

/**
 * /api/pattern (docs/schemas.md, "gohash index pattern").
 * @typedef {object} PatternAnswer
 * @property {number} size
 * @property {string} pattern
 * @property {string} symmetry
 * @property {number} placements
 * @property {number} searched
 * @property {number} candidates
 * @property {number} games
 * @property {number} total
 * @property {number} ended
 * @property {number} tenuki
 * @property {number | null} limit
 * @property {number} offset
 * @property {PatternContinuation[]} continuations
 * @property {Hit[]} matches
 */

/**
 * A filter of the position endpoints, as /api/info lists them.
 * @typedef {object} Filter
 * @property {string} name
 * @property {string} option
 * @property {"substring" | "date" | "rank" | "choice" | "yes_no"} kind
 * @property {string} label
 * @property {string} help
 * @property {string} placeholder
 * @property {Array<{value: string, label: string}>} choices
 */

/**
 * /api/info: what the index holds (the fields of ``index info``), its sizes, its filters.
 * @typedef {object} Info
 * @property {number} format_version
 * @property {string} scheme
 * @property {boolean} variations
 * @property {number} files
 * @property {number} games
 * @property {number} positions
 * @property {number} distinct
 * @property {number} errors
 * @property {Record<string, number>} gohash_versions
 * @property {number} outdated_files
 * @property {Record<string, number>} sizes
 * @property {number} default_size
 * @property {Filter[]} filters
 */

/**
 * /api/game/ID: a game record, and a page of the positions of its main line.
 * @typedef {GameRecord & {
 *   root: Record<string, string>, view: string, colours_exchanged: boolean,
 *   positions_total: number, final_move_number: number, start: number,
 *   positions: string[][], move_numbers: number[], last: Array<string | null>,
 *   comments: Array<string | null> | null,
 * }} GamePage
 */

/**
 * /api/game/ID/steps: the move list to position ``at`` of a game.
 * @typedef {object} GameSteps
 * @property {number} game_id
 * @property {number} size
 * @property {string} view
 * @property {number} at
 * @property {string[]} steps
 */

/**
 * A player's results: games, and those won, lost and neither.
 * @typedef {object} Results
 * @property {number} games
 * @property {number} wins
 * @property {number} losses
 * @property {number} other
 */

/**
 * An opening of a player's page, or (with ``player``) a corner pattern.
 * @typedef {object} Opening
 * @property {number} size
 * @property {string} moves
 * @property {number} count
 * @property {Record<string, number>} years
 * @property {Results} results
 * @property {{b?: number, w?: number}} [player]
 */

/**
 * /api/player: what the server counts of a player's games.
 * @typedef {object} PlayerAnswer
 * @property {string} name
 * @property {{b: Results, w: Results}} colours
 * @property {Record<string, Results>} years
 * @property {number} opening_length
 * @property {number} openings_counted
 * @property {Opening[]} openings
 * @property {number} corner_length
 * @property {number} corners_counted
 * @property {Opening[]} corners
 * @property {{total: number, offset: number, limit: number | null, records: GameRecord[]}} games
 */

/**
 * /api/players: the names that hold a text.
 * @typedef {object} PlayersAnswer
 * @property {string} query
 * @property {Array<{name: string, games: number}>} players
 */

export {};
