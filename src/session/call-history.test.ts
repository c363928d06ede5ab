import { describe, expect, it } from "vitest";
import type { CallRecord } from "../api/cdrs";
import { conversationsOf, createCallHistory } from "./call-history";
import { createSessionStore } from "./session";
import { createSettingsStore } from "./settings";
import { memoryStorage } from "./storage";
import { alice, fakePlatform, json } from "./test-support/fake-platform";

const record = (uuid: string, extra: Record<string, unknown> = {}) => ({
  uuid,
  caller_id_name: "Bob",
  caller_id_number: "2000",
  destination_number: "1001",
  start_stamp: "2031-05-06 14:35:00",
  answer_stamp: "2031-05-06 14:35:04",
  end_stamp: "2031-05-06 14:36:00",
  duration: 60,
  billsec: 56,
  hangup_cause: "NORMAL_CLEARING",
  media_file_id: "",
  ...extra,
});

async function setup() {
  const platform = fakePlatform();
  const cdrQueries: URLSearchParams[] = [];
  const recordingRequests: { path: string; token: string | null; search: string }[] = [];
  platform.overrides.push(({ method, url, token }) => {
    if (method === "GET" && url.pathname === "/api/cdrs") {
      cdrQueries.push(url.searchParams);
      const page = Number(url.searchParams.get("page") ?? 1);
      return json(200, {
        rowCount: 12,
        page,
        pageCount: 2,
        data: [record(`p${page}-a`), record(`p${page}-b`, { media_file_id: 5 })],
      });
    }
    // The media file record tells the file's extension.
    if (method === "GET" && url.pathname === "/api/media_files/5")
      return json(200, { id: 5, type: "RECORD", ext: "wav", mime: "audio/wav" });
    if (method === "GET" && url.pathname.startsWith("/api/media_files/")) {
      if (url.pathname.includes(".")) recordingRequests.push({ path: url.pathname, token, search: url.search });
      return url.pathname === "/api/media_files/5.wav"
        ? new Response(new Uint8Array([1, 2, 3]), { headers: { "content-type": "audio/wav" } })
        : json(404, { code: 404, text: "Not Found" });
    }
    return undefined;
  });
  const device = memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({
    settings,
    tabStorage: memoryStorage(),
    deviceStorage: device,
    fetch: platform.fetch,
    pageOrigin: "https://app.test",
  });
  const revoked: string[] = [];
  let urls = 0;
  const history = createCallHistory({
    session,
    perPage: 2,
    createObjectUrl: () => `blob:test/${++urls}`,
    revokeObjectUrl: (u) => void revoked.push(u),
  });
  await session
    .getState()
    .signIn({ login: alice.login, password: alice.password, platformUrl: "https://pbx.example.com" });
  return { platform, session, history, cdrQueries, recordingRequests, revoked };
}

describe("call history", () => {
  it("loads pages of the user's call records", async () => {
    const { history, cdrQueries } = await setup();
    await history.getState().load();
    expect(history.getState()).toMatchObject({ status: "ready", page: 1, pageCount: 2, rowCount: 12 });
    expect(history.getState().conversations.map((c) => c.record.uuid)).toEqual(["p1-a", "p1-b"]);
    await history.getState().load(2);
    expect(history.getState().conversations.map((c) => c.record.uuid)).toEqual(["p2-a", "p2-b"]);
    expect(Object.fromEntries(cdrQueries[1]!)).toEqual({ page: "2", perPage: "2" });
  });

  it("filters by number and dates, or the last days, from the first page", async () => {
    const { history, cdrQueries } = await setup();
    await history.getState().load(2);
    await history.getState().setFilter({ callerNumber: " 2000 ", startDate: "2031-05-01", endDate: "2031-05-06" });
    expect(Object.fromEntries(cdrQueries.at(-1)!)).toEqual({
      page: "1",
      perPage: "2",
      cidNumber: "2000",
      startDate: "2031-05-01",
      endDate: "2031-05-06",
    });
    await history.getState().setFilter({ callerNumber: "", destinationNumber: "1001", lastDays: 7 });
    expect(Object.fromEntries(cdrQueries.at(-1)!)).toEqual({ page: "1", perPage: "2", destNumber: "1001", last: "7" });
  });

  it("plays a recording from a blob URL fetched with the token header, and frees it afterwards", async () => {
    const { history, recordingRequests, revoked } = await setup();
    await history.getState().load();
    const recorded = history.getState().conversations[1]!.record;
    await history.getState().play(recorded);
    expect(history.getState().playback).toEqual({ uuid: "p1-b", status: "ready", url: "blob:test/1", error: null });
    expect(recordingRequests).toEqual([{ path: "/api/media_files/5.wav", token: "token-1", search: "" }]);
    history.getState().stopPlayback();
    expect(history.getState().playback).toBeNull();
    expect(revoked).toEqual(["blob:test/1"]);
  });

  it("says when a recording cannot be fetched", async () => {
    const { history } = await setup();
    await history.getState().load();
    await history.getState().play({ ...history.getState().conversations[1]!.record, recordingId: "6" });
    expect(history.getState().playback).toMatchObject({ status: "failed", url: null, error: "Not Found" });
  });

  it("reports a failed load as data", async () => {
    const { history, platform } = await setup();
    platform.overrides.unshift(({ url }) =>
      url.pathname === "/api/cdrs" ? json(500, { code: 500, text: "database is locked" }) : undefined,
    );
    await history.getState().load();
    expect(history.getState()).toMatchObject({
      status: "failed",
      error: { kind: "http", message: "database is locked" },
    });
  });

  it("forgets the records when the user signs out", async () => {
    const { history, session } = await setup();
    await history.getState().load();
    await history.getState().setFilter({ callerNumber: "2" });
    await session.getState().signOut();
    expect(history.getState()).toMatchObject({ status: "idle", conversations: [], filter: { callerNumber: "" } });
  });
});

