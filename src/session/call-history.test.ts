import { describe, expect, it } from "vitest";
import { createCallHistory, oneRecordPerCall, otherPartyOf } from "./call-history";
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
    expect(history.getState().records.map((r) => r.uuid)).toEqual(["p1-a", "p1-b"]);
    await history.getState().load(2);
    expect(history.getState().records.map((r) => r.uuid)).toEqual(["p2-a", "p2-b"]);
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
    const recorded = history.getState().records[1]!;
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
    await history.getState().play({ ...history.getState().records[1]!, recordingId: "6" });
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
    expect(history.getState()).toMatchObject({ status: "idle", records: [], filter: { callerNumber: "" } });
  });
});

describe("the other party of a record", () => {
  const base = {
    uuid: "u",
    bLegUuid: "",
    callerName: "Alice",
    callerNumber: "1001",
    destination: "5550100",
    direction: "inbound",
    startedAt: 0,
    answeredAt: null,
    endedAt: 0,
    duration: 0,
    billsec: 0,
    hangupCause: "",
    recordingId: null,
    sipCallId: "",
    otherUuid: "",
    cc: {},
  };
  it("is the number dialled when the user called, and the caller otherwise", () => {
    expect(otherPartyOf(base, "1001")).toEqual({ direction: "outgoing", number: "5550100", name: "" });
    expect(otherPartyOf({ ...base, callerNumber: "2000", callerName: "Bob", destination: "1001" }, "1001")).toEqual({
      direction: "incoming",
      number: "2000",
      name: "Bob",
    });
  });
});

describe("one record per call", () => {
  const leg = (uuid: string, bLegUuid = "") => ({
    uuid,
    bLegUuid,
    callerName: "",
    callerNumber: "1001",
    destination: "2000",
    direction: "inbound",
    startedAt: 0,
    answeredAt: null,
    endedAt: 0,
    duration: 0,
    billsec: 0,
    hangupCause: "",
    recordingId: null,
    sipCallId: "",
    otherUuid: "",
    cc: {},
  });
  it("keeps the calling leg of a call and drops the leg it called", () => {
    expect(
      oneRecordPerCall([leg("b2"), leg("a2", "b2"), leg("b1"), leg("a1", "b1"), leg("lone")]).map((r) => r.uuid),
    ).toEqual(["a2", "a1", "lone"]);
  });
});
