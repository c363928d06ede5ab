import { describe, expect, it } from "vitest";
import { hashPassword, hashPasswordAtStartup, verifyPassword } from "./passwords";

/** Resolves `work` and tells whether the event loop went round (a setImmediate ran) before it did. */
async function loopTurnedDuring(work: () => Promise<unknown>): Promise<boolean> {
  let turned = false;
  setImmediate(() => {
    turned = true;
  });
  await work();
  return turned;
}

describe("passwords", () => {
  it("verifies the password a hash was made from, and no other", async () => {
    const hash = await hashPassword("Alice@Pass1");
    expect(hash).toMatch(/^scrypt\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(await verifyPassword("Alice@Pass1", hash)).toBe(true);
    expect(await verifyPassword("Alice@Pass2", hash)).toBe(false);
    expect(await hashPassword("Alice@Pass1")).not.toBe(hash);
    expect(await verifyPassword("Demo@Pass1", hashPasswordAtStartup("Demo@Pass1"))).toBe(true);
  });

  it("refuses a stored value that is not a scrypt hash", async () => {
    for (const stored of ["", "Alice@Pass1", "md5$00$11", "scrypt$$"])
      expect(await verifyPassword("Alice@Pass1", stored)).toBe(false);
  });

  it("hashes and verifies off the event loop, which keeps running meanwhile (the media clock lives there)", async () => {
    let hash = "";
    expect(await loopTurnedDuring(async () => (hash = await hashPassword("Alice@Pass1")))).toBe(true);
    expect(await loopTurnedDuring(() => verifyPassword("Alice@Pass1", hash))).toBe(true);
  });
});
