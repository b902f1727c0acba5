// Flavors × node groups (GET /v1/matrix): flavors down, groups of nodes with the same resource
// class and traits across, the nodes of each group every flavor can land on. The server counts;
// the page shows one page of groups at a time. The filters are the page's own query string.
// Live: the page is asked again every 5 s, and shown again when the answer changed.
import { api, el, flavorHref, follow, nodeHref, shell } from "/ui/common.js";

const FILTERS = ["resource_class", "trait", "provision_state"];
const PAGE_SIZE = 25;
const STATES = ["available", "active", "manageable", "enroll", "cleaning", "deploying", "error"];

// A filter's suggestions (a datalist). A live redraw never touches the filter form itself, and
// changes a field's suggestions only when they differ and nobody is typing in it (else once the
// field loses focus): the suggestions shown under the field do not change under the typing.
function options(id, values) {
  const list = document.getElementById(id);
  const field = document.querySelector(`input[list="${id}"]`);
  const put = () => {
    const now = [...list.options].map((o) => o.value);
    if (JSON.stringify(now) !== JSON.stringify(values)) {
      list.replaceChildren(...values.map((v) => el("option", { value: v })));
    }
  };
  if (field && document.activeElement === field) field.addEventListener("blur", put, { once: true });
  else put();
}

function groupHeader(group) {
  const traits = group.traits.length ? group.traits.join(", ") : "no traits";
  return el(
    "th",
    { scope: "col", "data-group": group.id, title: `${group.resource_class || "(none)"}: ${traits}` },
    el("span", { class: "rc", text: group.resource_class || "(no class)" }),
    el("span", { class: "traits", text: traits }),
    el("span", { class: "group-count", text: `${group.nodes} nodes, ${group.available} available` }),
    el("a", { href: nodeHref(group.example), text: `e.g. ${group.example}` }),
  );
}

function render(body) {
  const head = el(
    "tr",
    {},
    el("th", { scope: "col", text: "Flavor" }),
    el("th", { scope: "col", text: "Nodes (all groups)" }),
    ...body.groups.map(groupHeader),
  );
  const rows = body.flavors.map((flavor) =>
    el(
      "tr",
      { "data-flavor": flavor.flavor },
      el("th", { scope: "row" }, el("a", { href: flavorHref(flavor.flavor), text: flavor.flavor })),
      el("td", { class: "total", "data-field": "nodes", text: `${flavor.nodes} (${flavor.available} available)` }),
      ...flavor.cells.map((count, i) =>
        el(
          "td",
          { class: count ? "cell hit" : "cell miss", "data-group": body.groups[i].id, "data-count": count },
          // A mark as well as the colour: ✓ and the count where the flavor lands, – where not.
          count ? `✓ ${count}` : el("span", { "aria-label": "none", text: "–" }),
        ),
      ),
    ),
  );
  document.getElementById("matrix").replaceChildren(
    el(
      "table",
      { class: "matrix" },
      el("caption", { text: "Nodes of each group a flavor can land on (✓ count; – none)" }),
      el("thead", {}, head),
      el("tbody", {}, ...rows),
    ),
  );
  const shown = body.groups.length;
  document.getElementById("summary").textContent =
    `${body.nodes} nodes in ${body.group_count} groups; showing ${shown} groups, ` +
    `${body.flavors.length} flavors (node generation ${body.generation}).`;
  const pager = document.getElementById("pager");
  pager.replaceChildren();
  if (body.next) {
    const next = new URL(body.next, location.href);
    const here = new URLSearchParams(location.search);
    here.set("marker", next.searchParams.get("marker"));
    pager.append(el("a", { href: `/ui/matrix.html?${here}`, rel: "next", text: "Next groups →" }));
  }
  if (new URLSearchParams(location.search).has("marker")) {
    const first = new URLSearchParams(location.search);
    first.delete("marker");
    pager.prepend(el("a", { href: `/ui/matrix.html?${first}`, text: "← First groups" }), " ");
  }
}

function main() {
  shell("matrix");
  const here = new URLSearchParams(location.search);
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  for (const name of [...FILTERS, "marker"]) {
    const value = here.get(name);
    if (value) query.set(name, value);
    const input = document.getElementById(name);
    if (input && value) input.value = value;
  }
  options("provision-states", STATES);
  follow(
    () => api(`/v1/matrix?${query}`),
    (body) => {
      render(body);
      const classes = new Set(body.flavors.map((f) => f.resource_class));
      const traits = new Set(body.groups.flatMap((g) => g.traits));
      options("resource-classes", [...classes].sort());
      options("traits", [...traits].sort());
    },
  );
}

main();
