// A node (GET /v1/nodes/{ident}/matches): its resource class, traits (each with its owner: a
// trait-rule file, Nova or by hand), states and holds, the flavors it serves, and for every
// other flavor the matcher's reasons why not; "Explain" asks
// /v1/flavors/{flavor}/nodes/{node}/explain for the reasons by layer. Its last classification
// (GET /v1/nodes/{ident}/inspection): the device type, each candidate's per-field checks, and
// the rule behind each trait. The catalog's runbooks (GET /v1/nodes/{ident}/runbooks, the
// report of `flavorsmith runbook plan NODE`): which it may run, because of which of its traits,
// and the steps each would run in order on its driver. Polled every 5 s: a trait changed
// through /baremetal shows without a reload.
import { api, el, explainError, flavorHref, reasonsList, shell, showStatus } from "/ui/common.js";

const POLL_MS = 5000;
const ident = new URLSearchParams(location.search).get("node") || "";
let shownAnswer = null;

function fact(term, value) {
  return [el("dt", { text: term }), el("dd", { text: value === null || value === undefined ? "—" : value })];
}

async function explain(flavor, button, target) {
  // aria-disabled, not disabled: a disabled button loses the keyboard's focus.
  if (button.getAttribute("aria-disabled") === "true") return;
  button.setAttribute("aria-disabled", "true");
  try {
    const body = await api(
      `/v1/flavors/${encodeURIComponent(flavor)}/nodes/${encodeURIComponent(ident)}/explain`,
    );
    target.replaceChildren(reasonsList(body.reasons));
  } catch (error) {
    target.replaceChildren(el("p", { class: "error", role: "alert", text: explainError(error) }));
  } finally {
    button.removeAttribute("aria-disabled");
  }
}

