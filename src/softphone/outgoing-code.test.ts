import { afterEach, expect, it, vi } from "vitest";
import { PhoneError } from "./phone-error";
import { FakeSipServer, isRequest, type RequestRecord, type WireRecord } from "./testing/fake-sip-server";
import { startPeer } from "./testing/peer";
import { startPhone, untilCall } from "./testing/phone-rig";

// sip.js's outgoing-call code is fetched when first needed (see `outgoingCalls` in phone.ts): the first fetch here fails, as offline.
const fetches = vi.hoisted(() => ({ count: 0 }));
vi.mock("sip.js/lib/api/inviter.js", async (importOriginal) => {
  if (fetches.count++ === 0) throw new Error("Failed to fetch dynamically imported module");
  return importOriginal();
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const invites = (r: WireRecord): r is RequestRecord =>
  r.direction === "from-ua" && r.user === "1001" && isRequest(r, "INVITE");

it("a call placed while the outgoing-call code cannot be fetched fails in words, sends nothing and opens no microphone; the next call fetches it again and connects", async () => {
  const sw = new FakeSipServer();
  const alice = await startPhone(sw);
  cleanups.push(() => alice.phone.stop());
  const bob = await startPeer(sw, "2000");
  cleanups.push(() => bob.stop());

  const failed = await alice.phone.call("2000").then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(failed).toBeInstanceOf(PhoneError);
  expect(failed).toMatchObject({ kind: "transport", message: expect.stringMatching(/outgoing calls did not load/) });
  expect(sw.records(invites)).toHaveLength(0);
  expect(alice.devices.opened).toHaveLength(0);
  expect(alice.phone.callsStore.getState().calls).toHaveLength(0);

  const id = await alice.phone.call("2000");
  await sw.waitFor(invites);
  await (await bob.nextInvitation()).accept();
  await untilCall(alice.phone, id, (c) => c.state === "active");
  expect(fetches.count).toBe(2);
});
