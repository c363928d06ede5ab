/* global AgentbarHost, document, fetch, window */
// The demo CRM's page: customers with click-to-dial, and a card that pops when a customer's call
// rings, found by the caller's number. Everything Agentbar does here goes through the host SDK.

const $ = (selector) => document.querySelector(selector);
const appUrl = document.body.dataset.app;
const customers = await (await fetch("/customers.json")).json();
const history = new Map(); // customer id -> lines written after calls

/** Digits only, so that "5551 0660" finds a call from "55510660" (and "+46 8 555 0100" one from "+4685550100"). */
const digits = (number) => String(number).replace(/\D/g, "");
const customerByNumber = (number) => customers.find((c) => digits(c.phone) === digits(number) && digits(number) !== "");

/** A line for the user: `info` (what is going on) or `error` (what could not be done, and why, in words). */
function say(text, kind = "info") {
  $("#message").textContent = text;
  $("#message").dataset.kind = kind;
}

/** Why Agentbar refused, in words a CRM user understands (the SDK's error codes, docs/embedding.md). */
const REFUSALS = {
  "not-permitted": "This page is not allowed to do that in Agentbar's configuration",
  "invalid-state": "Not now: the agent's phone is busy with another call",
  "no-call": "There is no call to do that with",
  "not-signed-in": "Sign in to Agentbar first",
  "not-an-agent": "The signed-in user does not work in a queue",
  "invalid-destination": "That number cannot be dialled",
  "destination-not-allowed": "This page may not call that number",
  refused: "The phone system refused",
  timeout: "The phone system did not confirm in time",
  busy: "Too many requests at once: try again in a moment",
  disconnected: "Agentbar is not connected at the moment",
};

function element(tag, text, attributes = {}) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  return e;
}

function logEvent(name, data) {
  const line = element("li", `${new Date().toLocaleTimeString()} ${name} ${JSON.stringify(data)}`);
  $("#events").prepend(line);
  while ($("#events").children.length > 40) $("#events").lastElementChild.remove();
}

// ---- The customer list ----

for (const c of customers) {
  const row = element("tr");
  row.append(element("td", c.name), element("td", c.company));
  const phone = element("td");
  phone.append(element("a", c.phone, { href: `tel:${c.phone.replace(/\s/g, "")}` }));
  const call = element("td");
  call.append(element("button", "Call", { type: "button", "data-dial": c.phone, "aria-label": `Call ${c.name}` }));
  const demo = element("td");
  demo.append(
    element("button", "Calls us", {
      type: "button",
      "data-queue-call": c.id,
      "aria-label": `${c.name} calls the support queue`,
    }),
  );
  row.append(phone, call, demo);
  $("#customers").append(row);
}

document.addEventListener("click", async (e) => {
  const queueCall = e.target.closest?.("[data-queue-call]");
  if (!queueCall) return;
  const r = await fetch("/queue-calls", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ customer: queueCall.dataset.queueCall }),
  });
  say(
    r.ok ? "A simulated customer is calling the support queue." : `Could not start the simulated call (${r.status}).`,
    r.ok ? "info" : "error",
  );
});

// ---- The customer card ----

function showCard(call) {
  const customer = call.party ? customerByNumber(call.party.number) : undefined;
  $("#card").hidden = false;
  $("#card").dataset.customer = customer?.id ?? "";
  $("#card-title").textContent = customer
    ? `${customer.name}, ${customer.company}`
    : `Unknown caller ${call.party?.name ?? ""} ${call.party?.number ?? ""}`.trim();
  const facts = $("#card-facts");
  facts.replaceChildren();
  const fact = (name, value) => facts.append(element("dt", name), element("dd", value));
  if (customer) {
    fact("Phone", customer.phone);
    fact("Notes", customer.notes);
  }
  if (call.queue) fact("Queue", call.queue);
  // What came with the call (the IVR's input): the caller-data scope gives it.
  for (const [name, value] of Object.entries(call.data ?? {})) fact(name.replace(/^X-IVR-/i, "IVR "), value);
  $("#card-history").replaceChildren(...(history.get(customer?.id) ?? []).map((line) => element("li", line)));
}

