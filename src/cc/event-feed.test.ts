import { afterEach, describe, expect, it } from "vitest";
import { createSessionStore, createSettingsStore, memoryStorage } from "../session";
import { alice, fakePlatform } from "../session/test-support/fake-platform";
import type { CallCenterEventData } from "./agent-status";
import { createEventFeed, matchesFilter, type EventConnector } from "./event-feed";

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A connector the test drives: it records each connection and pushes events into the open one. */
function scriptedChannel() {
  const opened: {
    login: string;
    url: string;
    token: () => string;
    closed: boolean;
    push(e: Record<string, string>): void;
    open(isOpen: boolean): void;
    refuse(): void;
  }[] = [];
  const connect: EventConnector = (o) => {
    const c = {
      login: o.login,
      url: o.url,
      token: o.token,
      closed: false,
      push: (e: Record<string, string>) => o.onEvent({ "Event-Subclass": "callcenter::info", ...e }),
      open: (isOpen: boolean) => o.onOpenChange(isOpen),
      refuse: () => o.onTokenRefused(),
    };
    opened.push(c);
    return { close: () => void (c.closed = true) };
  };
  return { connect, opened, last: () => opened.at(-1)! };
}

function setup() {
  const platform = fakePlatform();
  const device = memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({
    settings,
    tabStorage: memoryStorage(),
    deviceStorage: device,
    fetch: platform.fetch,
    pageOrigin: "https://app.test",
  });
  const channel = scriptedChannel();
  const feed = createEventFeed({
    session,
    settings,
    pageHref: () => "https://app.test/",
    connect: channel.connect,
    now: () => 1234,
  });
  cleanups.push(() => feed.dispose());
  return {
    platform,
    session,
    settings,
    channel,
    feed,
    signIn: () =>
      session.getState().signIn({ login: "agent1", password: alice.password, platformUrl: "https://pbx.example.com" }),
  };
}

const status = (agent: string, value: string) => ({
  "CC-Action": "agent-status-change",
  "CC-Agent": agent,
  "CC-Agent-Status": value,
});

describe("the call-center event feed", () => {
  it("opens one channel while anyone listens, for the signed-in extension, and closes it when the last listener leaves", async () => {
    const t = setup();
    await t.signIn();
    expect(t.channel.opened).toHaveLength(0);
    const first = t.feed.subscribe({}, () => {});
    const second = t.feed.subscribe({ agents: ["1002"] }, () => {});
    expect(t.channel.opened).toHaveLength(1);
    expect(t.channel.last()).toMatchObject({
      login: "1001@agentbar.local",
      url: "wss://pbx.example.com/ws",
      closed: false,
    });
    expect(t.channel.last().token()).toBe(t.session.getState().client?.session?.token);
    expect(t.feed.store.getState().status).toBe("connecting");
    t.channel.last().open(true);
    expect(t.feed.store.getState().status).toBe("open");
    first();
    expect(t.channel.last().closed).toBe(false);
    second();
    expect(t.channel.last().closed).toBe(true);
    expect(t.feed.store.getState().status).toBe("off");
  });

  it("gives each consumer the events its filter asks for: one agent, every agent of some queues, one kind of event", async () => {
    const t = setup();
    await t.signIn();
    const toolbar: CallCenterEventData[] = [];
    const wallboard: CallCenterEventData[] = [];
    const counts: CallCenterEventData[] = [];
    t.feed.subscribe({ agents: ["1001"] }, (e) => toolbar.push(e));
    t.feed.subscribe({ agents: ["1001", "1002", "1003"] }, (e) => wallboard.push(e));
    t.feed.subscribe({ actions: ["members-count"], queues: ["support"] }, (e) => counts.push(e));
    t.channel.last().open(true);
    t.channel.last().push(status("1001", "Available"));
    t.channel.last().push(status("support.1002", "On Break"));
    t.channel.last().push(status("1004@agentbar.local", "Available"));
    t.channel.last().push({ "CC-Action": "members-count", "CC-Queue": "support", "CC-Count": "2" });
    t.channel.last().push({ "CC-Action": "members-count", "CC-Queue": "sales", "CC-Count": "5" });
    expect(toolbar.map((e) => e["CC-Agent"])).toEqual(["1001"]);
    expect(wallboard.map((e) => e["CC-Agent"])).toEqual(["1001", "support.1002"]);
    expect(counts.map((e) => e["CC-Count"])).toEqual(["2"]);
    expect(t.feed.store.getState().lastEventAt).toBe(1234);
  });

  it("closes at sign-out and opens again for the next user who signs in, for whoever still listens", async () => {
    const t = setup();
    await t.signIn();
    const seen: string[] = [];
    t.feed.subscribe({}, (e) => seen.push(e["CC-Agent"] ?? ""));
    const before = t.channel.last();
    await t.session.getState().signOut();
    expect(before.closed).toBe(true);
    before.push(status("1001", "Available"));
    expect(seen).toEqual([]);
    await t.signIn();
    expect(t.channel.opened).toHaveLength(2);
    t.channel.last().push(status("1001", "On Break"));
    expect(seen).toEqual(["1001"]);
  });

  it("ends the session when the platform refused the channel's token because it ended the session", async () => {
    const t = setup();
    await t.signIn();
    t.feed.subscribe({}, () => {});
    const channel = t.channel.last();
    channel.open(true);
    // The token still holds (a refusal for another reason): the session goes on.
    const asked = () => t.platform.calls.filter((c) => c.method === "GET" && c.path === "/api/users/info").length;
    const before = asked();
    channel.refuse();
    await expect.poll(asked).toBe(before + 1);
    expect(t.session.getState().status).toBe("signed-in");
    // An administrator changed the password: every token of the user is gone.
    t.platform.endAllSessions();
    channel.refuse();
    await expect.poll(() => t.session.getState().status).toBe("session-expired");
    expect(channel.closed).toBe(true);
  });

  it("never opens without a connector or without someone signed in", async () => {
    const t = setup();
    t.feed.subscribe({}, () => {});
    expect(t.channel.opened).toHaveLength(0);
    expect(t.feed.store.getState().status).toBe("off");
  });

  it("reads a filter as every condition given", () => {
    const e = { "CC-Action": "agent-offering", "CC-Agent": "1001", "CC-Queue": "sales" };
    expect(matchesFilter(e, {})).toBe(true);
    expect(matchesFilter(e, { agents: ["1001"], queues: ["sales"] })).toBe(true);
    expect(matchesFilter(e, { agents: ["1001"], queues: ["support"] })).toBe(false);
    expect(matchesFilter(e, { actions: ["agent-status-change"] })).toBe(false);
    expect(matchesFilter(e, { agents: [] })).toBe(false);
  });
});
