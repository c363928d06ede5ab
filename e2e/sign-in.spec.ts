import { createServer } from "node:net";
import { PASSWORD, expect, expectAnnounced, signIn, signInForm, test } from "./fixtures";

test("agent1 signs in, sees who is signed in, signs out, and the login name is remembered", async ({ openApp }) => {
  const page = await openApp();
  const form = signInForm(page);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await expect(form.login).toBeFocused();

  await signIn(page, "agent1");
  const identity = page.getByTestId("identity");
  await expect(identity.getByRole("heading", { name: "Alice Agent" })).toBeVisible();
  await expect(identity).toContainText("agent1");
  await expect(identity).toContainText("Agent");
  await expect(identity).toContainText("1001");
  await expectAnnounced(page, "Signed in as Alice Agent.");
  expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).not.toContain(PASSWORD);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await expectAnnounced(page, "Signed out.");
  await expect(form.login).toHaveValue("agent1");
  await expect(form.password).toBeFocused();

  // Remembered by the browser, not only by this page.
  await page.reload();
  await expect(form.login).toHaveValue("agent1");
  await expect(form.password).toHaveValue("");
});

test("the Sign in button shows that it is busy while the platform answers", async ({ openApp }) => {
  const page = await openApp();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let attempts = 0;
  await page.route("**/api/sessions", async (route) => {
    attempts++;
    await held;
    await route.continue();
  });
  await signIn(page, "agent1");
  const busy = page.getByRole("button", { name: "Signing in…" });
  await expect(busy).toHaveAttribute("aria-disabled", "true");
  await expect(page.locator("form")).toHaveAttribute("aria-busy", "true");
  // A second Enter while waiting sends nothing more.
  await signInForm(page).password.press("Enter");
  release();
  await expect(page.getByTestId("identity")).toContainText("Alice Agent");
  expect(attempts).toBe(1);
});

test("a wrong password says so, with the attempts left before the lock", async ({ openApp }) => {
  const page = await openApp();
  const form = signInForm(page);
  await signIn(page, "agent2", "not-the-password");
  await expect(form.message).toHaveText(
    "Wrong login name or password. 4 attempts left before the account is locked for 2 hours.",
  );
  await expectAnnounced(page, "Wrong login name or password.");
  await expect(form.password).toHaveValue("");
  await expect(form.password).toBeFocused();

  await form.password.fill("still-wrong");
  await form.submit.click();
  await expect(form.message).toContainText("3 attempts left");
});

test("empty fields and a malformed address are caught before anything is sent", async ({ openApp, platform }) => {
  const page = await openApp();
  const form = signInForm(page);
  const requests: string[] = [];
  page.on("request", (r) => void (r.url().includes("/api/") && requests.push(r.url())));

  await form.submit.click();
  // The problems are written under the fields and tied to them for screen readers.
  await expect(form.login).toHaveAccessibleDescription("Enter your login name.");
  await expect(form.password).toHaveAccessibleDescription("Enter your password.");
  await expect(form.login).toBeFocused();
  await expect(form.login).toHaveAttribute("aria-invalid", "true");

  await form.login.fill("agent1");
  await expect(form.login).not.toHaveAccessibleDescription("Enter your login name.");
  await form.password.fill(PASSWORD);
  await form.addressToggle.click();
  await expect(form.address).toBeFocused();
  await form.address.fill("pbx example com");
  await form.submit.click();
  await expect(form.address).toHaveAccessibleDescription("Enter an address like https://pbx.example.com");
  await expect(form.address).toBeFocused();
  expect(requests).toEqual([]);

  await form.address.fill(platform.url);
  await form.submit.click();
  await expect(page.getByTestId("identity")).toContainText("Alice Agent");
});

test("an unreachable platform is named, and the address field is opened to fix it", async ({ openApp }) => {
  const closedPort = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  const page = await openApp();
  const form = signInForm(page);
  await form.addressToggle.click();
  await form.address.fill(`http://127.0.0.1:${closedPort}`);
  await signIn(page, "agent1");
  await expect(form.message).toHaveText(
    `Cannot reach the platform at http://127.0.0.1:${closedPort}. Check the platform address and your network connection.`,
  );
  await expect(form.address).toBeFocused();
});

test("a reload keeps the agent signed in", async ({ openApp }) => {
  const page = await openApp("/?layout=side");
  await signIn(page, "agent1");
  await expect(page.getByTestId("identity")).toContainText("Alice Agent");
  await page.reload();
  await expect(page.getByTestId("identity")).toContainText("Alice Agent");
  await expect(page.getByRole("button", { name: "Sign in" })).toHaveCount(0);
});

test("a session the platform ended sends the agent to sign in again, login name filled in", async ({
  openApp,
  request,
}) => {
  const page = await openApp();
  await signIn(page, "agent3");
  await expect(page.getByTestId("identity")).toContainText("Carol Agent");
  const token = await page.evaluate(
    () => (JSON.parse(sessionStorage.getItem("agentbar.session") ?? "{}") as { token?: string }).token,
  );
  expect((await request.delete("/api/sessions", { headers: { "X-XTRA-AUTH-ID": token! } })).status()).toBe(200);

  await page.reload();
  const form = signInForm(page);
  await expect(form.message).toHaveText("Your session ended. Sign in again to continue.");
  await expect(form.login).toHaveValue("agent3");
  await expect(form.password).toBeFocused();
  await signIn(page, "agent3");
  await expect(page.getByTestId("identity")).toContainText("Carol Agent");
});

test("in the bar, what to fix is told in its one message slot", async ({ openApp }) => {
  const page = await openApp("/?layout=bar");
  const form = signInForm(page);
  await form.submit.click();
  await expect(form.message).toHaveText("Enter your login name.");
  await expect(form.login).toHaveAccessibleDescription("Enter your login name.");
  await expect(form.login).toBeFocused();
  await form.login.fill("agent1");
  await form.submit.click();
  await expect(form.message).toHaveText("Enter your password.");
  await expect(form.password).toBeFocused();
  await form.password.fill(PASSWORD);
  await form.submit.click();
  await expect(page.getByTestId("identity")).toContainText("agent1 · Agent · Ext. 1001");
});
