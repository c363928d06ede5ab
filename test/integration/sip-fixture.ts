import { afterAll, afterEach, beforeAll } from "vitest";
import type { PlatformOptions } from "../../platform/config";
import { ToneDetector } from "../../platform/media";
import type { CdrRow } from "../../platform/cdr/cdr-store";
import { DEMO_DOMAIN, TestPlatform, demo } from "./harness";
import { TestPhone, closePhoneMedia, until } from "./sip-phone";
import { RawSip, newId, rawRegister, statusOf } from "./sip-raw";

/**
 * One platform per test file, phones made per test (stopped after each test), and the call
 * records as the REST API shows them.
 */
export function sipFixture(overrides: Partial<PlatformOptions> = {}) {
  let platform: TestPlatform | undefined;
  let adminToken: string | undefined;
  let phones: TestPhone[] = [];
  let raws: RawSip[] = [];

  beforeAll(async () => {
    platform = await TestPlatform.start({ simRingMs: 300, ...overrides });
    adminToken = await platform.token("admin");
  });

  afterEach(async () => {
    for (const p of phones) await p.stop();
    phones = [];
    for (const r of raws) r.close();
    raws = [];
  });

  afterAll(async () => {
    // A close that hangs says where it stands.
    let step = "the phones' media";
    const watchdog = setTimeout(() => void reportHangingClose(platform, step), 20_000);
    await closePhoneMedia();
    step = "the platform";
    await platform?.close();
    clearTimeout(watchdog);
  });

  const f = {
    get platform(): TestPlatform {
      if (!platform) throw new Error("the platform has not started");
      return platform;
    },
    get ctx() {
      return f.platform.platform.ctx;
    },
    /** A registered phone of an extension saying `tone`. */
    async phone(extension: string, tone: number, password = demo.extensionPassword): Promise<TestPhone> {
      const p = await TestPhone.start({ url: f.platform.url, extension, password, domain: DEMO_DOMAIN, tone });
      phones.push(p);
      if (p.lastRegisterStatus !== 200) throw new Error(`${extension} did not register: ${p.lastRegisterStatus}`);
      return p;
    },
    /** A raw SIP client registered as an extension (closed after the test): what it gets is the text on the wire. */
    async rawPhone(extension: string): Promise<RawSip> {
      const sip = await RawSip.open(f.platform.url);
      raws.push(sip);
      const answer = await rawRegister(sip, {
        extension,
        password: demo.extensionPassword,
        domain: DEMO_DOMAIN,
        contactUser: newId(),
        expires: 600,
      });
      if (statusOf(answer) !== 200) throw new Error(`${extension} did not register: ${statusOf(answer)}`);
      return sip;
    },
    /** GET with the administrator's token. */
    async get<T>(path: string): Promise<{ status: number; body: T }> {
      const res = await f.platform.call<T>("GET", path, { token: adminToken! });
      return { status: res.status, body: res.body };
    },
    async sim<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
      const res = await f.platform.call<T>(method, path, body === undefined ? {} : { body });
      return { status: res.status, body: res.body };
    },
    /** The call record of a leg, once written (legs write theirs when they end). */
    async cdr(uuid: string): Promise<CdrJson> {
      let row: CdrJson | undefined;
      await until(`the call record of ${uuid} is written`, () => {
        row = cdrRow(f.platform, uuid);
        return row !== undefined;
      });
      const res = await f.get<CdrJson>(`/api/cdrs/${uuid}`);
      if (res.status !== 200) throw new Error(`GET /api/cdrs/${uuid}: ${res.status}`);
      return res.body;
    },
    /** The uuids of the channels of the switch whose destination or caller is `number`, newest last. */
    channelsOf(number: string) {
      return f.ctx.switch.channels().filter((c) => c.destinationNumber === number || c.callerIdNumber === number);
    },
    /** Waits for the call records of every leg whose SIP Call-ID or linked legs involve this call. */
    async legsOfCall(sipCallId: string): Promise<{ a: CdrJson; b: CdrJson }> {
      let a: CdrRow | undefined;
      let b: CdrRow | undefined;
      await until("both legs of the call have their records", () => {
        a = f.platform.db.prepare("SELECT * FROM cdrs WHERE sip_call_id = ?").get(sipCallId) as CdrRow | undefined;
        b = a?.bleg_uuid ? cdrRowRaw(f.platform, a.bleg_uuid) : undefined;
        return a !== undefined && b !== undefined;
      });
      return { a: await f.cdr(a!.uuid), b: await f.cdr(b!.uuid) };
    },
  };
  return f;
}

function cdrRowRaw(platform: TestPlatform, uuid: string): CdrRow | undefined {
  return platform.db.prepare("SELECT * FROM cdrs WHERE uuid = ?").get(uuid) as CdrRow | undefined;
}

function cdrRow(platform: TestPlatform, uuid: string): CdrJson | undefined {
  return cdrRowRaw(platform, uuid) as unknown as CdrJson | undefined;
}

export type CdrJson = Omit<CdrRow, "media_file_id" | "variables"> & {
  media_file_id: string;
  variables: Record<string, string>;
};

async function reportHangingClose(platform: TestPlatform | undefined, step: string): Promise<void> {
  const handles = (process as unknown as { _getActiveHandles(): object[] })
    ._getActiveHandles()
    .map((h) => h.constructor.name);
  const connections = await new Promise<number>(
    (resolve) => platform?.platform.http.server.getConnections((_e, n) => resolve(n)) ?? resolve(0),
  );
  console.error(
    `closing ${step} has taken 20 s; open HTTP connections: ${connections}; active handles: ${handles.join(", ")}`,
  );
}

/**
 * The tones of a second of one channel of a recording, from `fromSecond` on: those found in most
 * of its analysis windows (each 170 ms, 50 ms apart). One window is not enough: a frame the
 * platform dropped or repeated under load is a phase jump that bends one window's estimate by a
 * few Hz, while the tone itself is still what the party said.
 */
export function tonesIn(samples: Int16Array, fromSecond: number): number[] {
  const detector = new ToneDetector();
  const start = Math.floor(fromSecond * 48000);
  for (let i = start; i + 480 <= Math.min(samples.length, start + 48000); i += 480)
    detector.push(samples.subarray(i, i + 480));
  const windows = detector.history.map((a) => new Set(a.tones.map((t) => Math.round(t.frequency))));
  const counts = new Map<number, number>();
  for (const tones of windows) for (const f of tones) counts.set(f, (counts.get(f) ?? 0) + 1);
  return [...counts].filter(([, n]) => n > windows.length / 2).map(([f]) => f);
}