function describeCall(call, what) {
  const who = call.party ? `${call.party.name || call.party.number}` : "a caller";
  return `${what}: ${who}${call.queue ? ` (queue ${call.queue})` : ""}`;
}

// ---- Agentbar ----

let bar;
try {
  bar = await AgentbarHost.embed({
    url: appUrl,
    container: $("#agentbar"),
    layout: "side",
    width: "100%",
    height: "100%",
  });
} catch (e) {
  // The SDK has put its notice where the frame was; the page says it too, once.
  $("#agent-status").textContent = "not connected";
  say(`Agentbar is not connected: ${e.message}`, "error");
}
if (bar) connected(bar);

/** Everything the page does with Agentbar once it answered. */
function connected(bar) {
  function showAgent(state) {
    const a = state.agent;
    const text = !state.user
      ? "not signed in"
      : !a
        ? "not in a queue"
        : `${a.status}${a.reason ? ` (${a.reason})` : ""}${a.pending ? `, changing to ${a.pending}` : ""}`;
    $("#agent-status").textContent = text;
  }
  showAgent(bar.state);
  bar.on("state", showAgent);

  // Every event, kept for the browser's console (and the end-to-end tests): `crm.events`, `crm.bar`.
  const events = [];
  window.crm = { bar, events };
  const EVENTS = [
    "session",
    "registration",
    "agent",
    "call.ringing",
    "call.dialling",
    "call.answered",
    "call.held",
    "call.resumed",
    "call.muted",
    "call.unmuted",
    "call.updated",
    "call.ended",
    "disconnected",
    "reconnected",
  ];
  for (const name of [...EVENTS, "wrapup.started", "wrapup.updated", "wrapup.ended", "error", "protocol-error"]) {
    bar.on(name, (data) => {
      events.push({ name, data, at: Date.now() });
      logEvent(name, data);
    });
  }

  // The screen-pop: the card is shown while the call still rings, before the agent answers.
  bar.on("call.ringing", ({ call }) => {
    showCard(call);
    $("#card-call").textContent = describeCall(call, "Ringing");
  });
  bar.on("call.dialling", ({ call }) => {
    if (call.party && customerByNumber(call.party.number)) showCard(call);
    $("#card-call").textContent = describeCall(call, "Calling");
  });
  bar.on("disconnected", () => say("Agentbar stopped answering: the page waits for it to come back.", "error"));
  bar.on("reconnected", () => say("Agentbar is back."));
  bar.on("call.answered", ({ call }) => ($("#card-call").textContent = describeCall(call, "On the call")));
  bar.on(
    "call.ended",
    ({ call, cause, hungUpBy }) =>
      ($("#card-call").textContent = `${describeCall(call, "Ended")}, ${cause}, hung up by ${hungUpBy}`),
  );
  bar.on("wrapup.ended", ({ wrapUp }) => {
    const id = $("#card").dataset.customer;
    if (!id) return;
    const line = `${new Date().toLocaleString()}: ${wrapUp.outcome || "no outcome"}${wrapUp.notes ? `, ${wrapUp.notes}` : ""}`;
    history.set(id, [...(history.get(id) ?? []), line]);
    $("#card-history").append(element("li", line));
  });

  const fail = (e) => say(`${REFUSALS[e.code] ?? "Agentbar could not do that"}. (${e.message})`, "error");

  // Click-to-dial: the Call buttons, and (opt-in) every tel: link of the page.
  document.addEventListener("click", (e) => {
    const button = e.target.closest?.("[data-dial]");
    if (!button) return;
    say(`Calling ${button.dataset.dial}…`);
    bar.dial(button.dataset.dial).then(() => say(""), fail);
  });
  bar.dialLinks(document, fail);

  document.addEventListener("click", (e) => {
    const button = e.target.closest?.("[data-status]");
    if (!button) return;
    bar
      .setStatus(button.dataset.status, button.dataset.reason)
      .then(({ applied }) => say(applied === "after-call" ? "The status applies when the call is over." : ""), fail);
  });
}
