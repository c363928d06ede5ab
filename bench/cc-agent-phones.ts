/**
 * Child process of the call-center benchmark: the agents' phones (sip.js with WebRTC media, the
 * integration tests' TestPhone), kept out of the platform's process so that the platform's clock
 * and CPU figures are its own. Each phone registers, answers every call and says its tone; the
 * parent asks over IPC what a phone hears.
 */
import { TestPhone, type TestCall } from "../test/integration/sip-phone";

export type PhoneRequest =
  | {
      op: "start";
      id: number;
      url: string;
      domain: string;
      phones: { extension: string; password: string; tone: number }[];
    }
  | { op: "heard"; id: number; extensions: string[] }
  | { op: "cpu"; id: number }
  | { op: "close"; id: number };

export interface PhoneReply {
  id: number;
  /** Dominant frequency each phone's current call hears (Hz), or null. */
  heard?: (number | null)[];
  cpuMicros?: number;
  error?: string;
}

const phones = new Map<string, TestPhone>();

function currentCall(phone: TestPhone): TestCall | undefined {
  return [...phone.calls].reverse().find((c) => c.direction === "incoming");
}

function dominant(call: TestCall | undefined): number | null {
  const recent = call?.ears?.recent(300) ?? [];
  const last = recent[recent.length - 1];
  const top = last?.tones[0];
  return top ? Math.round(top.frequency) : null;
}

async function handle(request: PhoneRequest): Promise<Omit<PhoneReply, "id">> {
  switch (request.op) {
    case "start":
      for (const p of request.phones) {
        const phone = await TestPhone.start({
          url: request.url,
          extension: p.extension,
          password: p.password,
          domain: request.domain,
          tone: p.tone,
        });
        if (phone.lastRegisterStatus !== 200)
          throw new Error(`${p.extension} did not register: ${phone.lastRegisterStatus}`);
        phone.incomingPolicy = "answer";
        phones.set(p.extension, phone);
      }
      return {};
    case "heard":
      return { heard: request.extensions.map((e) => dominant(phones.get(e) && currentCall(phones.get(e)!))) };
    case "cpu": {
      const u = process.cpuUsage();
      return { cpuMicros: u.user + u.system };
    }
    case "close":
      for (const phone of phones.values()) await phone.stop();
      return {};
  }
}

process.on("message", (request: PhoneRequest) => {
  handle(request).then(
    (reply) => process.send!({ ...reply, id: request.id }),
    (error: unknown) => process.send!({ id: request.id, error: String(error) }),
  );
});
process.on("disconnect", () => process.exit(0));
