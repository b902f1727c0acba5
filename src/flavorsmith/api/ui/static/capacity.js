// The capacity page: first a summary (each finding counted, linked to its list; the nodes each
// flavor can sell now), then per flavor matching / available / only-this-flavor / shared
// nodes as bars in one table grouped by resource class (GET /v1/capacity), and the findings
// as lists with links, drift among them (GET /v1/verify: what ``flavorsmith verify``
// reports). Live: asked again every 5 s, shown again when the answer changed.
import { ApiError, api, el, flavorHref, follow, nodeHref, shell } from "/ui/common.js";

// Drift findings about a flavor of the catalog; the others are about a node, except a resource
// provider for no node (its subject is the provider: no page to link to).
const FLAVOR_DRIFT = new Set([
  "flavor-candidates",
  "flavor-missing",
  "flavor-extra-spec",
  "flavor-public",
  "flavor-access",
  "pool-leak",
]);
const UNLINKED_DRIFT = new Set(["provider-without-node"]);

function driftSubject(finding) {
  if (UNLINKED_DRIFT.has(finding.kind)) return el("code", { text: finding.subject });
  const href = FLAVOR_DRIFT.has(finding.kind) ? flavorHref(finding.subject) : nodeHref(finding.subject);
  return el("a", { href, text: finding.subject });
}

// The drift section: verify's findings, or why there are none to show (verify needs an
// admin's token; a catalog with errors is not verified).
function drift(report) {
  if (report.findings) {
    return findingList(
      "drift",
      "Drift (flavorsmith verify)",
      report.findings,
      (finding) => [
        el("code", { class: "kind", text: finding.kind }),
        " ",
        driftSubject(finding),
        `: ${finding.detail} — fix: `,
        el("code", { text: finding.fix }),
      ],
      "flavorsmith verify -f json",
    );
  }
  return el(
    "section",
    { class: "finding", id: "finding-drift", "data-finding": "drift" },
    el("h3", { text: "Drift (flavorsmith verify)" }),
    el("p", { class: "none unavailable", text: report.unavailable }),
  );
}

// GET /v1/verify, or why it cannot be shown to this caller (the rest of the page still can).
async function verify() {
  try {
    return await api("/v1/verify");
  } catch (error) {
    if (!(error instanceof ApiError)) return { unavailable: `Drift is not known: ${error.message}` };
    if (error.status === 401 || error.status === 403) {
      return { unavailable: `Drift needs an admin's token (GET /v1/verify: ${error.detail}).` };
    }
    return { unavailable: `Drift is not known: ${error.detail}` };
  }
}

// The columns, in order: the capacity document's field and what the page calls it.
const MEASURES = [
  ["matching", "Matching", "nodes the flavor can land on"],
  ["available", "Available", "matching nodes free to deploy now"],
  ["exclusive", "Only this flavor", "matching nodes no other flavor can use"],
  ["shared", "Shared", "matching nodes other flavors compete for"],
];

function bar(field, value, scale) {
  const span = el("span", { class: `bar bar-${field}`, "aria-hidden": "true" });
  span.style.width = `${scale ? (100 * value) / scale : 0}%`;
  return el("span", { class: "track", "aria-hidden": "true" }, span);
}

// Where a flavor's row is on this page (the summary's counts link there).
function rowId(flavor) {
  return `flavor-${flavor}`;
}

// One table for every flavor: a row group per resource class, headed by the class once.
function classesTable(byClass, scale) {
  const head = el("tr", {}, el("th", { scope: "col", text: "Flavor" }));
  for (const [, label, meaning] of MEASURES) {
    head.append(el("th", { scope: "col", title: meaning, text: label }));
  }
  const groups = [...byClass.keys()].sort().map((resourceClass) => {
    const body = el(
      "tbody",
      { "data-resource-class": resourceClass },
      el(
        "tr",
        { class: "class-row" },
        el("th", { scope: "rowgroup", colspan: MEASURES.length + 1 }, "Resource class ", el("code", { text: resourceClass })),
      ),
    );
    for (const flavor of byClass.get(resourceClass)) {
      const row = el(
        "tr",
        { "data-flavor": flavor.flavor, id: rowId(flavor.flavor) },
        el("th", { scope: "row" }, el("a", { href: flavorHref(flavor.flavor), text: flavor.flavor })),
      );
      for (const [field] of MEASURES) {
        const value = flavor[field];
        row.append(
          el("td", { "data-field": field }, el("span", { class: "num", text: value }), bar(field, value, scale)),
        );
      }
      body.append(row);
    }
    return body;
  });
  return el(
    "table",
    { class: "capacity" },
    el("caption", { text: "Nodes per flavor, by resource class" }),
    el("thead", {}, head),
    ...groups,
  );
}

// Each list shows its first items only: at 100,000 nodes a finding can name tens of thousands
// (the API and the CLI list them all).
const SHOWN = 100;

function findingList(key, title, items, render, whole = "flavorsmith capacity -f json") {
  const section = el("section", { class: "finding", id: `finding-${key}`, "data-finding": key });
  section.append(el("h3", {}, `${title} `, el("span", { class: "count", text: `(${items.length})` })));
  if (items.length === 0) {
    section.append(el("p", { class: "none", text: "None." }));
    return section;
  }
  const list = el("ul");
  for (const item of items.slice(0, SHOWN)) list.append(el("li", {}, ...render(item)));
  section.append(list);
  if (items.length > SHOWN) {
    section.append(
      el("p", { class: "more" }, `The first ${SHOWN} of ${items.length}: `, el("code", { text: whole }), " lists all."),
    );
  }
  return section;
}

