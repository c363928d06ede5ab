import { afterAll, beforeAll, expect, it } from "vitest";
import { SessionState } from "sip.js";
import { DEMO_DOMAIN, TestPlatform, demo } from "./harness";
import { TestPhone, closePhoneMedia } from "./sip-phone";

let platform: TestPlatform;
const phones: TestPhone[] = [];
beforeAll(async () => {
  platform = await TestPlatform.start({ simRingMs: 300 });
});
afterAll(async () => {
  for (const p of phones) await p.stop();
  await closePhoneMedia();
  await platform.close();
});

const phone = async (extension: string, tone: number) => {
  const p = await TestPhone.start({ url: platform.url, extension, password: demo.extensionPassword, domain: DEMO_DOMAIN, tone });
  phones.push(p);
  return p;
};

it("calls between extensions with audio both ways", async () => {
  const a = await phone("1001", 440);
  const b = await phone("1002", 1000);
  expect(a.lastRegisterStatus).toBe(200);
  const call = a.call("1002");
  const incoming = await b.incoming();
  await incoming.answer();
  await call.waitState(SessionState.Established);
  await call.waitHears(1000);
  await incoming.waitHears(440);
  await call.hangup();
  await incoming.waitEnded();
});