describe("one row per conversation", () => {
  const t = (s: number) => Date.UTC(2031, 4, 6, 9, 0, s);
  const leg = (uuid: string, o: Partial<CallRecord>): CallRecord => ({
    uuid,
    bLegUuid: "",
    otherUuid: "",
    callerName: "",
    callerNumber: "",
    destination: "",
    direction: "outbound",
    startedAt: t(0),
    answeredAt: t(0),
    endedAt: t(60),
    duration: 60,
    billsec: 60,
    hangupCause: "NORMAL_CLEARING",
    recordingId: null,
    sipCallId: "",
    cc: {},
    ...o,
  });
  const customer = { callerNumber: "5550142", callerName: "Carla Customer" };

  it("a queue call taken back after a reload is one incoming row from the customer, timed by the agent's legs", () => {
    // As the local platform records it: the customer's leg into the queue (its bleg the first
    // agent leg, its other_uuid the last), the agent leg picked off by the take-back, the new one.
    const records = [
      leg("a2", {
        ...customer,
        destination: "1001",
        otherUuid: "c",
        startedAt: t(40),
        answeredAt: t(41),
        endedAt: t(95),
        billsec: 54,
      }),
      leg("c", {
        ...customer,
        destination: "support",
        direction: "inbound",
        bLegUuid: "a1",
        otherUuid: "a2",
        startedAt: t(0),
        answeredAt: t(0),
        endedAt: t(95),
        billsec: 95,
      }),
      leg("a1", {
        ...customer,
        destination: "1001",
        otherUuid: "c",
        startedAt: t(10),
        answeredAt: t(12),
        endedAt: t(38),
        billsec: 26,
        hangupCause: "PICKED_OFF",
      }),
    ];
    const [row, ...more] = conversationsOf(records, "1001");
    expect(more).toEqual([]);
    expect(row).toMatchObject({
      direction: "incoming",
      number: "5550142",
      name: "Carla Customer",
      startedAt: t(10),
      answeredAt: t(12),
      endedAt: t(95),
      // From the agent's first answer to the end, as the card counted it through the reload.
      talkSec: 83,
      hangupCause: "NORMAL_CLEARING",
    });
    expect(row!.record.uuid).toBe("a1");
    expect([...row!.uuids].sort()).toEqual(["a1", "a2", "c"]);
  });

  it("a click-to-dial is one outgoing row to the number dialled, the agent's own phone leg folded in", () => {
    const records = [
      leg("d2", {
        callerNumber: "1001",
        callerName: "Alice Agent",
        destination: "55510700",
        otherUuid: "d1",
        startedAt: t(3),
        answeredAt: t(8),
        billsec: 52,
      }),
      leg("d1", {
        callerNumber: "55510700",
        destination: "1001",
        otherUuid: "d2",
        startedAt: t(0),
        answeredAt: t(1),
        billsec: 59,
      }),
    ];
    expect(conversationsOf(records, "1001")).toEqual([
      expect.objectContaining({ direction: "outgoing", number: "55510700", name: "", answeredAt: t(1), talkSec: 59 }),
    ]);
  });

  it("a call of the phone alone is its calling leg; separate calls stay separate; one leg is its billsec", () => {
    const records = [
      leg("b2", { callerNumber: "1001", destination: "2000", direction: "outbound", startedAt: t(70) }),
      leg("a2", { callerNumber: "1001", destination: "2000", direction: "inbound", bLegUuid: "b2", startedAt: t(70) }),
      leg("x", { callerNumber: "2000", callerName: "Bob", destination: "1001", startedAt: t(0), billsec: 12 }),
    ];
    const rows = conversationsOf(records, "1001");
    expect(rows.map((r) => [r.direction, r.number])).toEqual([
      ["outgoing", "2000"],
      ["incoming", "2000"],
    ]);
    expect(rows[1]).toMatchObject({ name: "Bob", talkSec: 12 });
  });
});
