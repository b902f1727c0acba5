// The review of a catalog change (GET /v1/review?base=REF&head=REF: what ``flavorsmith review
// -f json`` prints, on the service's own nodes): choose two revisions of the catalog the
// service reads (its branches, tags and last commits: GET /v1/review/refs; the head defaults to
// its working tree), then the headline, each changed flavor's nodes before → after, the flavors
// that become unschedulable, the nodes no flavor can use any more or that become usable, the
// pool leaks, the deploy templates, the Nova changes, the runbooks, the load-balancer flavors,
// the network flavors and the new catalog diagnostics.
import { api, el, flavorHref, loading, nodeHref, shell, showStatus } from "/ui/common.js";

shell("review");

const asked = new URLSearchParams(location.search);
const base = asked.get("base") || "";
const head = asked.get("head") || "";

const HEAD_DEFAULT = ["", "Working tree"];

function options(select, groups, chosen) {
  for (const [label, entries] of groups) {
    if (!entries.length) continue;
    const group = el("optgroup", { label });
    for (const [value, text] of entries) {
      group.append(el("option", { value, selected: value === chosen, text }));
    }
    select.append(group);
  }
}

// The choosers: branches and tags, then the last commits (each with its subject).
function choosers(refs, chosenBase, chosenHead) {
  const named = refs.refs.map((r) => [r.name, `${r.name} — ${r.subject}`]);
  const commits = refs.commits.map((c) => [c.commit, `${c.commit} — ${c.subject}`]);
  const groups = [
    ["Branches and tags", named],
    ["Recent commits", commits],
  ];
  const baseSelect = document.getElementById("base");
  const headSelect = document.getElementById("head");
  baseSelect.replaceChildren();
  headSelect.replaceChildren(el("option", { value: HEAD_DEFAULT[0], text: HEAD_DEFAULT[1] }));
  options(baseSelect, groups, chosenBase);
  options(headSelect, groups, chosenHead);
  // A ref typed into the URL that is no longer listed stays chosen.
  for (const [select, value] of [[baseSelect, chosenBase], [headSelect, chosenHead]]) {
    if (value && select.value !== value) select.append(el("option", { value, selected: true, text: value }));
  }
}

// ``before → after`` as ``review`` prints it ("new: N" for an added flavor, "N → gone").
function span(before, after) {
  if (before === null) return `new: ${after}`;
  if (after === null) return `${before} → gone`;
  return before !== after ? `${before} → ${after}` : String(after);
}

// ``+4``, ``−40`` (a minus sign, as typeset: as ``review`` prints it), ``0``.
function signed(number) {
  return number > 0 ? `+${number}` : number < 0 ? `\u2212${-number}` : "0";
}

function note(flavor) {
  const notes = [];
  if (flavor.status !== "kept") notes.push(flavor.status);
  if (flavor.unschedulable) notes.push("unschedulable");
  if (flavor.templates.selected.length) notes.push(`selects ${flavor.templates.selected.join(", ")}`);
  if (flavor.templates.dropped.length) notes.push(`drops ${flavor.templates.dropped.join(", ")}`);
  return notes.join("; ");
}

function flavorsTable(flavors) {
  const table = el(
    "table",
    { class: "review" },
    el("caption", { text: `Flavors (${flavors.length} changed): nodes before → after` }),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ...["Flavor", "Matching", "Available", "Change", "Note"].map((t) => el("th", { scope: "col", text: t })),
      ),
    ),
  );
  const body = el("tbody");
  for (const flavor of flavors) {
    const change = flavor.available.change;
    const name = flavor.status === "removed" ? flavor.flavor : el("a", { href: flavorHref(flavor.flavor), text: flavor.flavor });
    body.append(
      el(
        "tr",
        { "data-flavor": flavor.flavor },
        el("th", { scope: "row" }, name),
        el("td", { text: span(flavor.matching.before, flavor.matching.after) }),
        el("td", { text: span(flavor.available.before, flavor.available.after) }),
        el("td", { class: change < 0 ? "loss" : change > 0 ? "gain" : null, text: signed(change) }),
        el("td", { text: note(flavor) }),
      ),
    );
  }
  table.append(body);
  return table;
}

function leakLine(leak) {
  return leak.summary;
}

// The service holds no servers, so its review counts none (`flavorsmith review --cloud` asks
// the real Nova and says how many use each flavor a change deletes or replaces).
function novaLine(entry) {
  return `${entry.action} ${entry.flavor}: ${entry.reason}`;
}

function stepNames(steps) {
  return steps ? steps.map((s) => `${s.order} ${s.interface}.${s.step}`).join(", ") || "none" : "none";
}

