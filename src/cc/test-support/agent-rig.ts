import { afterEach, vi } from "vitest";
import { createSessionStore, createSettingsStore, memoryStorage, type KeyValueStorage } from "../../session";
import { alice, fakePlatform } from "../../session/test-support/fake-platform";
import type { Call, IncomingCall, PageEventTarget } from "../../softphone";
import { until } from "../../softphone/testing/phone-rig";
import { testCall } from "../../softphone/testing/test-call";
import { createAgentSession } from "../agent-session";
import type { AgentState } from "../agent-state";
import { createEventFeed } from "../event-feed";
import { CC } from "../queue-calls";
import { FakeCallCenter } from "./fake-call-center";
import { fakePhoneSession } from "./fake-phone";

/**
 * An agent session for unit tests: a scripted call center (FakeCallCenter) behind the platform's
 * HTTP shapes and event feed, and a fake phone whose calls the test sets. `cleanups` are run by
 * the test file after each test.
 */
export function agentRig(
  cleanups: Array<() => unknown>,
  o: {
    cc?: FakeCallCenter;
    storage?: KeyValueStorage;
    tabStorage?: KeyValueStorage;
    events?: boolean;
    confirmTimeoutMs?: number;
    page?: PageEventTarget;
    callDataHeaders?: readonly string[];
  } = {},
) {
  const fcc = o.cc ?? new FakeCallCenter();
  const platform = fakePlatform();
  platform.overrides.push(fcc.route);
  const device = o.storage ?? memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({
    settings,
    tabStorage: memoryStorage(),
    deviceStorage: device,
    fetch: platform.fetch,
    pageOrigin: "https://app.test",
  });
  const { session: phoneSession, phone, hooks } = fakePhoneSession();
  const feed = createEventFeed({
    session,
    settings,
    pageHref: () => "https://app.test/",
    ...(o.events === false ? {} : { connect: fcc.events }),
  });
  cleanups.push(() => feed.dispose());
  const agent = createAgentSession({
    session,
    phoneSession,
    settings,
    deviceStorage: device,
    tabStorage: o.tabStorage ?? memoryStorage(),
    feed,
    confirmTimeoutMs: o.confirmTimeoutMs ?? 3000,
    pollMs: { events: 60_000, call: 60_000, polling: 100, setup: 100 },
    page: o.page ?? null,
    ...(o.callDataHeaders ? { callDataHeaders: () => o.callDataHeaders! } : {}),
  });
  cleanups.push(() => agent.dispose());
  const store = agent.store;
  return {
    agent,
    actions: agent.actions,
    dispatch: agent.dispatch,
    phone,
    fcc,
    platform,
    device,
    settings,
    session,
    store,
    callsStore: phone.callsStore,
    hooks,
    signIn: () =>
      session.getState().signIn({ login: "agent1", password: alice.password, platformUrl: "https://pbx.example.com" }),
    register: () => phone.phoneStore.setState({ registration: { status: "registered", registeredAt: Date.now() } }),
    /** Signed in, registered, in the queues, with the event channel open and carrying events (`quiet`: open and silent). */
    async working({ quiet = false } = {}) {
      await this.signIn();
      this.register();
      await until(store, (s) => s.phase === "on" && s.agent !== null);
      fcc.setOpen(true);
      // Another agent's event: the channel carries events.
      if (!quiet) fcc.emit({ "CC-Action": "agent-state-change", "CC-Agent": "9999", "CC-Agent-State": "Waiting" });
    },
    until: (pred: (s: AgentState) => boolean) => until(store, pred),
  };
}

export type AgentRig = ReturnType<typeof agentRig>;

/**
 * For a test file whose tests each build agent sessions: returns a `setup` whose rigs (and fake
 * timers) are undone after each test, and `setup.endLast()` to end the last one sooner.
 */
export function agentRigs() {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    vi.useRealTimers();
  });
  const setup = (o: Parameters<typeof agentRig>[1] = {}) => agentRig(cleanups, o);
  /** Ends the rig built last, as a page that goes away (a reload, a crash). */
  const endLast = async () => cleanups.pop()?.();
  return Object.assign(setup, { endLast });
}

/** A call as the phone's store holds it, from Carla Customer unless `patch` says otherwise. */
export const call = (patch: Partial<Call>): Call =>
  testCall({
    remote: { number: "5550100", name: "Carla Customer", uri: "sip:5550100@agentbar.local", withheld: false },
    startedAt: Date.now(),
    ...patch,
  });

/** A queue call ringing, labelled as the call-center hook labels it. */
export const queueCall = (id = "call-1", leg = "leg-1") =>
  call({
    id,
    context: { [CC.action]: "queue", [CC.callId]: leg, [CC.queue]: "support", [CC.customerUuid]: `customer-of-${leg}` },
  });

/** An INVITE reaching the phone with these headers, as the call-center hook sees it. */
export function invite(headers: Record<string, string>): IncomingCall {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    call: call({ id: "incoming-1" }),
    requestUri: "sip:1001@agentbar.local",
    header: (name) => lower.get(name.toLowerCase()),
    headers: (name) => [lower.get(name.toLowerCase()) ?? []].flat(),
    headerNames: () => Object.keys(headers),
    autoAnswer: { answer: false, reason: "no-marker" },
  };
}

/** A queue call rings, is answered, and ends, as the phone reports it. */
export function takeQueueCall(t: AgentRig, id = "call-1", leg = "leg-1") {
  const c = queueCall(id, leg);
  t.callsStore.setState({ calls: [c] });
  t.callsStore.setState({ calls: [{ ...c, state: "active", answeredAt: Date.now() }] });
  t.callsStore.setState({
    calls: [
      { ...c, state: "ended", answeredAt: Date.now(), endedAt: Date.now(), end: { kind: "hangup", by: "remote" } },
    ],
  });
}
