import { describe, expect, it } from "vitest";
import { PlatformClient } from "../api";
import { userQueueNames } from "./user-queues";

/** A client whose platform answers the queue names of user 2, `fail` times with a 500 first. */
function platform(fail = 0) {
  const asked: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    asked.push(url.pathname);
    const failed = asked.length <= fail;
    const body = failed ? { code: 500, text: "database unavailable" } : [{ name: "support" }, { name: "sales" }];
    return new Response(JSON.stringify(body), {
      status: failed ? 500 : 200,
      headers: { "content-type": "application/json" },
    });
  }) as typeof globalThis.fetch;
  const client = () => {
    const c = new PlatformClient({ baseUrl: "http://pbx.test", fetch });
    c.setCredentials({ token: "tok-1", expires: Date.now() / 1000 + 3600 });
    return c;
  };
  return { asked, client };
}

describe("a user's queue names", () => {
  it("are read once per sign-in, by whoever asks first, the others sharing that answer; a retry reads them anew", async () => {
    const p = platform();
    const client = p.client();
    const [atSignIn, board] = await Promise.all([userQueueNames(client, "2"), userQueueNames(client, "2")]);
    expect(await userQueueNames(client, "2")).toEqual(["support", "sales"]);
    expect([atSignIn, board]).toEqual([
      ["support", "sales"],
      ["support", "sales"],
    ]);
    expect(p.asked).toEqual(["/api/users/2/queue/name"]);
    await userQueueNames(client, "2", { fresh: true });
    expect(p.asked).toHaveLength(2);
    // Another sign-in (a new client) reads its own.
    await userQueueNames(p.client(), "2");
    expect(p.asked).toHaveLength(3);
  });

  it("are not kept when the read failed: the next asker reads again", async () => {
    const p = platform(1);
    const client = p.client();
    await expect(userQueueNames(client, "2")).rejects.toThrow(/database unavailable/);
    expect(await userQueueNames(client, "2")).toEqual(["support", "sales"]);
    expect(p.asked).toHaveLength(2);
  });
});