// A runbook added, removed or changed: its changed fields, the nodes that may run it before →
// after, how many gain or lose the right, and its steps when they changed.
function runbookLine(r) {
  const fields = r.fields.length ? ` (${r.fields.join(", ")})` : "";
  const n = r.nodes;
  let line = `${r.runbook} ${r.status}${fields}: ${n.before} → ${n.after} nodes may run it`;
  if (n.gaining.length) line += `; ${n.gaining.length} gain the right`;
  if (n.losing.length) line += `; ${n.losing.length} lose it`;
  const before = stepNames(r.steps.before);
  const after = stepNames(r.steps.after);
  if (before !== after) line += `; steps: ${before} → ${after}`;
  return line;
}

function lbValue(value) {
  return value === null ? "absent" : JSON.stringify(value);
}

function lbChanges(changes) {
  return changes.map((c) => `${c.field}: ${lbValue(c.before)} → ${lbValue(c.after)}`).join("; ");
}

// A load-balancer profile or flavor added, removed or changed: each field old → new, and
// whether Octavia would make it again (as ``review`` says it).
function lbLines(lbs) {
  const out = [];
  for (const p of lbs.profiles) {
    let line = `profile ${p.profile} ${p.status}`;
    if (p.changes.length) line += `: ${lbChanges(p.changes)}`;
    if (p.replaced) line += "; replaced, its flavors made again on the new profile";
    out.push(line);
  }
  for (const f of lbs.flavors) {
    let line = `flavor ${f.flavor} (profile ${f.profile.after ?? f.profile.before}) ${f.status}`;
    if (f.changes.length) line += `: ${lbChanges(f.changes)}`;
    if (f.replaced) line += "; replaced: deleted and made again";
    out.push(line);
  }
  return out;
}

// A network flavor added, removed or changed: each field old → new, whether Neutron would make
// it again (a new service_type), and how many service profiles an update makes and removes
// (Neutron changes no profile a flavor uses): as ``review`` says it.
function netLine(f) {
  let line = `flavor ${f.flavor} ${f.status}`;
  if (f.changes.length) line += `: ${lbChanges(f.changes)}`;
  if (f.replaced) line += "; replaced: deleted and made again with its profiles";
  const made = f.profiles.made.length;
  const removed = f.profiles.removed.length;
  if (made || removed) line += `; service profiles: ${made} made and associated, ${removed} removed`;
  return line;
}

function diagnosticLine(d) {
  return `${d.path}:${d.line}: ${d.field}: ${d.message}`;
}

// One part of the detail: a heading with its count, then its items (left out when empty).
function part(id, title, items, item) {
  if (!items.length) return null;
  const list = el("ul", { class: "names" });
  for (const entry of items) list.append(el("li", {}, item(entry)));
  if (items.length > 8 && typeof items[0] === "string") list.classList.add("columns");
  return el("section", { id, "aria-labelledby": `${id}-title` }, el("h2", { id: `${id}-title`, text: `${title} (${items.length})` }), list);
}

function templates(flavors) {
  const out = [];
  for (const f of flavors) {
    for (const t of f.templates.selected) out.push(`${f.flavor} selects ${t}`);
    for (const t of f.templates.dropped) out.push(`${f.flavor} drops ${t}`);
  }
  return out;
}

function report(review) {
  const area = document.getElementById("report");
  const flavorLink = (name) => el("a", { href: flavorHref(name), text: name });
  const nodeLink = (name) => el("a", { href: nodeHref(name), text: name });
  const text = (line) => line;
  const parts = [
    el("h2", { id: "headline", text: review.headline }),
    el("p", { class: "hint", text: `${review.base} → ${review.head}, on the service's ${review.fleet.nodes_before} nodes.` }),
    review.flavors.length ? flavorsTable(review.flavors) : null,
    part("unschedulable", "Flavors that become unschedulable", review.unschedulable, flavorLink),
    part("unusable", "Nodes no flavor can use any more", review.nodes.unusable, nodeLink),
    part("usable", "Nodes that become usable", review.nodes.usable, nodeLink),
    part("leaks-started", "Pools that start leaking", review.pool_leaks.started, leakLine),
    part("leaks-stopped", "Pools that stop leaking", review.pool_leaks.stopped, leakLine),
    part("templates", "Deploy templates", templates(review.flavors), text),
    part("nova", "Nova changes", review.nova, novaLine),
    part("runbooks", "Runbooks", review.runbooks || [], runbookLine),
    part("load-balancers", "Load-balancer flavors", lbLines(review.load_balancer_flavors || { profiles: [], flavors: [] }), text),
    part("network-flavors", "Network flavors", review.network_flavors || [], netLine),
    part("errors", "New catalog errors", review.diagnostics.errors, diagnosticLine),
    part("warnings", "New catalog warnings", review.diagnostics.warnings, diagnosticLine),
  ];
  area.replaceChildren(...parts.filter((p) => p !== null));
}

loading(async () => {
  choosers(await api("/v1/review/refs"), base, head);
  if (!base) {
    document.getElementById("report").replaceChildren(
      el("p", { text: "Choose the revision the change starts from (base) and the changed one (head), then Review." }),
    );
    return;
  }
  const query = new URLSearchParams({ base });
  if (head) query.set("head", head);
  report(await api(`/v1/review?${query}`));
});
