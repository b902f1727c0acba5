// A flavor: its catalog definition (GET /v1/catalog/flavors/{name}), the Nova flavor derived
// from it with every extra spec (/v1/catalog/nova-flavors), its nodes counted by reason
// (/v1/flavors/{name}/explain, what `flavorsmith explain FLAVOR` prints) and its nodes
// (/v1/flavors/{name}/nodes, the first page).
import { api, el, explainError, nodeHref, shell, showStatus } from "/ui/common.js";

const NODES_SHOWN = 200;
const name = new URLSearchParams(location.search).get("name") || "";
const path = encodeURIComponent(name);

function facts(id, pairs) {
  document.getElementById(id).replaceChildren(
    ...pairs.flatMap(([term, value]) => [
      el("dt", { text: term }),
      el("dd", { text: value === null || value === undefined || value === "" ? "—" : value }),
    ]),
  );
}

function table(caption, headers, rows, attrs = {}) {
  return el(
    "table",
    attrs,
    el("caption", { text: caption }),
    el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...rows),
  );
}

function render(flavor, nova, explained, nodes) {
  document.title = `${flavor.name} · Flavor · Flavorsmith`;
  document.getElementById("title").textContent = `Flavor ${flavor.name}`;
  document.getElementById("description").textContent = flavor.description || "";
  facts("catalog", [
    ["Resource class", flavor.resource_class],
    ["Public", flavor.is_public ? "yes" : "no"],
    ["Projects", flavor.projects ? flavor.projects.join(", ") : null],
  ]);
  const traits = document.getElementById("traits");
  traits.replaceChildren(
    ...flavor.traits.map((t) =>
      el("li", { "data-state": t.state }, el("code", { text: t.full_name }), ` (${t.state})`),
    ),
  );
  if (!flavor.traits.length) traits.append(el("li", { text: "No traits." }));

  if (nova) {
    facts("nova", [
      ["ID", nova.id],
      ["vCPUs", nova.vcpus],
      ["RAM (MiB)", nova.ram],
      ["Disk (GiB)", nova.disk],
      ["Ephemeral (GiB)", nova.ephemeral],
      ["Swap (MiB)", nova.swap],
    ]);
    const specs = Object.entries(nova.extra_specs);
    document.getElementById("extra-specs").replaceChildren(
      table(
        `Extra specs of ${nova.name} (${specs.length})`,
        ["Key", "Value"],
        specs.map(([key, value]) =>
          el("tr", { "data-key": key }, el("th", { scope: "row" }, el("code", { text: key })), el("td", {}, el("code", { text: value }))),
        ),
        { class: "specs" },
      ),
    );
  } else {
    document.getElementById("extra-specs").replaceChildren(
      el("p", { text: "No Nova flavor is derived from it (see `flavorsmith nova-flavors`)." }),
    );
  }

  document.getElementById("explain-summary").textContent =
    `${explained.summary} (of ${explained.nodes} nodes; ${explained.candidates} candidates).`;
  document.getElementById("explain").replaceChildren(
    table(
      "Nodes by reason",
      ["Reason", "Nodes"],
      explained.counts.map((c) =>
        el(
          "tr",
          { "data-reason": c.reason },
          el("th", { scope: "row", text: c.subject ? `${c.reason}: ${c.subject}` : c.reason }),
          el("td", { class: "num", text: c.count }),
        ),
      ),
      { class: "explain-counts" },
    ),
  );

  document.getElementById("nodes-count").textContent =
    nodes.count > nodes.nodes.length
      ? `${nodes.count} nodes; the first ${nodes.nodes.length} below.`
      : `${nodes.count} nodes.`;
  document.getElementById("nodes").replaceChildren(
    ...nodes.nodes.map((n) =>
      el(
        "li",
        { "data-available": n.available },
        el("a", { href: nodeHref(n.name || n.uuid), text: n.name || n.uuid }),
        n.available ? " (available)" : " (not available)",
      ),
    ),
  );
}

async function main() {
  shell("flavor");
  if (!name) {
    showStatus("No flavor given: open a flavor from the capacity or matrix page.", true);
    document.body.dataset.loaded = "error";
    return;
  }
  try {
    const [flavor, nova, explained, nodes] = await Promise.all([
      api(`/v1/catalog/flavors/${path}`),
      api("/v1/catalog/nova-flavors"),
      api(`/v1/flavors/${path}/explain`),
      api(`/v1/flavors/${path}/nodes?limit=${NODES_SHOWN}`),
    ]);
    render(flavor, nova.nova_flavors.find((f) => f.name === name), explained, nodes);
    showStatus("");
    document.body.dataset.loaded = "true";
  } catch (error) {
    showStatus(explainError(error), true);
    document.body.dataset.loaded = "error";
  }
}

main();