function table(className, caption, headings, rows) {
  return el(
    "table",
    { class: className },
    el("caption", { text: caption }),
    el("thead", {}, el("tr", {}, ...headings.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...rows),
  );
}

// Why the last classification set each trait, by trait (its rule and the evidence).
let because = new Map();

function renderTraits(owners) {
  const target = document.getElementById("traits");
  if (!owners.length) {
    target.replaceChildren(el("p", { text: "No traits." }));
    return;
  }
  const rows = owners.map((o) => {
    const reason = because.get(o.trait);
    return el(
      "tr",
      { "data-trait": o.trait, "data-owner": o.owner },
      el("th", { scope: "row" }, el("code", { text: o.trait })),
      el("td", { class: "owner", text: o.owner }),
      el("td", { class: "rules", text: o.rules.join(", ") || "—" }),
      el("td", { class: "because", text: reason ? `${reason.rule}: ${reason.because}` : "—" }),
    );
  });
  target.replaceChildren(
    table("traits", "Each trait, who decides it (trait-rule file, Nova, or by hand) and why the last classification set it", ["Trait", "Owner", "Rules that add it", "Last classification"], rows),
  );
}

function renderClassification(body) {
  const target = document.getElementById("classification");
  const result = body.classification;
  if (!result) {
    target.replaceChildren(
      el("p", { id: "classified", text: "Never classified: no inspection data was stored for this node." }),
    );
    return;
  }
  const candidates = result.candidates.map((c) =>
    el(
      "tr",
      { "data-device-type": c.device_type, "data-resource-class": c.resource_class, "data-match": String(c.match) },
      el("th", { scope: "row" }, el("code", { text: c.device_type }), " → ", el("code", { text: c.resource_class })),
      el("td", {}, el("strong", { class: c.match ? "ok" : "fail", text: c.match ? "matches" : "does not match" })),
      el(
        "td",
        {},
        el(
          "ul",
          { class: "checks" },
          ...c.checks.map((k) =>
            el(
              "li",
              { "data-field": k.field, "data-ok": String(k.ok), class: k.ok ? "ok" : "fail" },
              el("span", { class: "mark", text: k.ok ? "✓ " : "✗ " }),
              el("code", { text: k.field }),
              `: ${k.detail}`,
            ),
          ),
        ),
      ),
    ),
  );
  const reasons = result.trait_reasons.map((r) =>
    el(
      "tr",
      { "data-trait": r.trait },
      el("th", { scope: "row" }, el("code", { text: r.trait })),
      el("td", { text: r.rules }),
      el("td", { text: r.rule }),
      el("td", { text: r.because }),
    ),
  );
  const changed = [
    ...result.traits_added.map((t) => `+${t}`),
    ...result.traits_removed.map((t) => `−${t}`),
  ];
  target.replaceChildren(
    el(
      "dl",
      { class: "facts" },
      ...fact("Classified at", body.classified_at),
      ...fact("Outcome", result.outcome),
      ...fact("Summary", result.summary),
      ...fact("Traits changed", changed.join(" ") || "none"),
    ),
    candidates.length
      ? table("candidates", "Each device type's checks, field by field", ["Device type → resource class", "Verdict", "Checks"], candidates)
      : null,
    reasons.length
      ? table("trait-reasons", "The traits the trait rules set, and why", ["Trait", "Rule file", "Rule", "Because"], reasons)
      : el("p", { text: "No trait rule set a trait." }),
  );
}

function stepText(step) {
  const args = Object.keys(step.args || {}).length ? ` ${JSON.stringify(step.args)}` : "";
  return `${step.interface}.${step.step}${args}`;
}

function renderRunbooks(plan) {
  const target = document.getElementById("runbooks");
  if (!plan.runbooks.length) {
    target.replaceChildren(el("p", { text: "No runbooks: the catalog has none you may see (hardware/runbooks/)." }));
    return;
  }
  const rows = plan.runbooks.map((r) =>
    el(
      "tr",
      { "data-runbook": r.runbook, "data-allowed": String(r.allowed) },
      el("th", { scope: "row" }, el("code", { text: r.runbook })),
      el("td", {}, el("strong", { class: r.allowed ? "ok" : "fail", text: r.allowed ? "may run" : "may not run" })),
      el("td", { class: "why", text: r.reason }),
      el(
        "td",
        {},
        r.steps.length
          ? el(
              "ol",
              { class: "steps" },
              ...r.steps.map((s) =>
                el("li", { "data-order": String(s.order) }, el("span", { class: "order", text: `${s.order} ` }), el("code", { text: stepText(s) })),
              ),
            )
          : "—",
      ),
    ),
  );
  const problems = plan.problems.map((p) => el("li", { class: "fail", text: p }));
  target.replaceChildren(
    table(
      "runbooks",
      `The catalog's runbooks on driver ${plan.driver}: a node may run one when it has one of its traits`,
      ["Runbook", "Verdict", "Why", "Steps, in order"],
      rows,
    ),
    ...(problems.length
      ? [
          el("p", { text: "Steps this node's driver does not offer (Ironic fails the runbook there):" }),
          el("ul", { class: "problems" }, ...problems),
        ]
      : []),
  );
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
  document.querySelector("#facts dd:last-of-type").id = "generation";
  renderTraits(body.trait_owners);
  const holds = document.getElementById("holds");
  holds.replaceChildren(...node.holds.map((h) => el("li", { "data-kind": h.kind, text: h.detail })));
  if (!node.holds.length) holds.append(el("li", { text: "Nothing: Nova may schedule on it." }));

  const serves = body.flavors.filter((f) => f.match);
  const list = document.getElementById("serves");
  list.replaceChildren(
    ...serves.map((f) => el("li", { "data-flavor": f.flavor }, el("a", { href: flavorHref(f.flavor), text: f.flavor }))),
  );
  if (!serves.length) list.append(el("li", { text: "None: no flavor can land on this node." }));

  // A redraw keeps what the reader opened: each Explain answer shown (asked again, as the node
  // changed) and the focus on an Explain button.
  const opened = new Map(
    [...document.querySelectorAll("#whynot tr[data-flavor]")]
      .map((tr) => [tr.dataset.flavor, tr.querySelector(".explained")])
      .filter(([, target]) => target && target.childNodes.length),
  );
  const focused = document.activeElement && document.activeElement.closest("#whynot tr[data-flavor]");
  const refocus = focused ? focused.dataset.flavor : null;
  const buttons = new Map();
  const rows = body.flavors
    .filter((f) => !f.match)
    .map((f) => {
      const target = el("div", { class: "explained", "aria-live": "polite" });
      const button = el("button", { type: "button", text: "Explain", "aria-label": `Explain ${f.flavor} on this node` });
      button.addEventListener("click", () => explain(f.flavor, button, target));
      buttons.set(f.flavor, button);
      if (opened.has(f.flavor)) {
        target.replaceChildren(...opened.get(f.flavor).childNodes);
        explain(f.flavor, button, target);
      }
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
  if (refocus && buttons.has(refocus)) buttons.get(refocus).focus();
}

let busy = false;

// Ask again; redraw only when this node's answer or its classification changed (a change to
// another node moves the node generation alone: only that number is shown again).
async function refresh() {
  if (document.hidden || busy) return;
  busy = true;
  try {
    const path = `/v1/nodes/${encodeURIComponent(ident)}`;
    const [body, last, runbooks] = await Promise.all([
      api(`${path}/matches`),
      api(`${path}/inspection`),
      api(`${path}/runbooks`),
    ]);
    const shown = JSON.stringify([{ ...body, generation: null }, last, runbooks]);
    if (shown !== shownAnswer) {
      because = new Map(((last.classification || {}).trait_reasons || []).map((r) => [r.trait, r]));
      render(body);
      renderClassification(last);
      renderRunbooks(runbooks);
      shownAnswer = shown;
      document.body.dataset.renders = String(Number(document.body.dataset.renders || 0) + 1);
    } else {
      document.getElementById("generation").textContent = body.generation;
    }
    showStatus("");
    document.body.dataset.loaded = "true";
  } catch (error) {
    showStatus(explainError(error), true);
    document.body.dataset.loaded = "error";
  } finally {
    busy = false;
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
