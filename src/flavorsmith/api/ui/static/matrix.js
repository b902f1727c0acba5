// Flavors × node groups (GET /v1/matrix): flavors down, groups of nodes with the same resource
// class and traits across, under their resource class, the nodes of each group every flavor
// can land on. A group's traits are whole chips (a run's shared prefix shown once, the traits
// every group of the class has shown once in the class's heading), marked where they differ
// from the group to the left. The server counts; the page shows one page of groups at a time.
// The filters are the page's own query string; a link per resource class narrows it to one.
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

// The traits every group of ``groups`` has (shown once, in their resource class's heading).
function common(groups) {
  if (groups.length < 2) return [];
  return groups[0].traits.filter((trait) => groups.every((g) => g.traits.includes(trait)));
}

// The prefixes of ``trait`` that end with "_", shortest first (CUSTOM_, CUSTOM_BM_, …).
function prefixesOf(trait) {
  const found = [];
  for (let i = trait.indexOf("_"); i !== -1 && i < trait.length - 1; i = trait.indexOf("_", i + 1)) {
    found.push(trait.slice(0, i + 1));
  }
  return found;
}

// The longest prefix ending with "_" that all of ``traits`` share ("" when none).
function commonPrefix(traits) {
  const [first, ...others] = traits;
  const shared = prefixesOf(first).filter((p) => others.every((t) => t.startsWith(p)));
  return shared.length ? shared[shared.length - 1] : "";
}

// ``traits`` in runs that share a prefix, shown once before the run: a trait goes with the
// others that share its first two segments (CUSTOM_BM_), else its first (CUSTOM_), and the run's
// prefix is all that they have in common (CUSTOM_BM_CONFIG_); a trait that shares none stands
// alone, whole. [[prefix, [trait, ...]], ...] in the traits' order.
function byPrefix(traits) {
  const chosen = traits.map((trait) => {
    const [one, two] = prefixesOf(trait);
    const sharing = (p) => (p ? traits.filter((o) => o.startsWith(p)) : []);
    const group = sharing(two).length > 1 ? sharing(two) : sharing(one);
    return group.length > 1 ? commonPrefix(group) : "";
  });
  const runs = new Map();
  traits.forEach((trait, i) => {
    if (!runs.has(chosen[i])) runs.set(chosen[i], []);
    runs.get(chosen[i]).push(trait);
  });
  const out = [];
  for (const [prefix, members] of runs) {
    if (prefix && members.length > 1) out.push([prefix, members]);
    else for (const trait of members) out.push(["", [trait]]);
  }
  return out;
}

// A trait as a chip: never broken inside its name (CSS keeps each chip on one line); its
// prefix, when shown before the run, is left out. ``added``: the group to the left lacks it.
function chip(trait, prefix, added = false) {
  return el(
    "span",
    { class: added ? "chip added" : "chip", "data-trait": trait, title: added ? `${trait} (the group to the left lacks it)` : trait },
    added ? el("span", { class: "mark", "aria-hidden": "true", text: "+" }) : null,
    el("span", { class: "name", text: trait.slice(prefix.length) }),
    added ? el("span", { class: "visually-hidden", text: " (new here)" }) : null,
  );
}

function chips(traits, added = new Set()) {
  return byPrefix(traits).map(([prefix, members]) =>
    el(
      "span",
      { class: "run" },
      prefix ? el("span", { class: "prefix", "data-prefix": prefix, text: `${prefix}…` }) : null,
      ...members.map((trait) => chip(trait, prefix, added.has(trait))),
    ),
  );
}

