// Capacity trends (GET /v1/trends), drawn as small inline SVG charts: on the capacity page one
// per flavor, on a flavor's page its own, larger. Each chart is the sampled sellable nodes (solid)
// and used nodes (dashed) over the window; the service computes when a falling series runs out,
// and the text says so. Samples come every few minutes: the charts are asked again each minute.
import { ApiError, api, el, flavorHref } from "/ui/common.js";

const SVG = "http://www.w3.org/2000/svg";
const REFRESH_MS = 60000;
const DAYS = 7;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

// The polyline's points of one measure: time on x (the window's samples, oldest at the left),
// the count on y (0 at the bottom, ``top``, the most nodes the series counted, at the top).
function points(samples, field, width, height, top) {
  const first = Date.parse(samples[0].at);
  const span = Math.max(1, Date.parse(samples[samples.length - 1].at) - first);
  const pad = 2;
  return samples
    .map((s) => {
      const x = samples.length === 1 ? width / 2 : pad + ((Date.parse(s.at) - first) / span) * (width - 2 * pad);
      const y = height - pad - (s[field] / top) * (height - 2 * pad);
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(" ");
}

function days(n) {
  if (n < 1) return "less than a day";
  const whole = Math.round(n);
  return `~${whole} day${whole === 1 ? "" : "s"}`;
}

// What the series says in words: the newest numbers, and when it runs out if it is falling.
function outlook(series) {
  const last = series.samples[series.samples.length - 1];
  const now = `${last.sellable} sellable, ${last.used} used of ${last.total}`;
  const out = series.runs_out;
  if (out === null) return [now, "not falling over the last day", "steady"];
  if (last.sellable === 0) return [now, "out of sellable nodes", "out"];
  return [now, `runs out in ${days(out.days)} at the recent rate (${out.rate_per_day} a day)`, "falling"];
}

function chart(series, width, height, label) {
  const top = Math.max(1, ...series.samples.map((s) => Math.max(s.total, s.sellable, s.used)));
  const [now, trend, state] = outlook(series);
  const title = `${label}: sellable and used nodes over the last ${DAYS} days, ${series.samples.length} samples; ${now}; ${trend}`;
  const picture = svg(
    "svg",
    { class: "spark", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title },
    svg("polyline", { class: "used", points: points(series.samples, "used", width, height, top) }),
    svg("polyline", { class: "sellable", points: points(series.samples, "sellable", width, height, top) }),
  );
  return el(
    "figure",
    { class: `trend trend-${state}`, "data-series": `${series.scope}:${series.name}`, "data-samples": series.samples.length },
    picture,
    el("figcaption", {}, el("span", { class: "now", text: now }), " — ", el("span", { class: "outlook", text: trend })),
  );
}

function nothing(text) {
  return el("p", { class: "none", text });
}

const NO_SAMPLES = "No samples yet: the service takes one every few minutes (serve --trend-interval).";

async function load(query) {
  try {
    return await api(`/v1/trends?days=${DAYS}&${query}`);
  } catch (error) {
    const why = error instanceof ApiError ? error.detail : error.message;
    return { unavailable: `Trends are not known: ${why}` };
  }
}

// The capacity page: a chart per flavor, in a list.
function capacityTrends(answer) {
  if (answer.unavailable) return [nothing(answer.unavailable)];
  if (answer.flavors.length === 0) return [nothing(NO_SAMPLES)];
  const list = el("ul", { class: "trends" });
  for (const series of answer.flavors) {
    list.append(
      el("li", {}, el("a", { href: flavorHref(series.name), text: series.name }), chart(series, 160, 36, series.name)),
    );
  }
  return [list];
}

// A flavor's page: its chart.
function flavorTrend(answer, name) {
  if (answer.unavailable) return [nothing(answer.unavailable)];
  const series = answer.flavors.find((s) => s.name === name);
  if (!series) return [nothing(NO_SAMPLES)];
  return [chart(series, 480, 90, name)];
}

async function main() {
  const place = document.getElementById("trend-charts");
  if (!place) return;
  const page = document.body.dataset.page;
  const name = new URLSearchParams(location.search).get("name");
  if (page === "flavor" && !name) return;
  const query = page === "flavor" ? `flavor=${encodeURIComponent(name)}&points=240` : "scope=flavor&points=60";
  let shown = null;
  async function once() {
    const answer = await load(query);
    const text = JSON.stringify(answer);
    if (text !== shown) {
      place.replaceChildren(...(page === "flavor" ? flavorTrend(answer, name) : capacityTrends(answer)));
      shown = text;
    }
    place.dataset.loaded = "true";
  }
  await once();
  setInterval(() => {
    if (!document.hidden) once();
  }, REFRESH_MS);
}

main();