function findings(found) {
  const traits = Object.entries(found.traits_no_node_has || {});
  return [
    findingList("flavors_without_nodes", "Flavors no node can serve", found.flavors_without_nodes, (name) => [
      el("a", { href: flavorHref(name), text: name }),
    ]),
    findingList("nodes_without_flavor", "Nodes no flavor can use", found.nodes_without_flavor, (name) => [
      el("a", { href: nodeHref(name), text: name }),
    ]),
    findingList(
      "resource_classes_without_flavor",
      "Resource classes no flavor asks for",
      found.resource_classes_without_flavor,
      (name) => [el("code", { text: name })],
    ),
    findingList("traits_no_node_has", "Traits required that no node has", traits, ([trait, flavors]) => [
      el("code", { text: trait }),
      " required by ",
      ...flavors.flatMap((name, i) => [i ? ", " : "", el("a", { href: flavorHref(name), text: name })]),
    ]),
    findingList("pool_leaks", "Pool leaks", found.pool_leaks || [], (leak) => [
      el("a", { href: flavorHref(leak.reached_by), text: leak.reached_by }),
      ` (${leak.audience}) reaches `,
      leak.nodes === null ? "" : `${leak.nodes} of the ${leak.pool_nodes} nodes of `,
      "private flavor ",
      el("a", { href: flavorHref(leak.pool), text: leak.pool }),
    ]),
  ];
}

// The summary's counts, in order, each a link to its list below: the finding (its key in the
// capacity document's findings, or "drift") and what it counts (one, many).
const COUNTS = [
  ["nodes_without_flavor", "node no flavor can use", "nodes no flavor can use"],
  ["flavors_without_nodes", "flavor no node can serve", "flavors no node can serve"],
  ["pool_leaks", "pool leak", "pool leaks"],
  ["drift", "drift finding", "drift findings"],
  ["resource_classes_without_flavor", "resource class no flavor asks for", "resource classes no flavor asks for"],
  ["traits_no_node_has", "required trait no node has", "required traits no node has"],
];

// What the summary shows: the last capacity answer and the last drift report.
const latest = { capacity: null, drift: null };

function countOf(key) {
  if (key === "drift") return latest.drift && latest.drift.findings ? latest.drift.findings.length : null;
  const found = latest.capacity.findings[key];
  if (found === undefined || found === null) return 0;
  return Array.isArray(found) ? found.length : Object.keys(found).length;
}

function countItem(key, one, many) {
  const count = countOf(key);
  const label = count === 1 ? one : many;
  if (count === null) {
    // Drift not known (yet, or not to this caller): say so, and link to why.
    const why = latest.drift ? "not shown" : "checking…";
    return el(
      "li",
      { "data-count": key, class: "unknown" },
      el("a", { href: `#finding-${key}` }, el("strong", { class: "n", text: "?" }), ` ${label} (${why})`),
    );
  }
  return el(
    "li",
    { "data-count": key, "data-value": count, class: count ? "attention" : null },
    el("a", { href: `#finding-${key}` }, el("strong", { class: "n", text: count }), ` ${label}`),
  );
}

function renderCounts() {
  if (!latest.capacity) return;
  document.getElementById("counts").replaceChildren(...COUNTS.map(([key, one, many]) => countItem(key, one, many)));
}

function sellable(flavors) {
  return flavors.map((flavor) =>
    el(
      "li",
      { "data-flavor": flavor.flavor },
      el(
        "a",
        { href: `#${rowId(flavor.flavor)}` },
        el("strong", { class: "n", text: flavor.available }),
        ` ${flavor.flavor}`,
      ),
      el("span", { class: "of", text: ` of ${flavor.matching}` }),
    ),
  );
}

export function render(capacity) {
  const byClass = new Map();
  for (const flavor of capacity.flavors) {
    const key = flavor.resource_class || "(none)";
    if (!byClass.has(key)) byClass.set(key, []);
    byClass.get(key).push(flavor);
  }
  const scale = Math.max(1, ...capacity.flavors.map((f) => f.matching));
  latest.capacity = capacity;
  document.getElementById("summary").textContent =
    `${capacity.flavors.length} flavors over ${capacity.nodes} nodes (node generation ${capacity.generation}).`;
  renderCounts();
  document.getElementById("sellable").replaceChildren(...sellable(capacity.flavors));
  document.getElementById("classes").replaceChildren(classesTable(byClass, scale));
  document.getElementById("findings").replaceChildren(...findings(capacity.findings));
}

function renderDrift(report) {
  const place = document.getElementById("drift");
  place.replaceChildren(drift(report));
  latest.drift = report;
  renderCounts();
  place.dataset.loaded = "true";
}

function main() {
  shell("capacity");
  // The numbers and findings first; drift when verify answers (at 100,000 nodes it compares
  // every node's provider: seconds after a change, while the numbers take a fraction of one).
  follow(() => api("/v1/capacity"), render);
  follow(verify, renderDrift, "drift");
}

main();
