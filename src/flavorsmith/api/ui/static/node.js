// A node (GET /v1/nodes/{ident}/matches): its resource class, traits, states and holds, the
// flavors it serves, and for every other flavor the matcher's reasons why not; "Explain" asks
// /v1/flavors/{flavor}/nodes/{node}/explain for the reasons by layer. Polled every 5 s: a trait
// changed through /baremetal shows without a reload.
import { api, el, explainError, flavorHref, shell, showStatus } from "/ui/common.js";

const POLL_MS = 5000;
const ident = new URLSearchParams(location.search).get("node") || "";
let shownGeneration = null;

function fact(term, value) {
  return [el("dt", { text: term }), el("dd", { text: value === null || value === undefined ? "—" : value })];
}

async function explain(flavor, button, target) {
  button.disabled = true;
  try {
    const body = await api(
      `/v1/flavors/${encodeURIComponent(flavor)}/nodes/${encodeURIComponent(ident)}/explain`,
    );
    const list = el("ul", { class: "explain" });
    for (const reason of body.reasons) {
      list.append(
        el(
          "li",
          { "data-layer": reason.layer },
          el("strong", { text: `${reason.layer}${reason.blocking ? "" : " (not blocking)"}: ` }),
          reason.detail,
        ),
      );
    }
    if (body.reasons.length === 0) list.append(el("li", { text: "Nothing stops it: schedulable." }));
    target.replaceChildren(list);
  } catch (error) {
    target.replaceChildren(el("p", { class: "error", role: "alert", text: explainError(error) }));
  } finally {
    button.disabled = false;
  }
}

function render(body) {
  const node = body.node;
  const label = node.name || node.uuid;
  document.title = `${label} · Node · Flavorsmith`;
  document.getElementById("title").textContent = `Node ${label}`;
  document.getElementById("facts").replaceChildren(
    ...fact("UUID", node.uuid),
    ...fact("Resource class", node.resource_class),
    ...fact("Provision state", node.provision_state),
    ...fact("Power state", node.power_state),
    ...fact("Maintenance", node.maintenance ? "yes" : "no"),
    ...fact("Inventory in Placement", node.inventory),
    ...fact("Available to schedule", node.available ? "yes" : "no"),
    ...fact("Node generation", body.generation),
  );
  const traits = document.getElementById("traits");
  traits.replaceChildren(...node.traits.map((t) => el("li", {}, el("code", { text: t }))));
  if (!node.traits.length) traits.append(el("li", { text: "No traits." }));
  const holds = document.getElementById("holds");
  holds.replaceChildren(...node.holds.map((h) => el("li", { "data-kind": h.kind, text: h.detail })));
  if (!node.holds.length) holds.append(el("li", { text: "Nothing: Nova may schedule on it." }));

  const serves = body.flavors.filter((f) => f.match);
  const list = document.getElementById("serves");
  list.replaceChildren(
    ...serves.map((f) => el("li", { "data-flavor": f.flavor }, el("a", { href: flavorHref(f.flavor), text: f.flavor }))),
  );
  if (!serves.length) list.append(el("li", { text: "None: no flavor can land on this node." }));

  const rows = body.flavors
    .filter((f) => !f.match)
    .map((f) => {
      const target = el("div", { class: "explained", "aria-live": "polite" });
      const button = el("button", { type: "button", text: "Explain", "aria-label": `Explain ${f.flavor} on this node` });
      button.addEventListener("click", () => explain(f.flavor, button, target));
      return el(
        "tr",
        { "data-flavor": f.flavor },
        el("th", { scope: "row" }, el("a", { href: flavorHref(f.flavor), text: f.flavor })),
        el(
          "td",
          {},
          el("ul", { class: "reasons" }, ...f.reasons.map((r) => el("li", { "data-kind": r.kind, text: r.detail }))),
        ),
        el("td", {}, button, target),
      );
    });
  const whynot = document.getElementById("whynot");
  if (!rows.length) {
    whynot.replaceChildren(el("p", { text: "Every flavor can land on this node." }));
  } else {
    whynot.replaceChildren(
      el(
        "table",
        { class: "whynot" },
        el("caption", { text: "The matcher's reasons, per flavor that cannot land on this node" }),
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", { scope: "col", text: "Flavor" }),
            el("th", { scope: "col", text: "Why not" }),
            el("th", { scope: "col", text: "By layer" }),
          ),
        ),
        el("tbody", {}, ...rows),
      ),
    );
  }
}

async function refresh() {
  if (document.hidden) return;
  try {
    const body = await api(`/v1/nodes/${encodeURIComponent(ident)}/matches`);
    if (body.generation !== shownGeneration) {
      render(body);
      shownGeneration = body.generation;
    }
    showStatus("");
    document.body.dataset.loaded = "true";
  } catch (error) {
    showStatus(explainError(error), true);
    document.body.dataset.loaded = "error";
  }
}

async function main() {
  shell("node");
  if (!ident) {
    showStatus("No node given: open a node from the capacity or matrix page.", true);
    document.body.dataset.loaded = "error";
    return;
  }
  await refresh();
  setInterval(refresh, POLL_MS);
}

main();
