// @ts-check
// The form of the filters and search options: its fields come from /api/info's list
// (gohash.index.filters.FILTERS); the page has no list of its own.

import { formOf } from "./dom.js";
import { FILTERS, search } from "./state.js";

/** @typedef {import("./types.js").Filter} Filter */

/** A field of the form, by name.
 * @param {string} name @returns {HTMLInputElement | HTMLSelectElement} */
function field(name) {
  return /** @type {HTMLInputElement | HTMLSelectElement} */ (formOf("filters").elements
    .namedItem(name));
}

/** The filters and options the form gives.
 * @returns {Record<string, string>} */
export function readFilters() {
  /** @type {Record<string, string>} */
  const filters = {};
  for (const name of FILTERS) {
    const input = field(name);
    // The checkbox "turn" is on by default, as on the server: only "off" is written.
    const value = input instanceof HTMLInputElement && input.type === "checkbox"
      ? (input.checked ? "" : "0") : input.value.trim();
    if (value && !(name === "symmetry" && value === "full")) filters[name] = value;
  }
  return filters;
}

/** The form shows the state's filters and options. */
export function showFilters() {
  for (const name of FILTERS) {
    const input = field(name);
    const value = search.filters[name] || "";
    if (input instanceof HTMLInputElement && input.type === "checkbox") {
      input.checked = value !== "0";
    } else {
      input.value = value || (name === "symmetry" ? "full" : "");
    }
  }
}

/** Builds the filters' fields of the form from /api/info's list.
 * @param {Filter[]} filters */
export function addFilters(filters) {
  const options = /** @type {HTMLElement} */ (field("symmetry").closest("label"));
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