// A group's heading: its traits (but those every group of its class has) as chips, marked
// where the group to its left in the same class lacks one; its nodes; an example node.
function groupHeader(group, left, shared) {
  const own = group.traits.filter((t) => !shared.includes(t));
  const added = new Set(left ? own.filter((t) => !left.traits.includes(t)) : []);
  const traits = group.traits.length ? group.traits.join(", ") : "no traits";
  return el(
    "th",
    { scope: "col", "data-group": group.id, title: `${group.resource_class || "(none)"}: ${traits}` },
    el(
      "span",
      { class: "traits" },
      ...(own.length ? chips(own, added) : [el("span", { class: "none", text: shared.length ? "no others" : "no traits" })]),
    ),
    el("span", { class: "group-count" }, el("span", { text: `${group.nodes} nodes` }), el("span", { text: `${group.available} available` })),
    el("a", { href: nodeHref(group.example), "aria-label": `example: ${group.example}`, title: group.example, text: "example" }),
  );
}

// The groups of each resource class, in the answer's order: [[class, [group, ...]], ...].
function runsOfClass(groups) {
  const runs = [];
  for (const group of groups) {
    const key = group.resource_class || "(no class)";
    if (!runs.length || runs[runs.length - 1][0] !== key) runs.push([key, []]);
    runs[runs.length - 1][1].push(group);
  }
  return runs;
}

function classHeader(resourceClass, groups, shared) {
  return el(
    "th",
    { scope: "colgroup", colspan: groups.length, class: "class-head", "data-resource-class": resourceClass },
    el("span", { class: "rc", text: resourceClass }),
    ` · ${groups.length} ${groups.length === 1 ? "group" : "groups"}`,
    shared.length ? el("span", { class: "shared" }, "; every one has ", ...chips(shared)) : null,
  );
}

function render(body) {
  const top = el(
    "tr",
    { class: "classes" },
    el("th", { scope: "col", rowspan: 2, class: "flavor-head", text: "Flavor" }),
    el("th", { scope: "col", rowspan: 2, text: "Nodes (all groups)" }),
  );
  const head = el("tr", { class: "groups" });
  for (const [resourceClass, groups] of runsOfClass(body.groups)) {
    const shared = common(groups);
    top.append(classHeader(resourceClass, groups, shared));
    groups.forEach((group, i) => head.append(groupHeader(group, i ? groups[i - 1] : null, shared)));
  }
  const rows = body.flavors.map((flavor) =>
    el(
      "tr",
      { "data-flavor": flavor.flavor },
      el("th", { scope: "row" }, el("a", { href: flavorHref(flavor.flavor), text: flavor.flavor })),
      el(
        "td",
        { class: "total", "data-field": "nodes" },
        `${flavor.nodes} `,
        el("span", { class: "of", text: `(${flavor.available} available)` }),
      ),
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
  const table = el(
    "table",
    { class: "matrix" },
    el("caption", {
      text: "Nodes of each group a flavor can land on (✓ count; – none). A group's traits: + where the group to its left lacks one",
    }),
    el("thead", {}, top, head),
    el("tbody", {}, ...rows),
  );
  document.getElementById("matrix").replaceChildren(table);
  // The second header row sticks below the first.
  table.style.setProperty("--first-row", `${top.getBoundingClientRect().height}px`);
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

// One link per resource class (and one for all), the current one marked: one class's groups
// fit the page's width. Drawn again only when the classes changed.
function classLinks(classes) {
  const nav = document.getElementById("class-links");
  const known = JSON.stringify(classes);
  if (nav.dataset.classes === known) return;
  nav.dataset.classes = known;
  const here = new URLSearchParams(location.search);
  const current = here.get("resource_class") || "";
  here.delete("marker");
  const link = (value, text) => {
    const query = new URLSearchParams(here);
    if (value) query.set("resource_class", value);
    else query.delete("resource_class");
    return el("li", {}, el("a", { href: `/ui/matrix.html?${query}`, "aria-current": value === current ? "page" : null, text }));
  };
  nav.replaceChildren(
    el("span", { id: "class-links-title", text: "Resource class:" }),
    el("ul", { "aria-labelledby": "class-links-title" }, link("", "all"), ...classes.map((c) => link(c, c))),
  );
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
      for (const group of body.groups) if (group.resource_class) classes.add(group.resource_class);
      classLinks([...classes].filter(Boolean).sort());
      options("resource-classes", [...classes].filter(Boolean).sort());
      options("traits", [...traits].sort());
    },
  );
}

main();
