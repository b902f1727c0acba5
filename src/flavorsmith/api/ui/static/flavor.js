// A flavor: its catalog definition and file (GET /v1/catalog/flavors/{name}), the Nova flavor
// derived from it (/v1/catalog/nova-flavors) with every extra spec and the validator's verdict,
// its deploy templates, its nodes counted by reason (/v1/flavors/{name}/explain, what
// `flavorsmith explain FLAVOR` prints) and its nodes (/v1/flavors/{name}/nodes, the first page).
// On a node chosen in a form: Explain (/v1/flavors/{name}/nodes/{node}/explain, the reasons by
// layer) and the deploy-step plan (/v1/flavors/{name}/nodes/{node}/deploy-plan, what
// `flavorsmith deploy plan NODE --flavor FLAVOR` prints).
import { api, el, explainError, loading, nodeHref, reasonsList, shell, showStatus } from "/ui/common.js";

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
    ["File", flavor.file],
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
    const specs = flavor.extra_specs;
    document.getElementById("extra-specs").replaceChildren(
      table(
        `Extra specs of ${nova.name} (${specs.length}), each with the validator's verdict`,
        ["Key", "Value", "Verdict", "Validator"],
        specs.map((v) =>
          el(
            "tr",
            { "data-key": v.key, "data-status": v.status, "data-valid": String(v.valid) },
            el("th", { scope: "row" }, el("code", { text: v.key })),
            el("td", {}, el("code", { text: v.value })),
            el(
              "td",
              { class: v.valid ? "ok verdict" : "fail verdict" },
              `${v.valid ? "✓" : "✗"} ${v.status === "valid" ? "valid" : `${v.status}: ${v.message}`}`,
              v.deprecated ? ` (deprecated: use ${v.deprecated})` : "",
            ),
            el("td", {}, v.validator ? el("code", { text: v.validator }) : "—"),
          ),
        ),
        { class: "specs" },
      ),
    );
  } else {
    document.getElementById("extra-specs").replaceChildren(
      el("p", { text: "No Nova flavor is derived from it (see `flavorsmith nova-flavors`)." }),
    );
  }

  const templates = document.getElementById("templates");
  if (!flavor.deploy_templates.length) {
    templates.replaceChildren(el("p", { text: "None: no required trait names a deploy template." }));
  } else {
    templates.replaceChildren(
      ...flavor.deploy_templates.map((t) =>
        el(
          "section",
          { class: "template", "data-template": t.name },
          el("h3", {}, el("code", { text: t.name })),
          el("p", { text: t.description || "" }),
          table(
            `Steps of ${t.name}`,
            ["Interface", "Step", "Priority", "Arguments"],
            t.steps.map((step) =>
              el(
                "tr",
                {},
                el("td", { text: step.interface }),
                el("th", { scope: "row" }, el("code", { text: step.step })),
                el("td", { class: "num", text: step.priority }),
                el("td", {}, el("code", { text: JSON.stringify(step.args) })),
              ),
            ),
            { class: "steps" },
          ),
        ),
      ),
    );
  }
  const choices = document.getElementById("node-choices");
  choices.replaceChildren(...nodes.nodes.map((n) => el("option", { value: n.name || n.uuid })));
  const field = document.getElementById("on-node");
  if (!field.value && nodes.nodes.length) field.value = nodes.nodes[0].name || nodes.nodes[0].uuid;

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

function onNodePath(suffix) {
  const node = document.getElementById("on-node").value.trim();
  return `/v1/flavors/${path}/nodes/${encodeURIComponent(node)}/${suffix}`;
}

async function showOnNode(work) {
  const target = document.getElementById("on-node-result");
  target.setAttribute("aria-busy", "true");
  try {
    target.replaceChildren(...(await work()));
  } catch (error) {
    target.replaceChildren(el("p", { class: "error", role: "alert", text: explainError(error) }));
  } finally {
    target.removeAttribute("aria-busy");
    document.body.dataset.onNode = String(Number(document.body.dataset.onNode || 0) + 1);
  }
}

async function planDeploy() {
  const source = document.getElementById("template-source").value;
  const plan = await api(`${onNodePath("deploy-plan")}?templates=${encodeURIComponent(source)}`);
  const steps = plan.steps.map((step, index) =>
    el(
      "tr",
      { "data-source": step.source },
      el("td", { class: "num", text: index + 1 }),
      el("td", { text: step.interface }),
      el("th", { scope: "row" }, el("code", { text: step.step })),
      el("td", { class: "num", text: step.priority }),
      el("td", { text: step.source }),
      el("td", {}, Object.keys(step.args).length ? el("code", { text: JSON.stringify(step.args) }) : "—"),
    ),
  );
  const decisions = plan.templates.map((t) =>
    el(
      "li",
      { "data-template": t.template, "data-applied": String(t.applied) },
      el("strong", { text: `${t.applied ? "✓ applied" : "– not applied"}: ` }),
      el("code", { text: t.template }),
      ` (${t.reason})`,
    ),
  );
  return [
    el("h3", { id: "plan-title", text: `Deploy-step plan on ${plan.node} (driver ${plan.driver})` }),
    el("p", { text: `Instance traits: ${plan.instance_traits.join(", ") || "none"}.` }),
    ...plan.errors.map((e) => el("p", { class: "error plan-error", text: `Refused: ${e}` })),
    table("The steps, in the order Ironic runs them", ["#", "Interface", "Step", "Priority", "From", "Arguments"], steps, {
      class: "plan",
    }),
    decisions.length ? el("ul", { class: "decisions" }, ...decisions) : el("p", { text: "No deploy template to consider." }),
  ];
}

async function explainNode() {
  const body = await api(onNodePath("explain"));
  const node = document.getElementById("on-node").value.trim();
  return [
    el("h3", { text: `Why ${name} can or cannot land on ${node}, by layer` }),
    reasonsList(body.reasons),
  ];
}

async function main() {
  document.getElementById("node-form").addEventListener("submit", (event) => {
    event.preventDefault();
    showOnNode(planDeploy);
  });
  document.getElementById("explain-node").addEventListener("click", () => showOnNode(explainNode));
  shell("flavor");
  if (!name) {
    showStatus("No flavor given: open a flavor from the capacity or matrix page.", true);
    document.body.dataset.loaded = "error";
    return;
  }
  await loading(async () => {
    const [flavor, nova, explained, nodes] = await Promise.all([
      api(`/v1/catalog/flavors/${path}`),
      api("/v1/catalog/nova-flavors"),
      api(`/v1/flavors/${path}/explain`),
      api(`/v1/flavors/${path}/nodes?limit=${NODES_SHOWN}`),
    ]);
    render(flavor, nova.nova_flavors.find((f) => f.name === name), explained, nodes);
  });
}

main();
