import type { Page } from "@playwright/test";
import { expect, expectAnnounced, test } from "./fixtures";
import { agent, sim } from "./phone-support";

/** What the agent sees and does around calls: number entry, names, announcements, keyboard, sound. */
test.use({ platformOptions: { simRingMs: 300 } });

async function paste(page: Page, text: string) {
  await page.getByLabel("Number to call").focus();
  await page.evaluate((t) => {
    const data = new DataTransfer();
    data.setData("text/plain", t);
    document.activeElement!.dispatchEvent(
      new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }),
    );
  }, text);
}

test("pasted numbers are cleaned up, what cannot be dialled is said in words, Enter calls and Redial calls again", async ({
  newParty,
}) => {
  const alice = await agent(newParty, "agent1", "1001", 440);
  const field = alice.page.getByLabel("Number to call");
  await paste(alice.page, "tel:+1 (555) 010-0123;phone-context=example.com");
  await expect(field).toHaveValue("+15550100123");
  await field.fill("");
  await paste(alice.page, "55 51–07 00");
  await expect(field).toHaveValue("55510700");

  await field.fill("call me");
  await field.press("Enter");
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toHaveAccessibleDescription("Letters cannot be dialled. Enter digits or a SIP address.");
  await expectAnnounced(alice.page, "Letters cannot be dialled");
  await expect(alice.calls).toHaveCount(0);

  await field.fill("5551 0700");
  await field.press("Enter");
  await expect(alice.card()).toHaveAttribute("data-state", "active");
  await alice.hears(700);
  await alice.card().getByRole("button", { name: "Hang up" }).click();
  await expect(alice.card()).toHaveAttribute("data-state", "ended");

  const redial = alice.page.getByRole("button", { name: "Redial" });
  await expect(redial).toHaveAttribute("title", "Redial 5551 0700");
  await redial.click();
  await expect(alice.page.locator("[data-testid=call][data-state=active]")).toHaveCount(1);
  await alice.hears(700, "the redialled party");
});

test("a ringing call takes the focus: the keyboard answers it; in-call controls have their names and changes are announced", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  const page = alice.page;
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await s.call("1001", 700, "5550201", "Kim Keyboard");
  const answer = alice.card("ringing").getByRole("button", { name: "Answer" });
  await expect(answer).toBeFocused();
  await expectAnnounced(page, "Incoming call from Kim Keyboard.");
  for (const name of ["Answer", "Reject", "Busy"])
    await expect(alice.card().getByRole("button", { name, exact: true })).toBeVisible();
  await page.keyboard.press("Enter");

  const card = alice.card();
  await expect(card).toHaveAttribute("data-state", "active");
  await expectAnnounced(page, "Connected to Kim Keyboard.");
  for (const name of ["Mute", "Hold", "Keypad", "Transfer", "Hang up"])
    await expect(card.getByRole("button", { name, exact: true })).toBeVisible();
  await card.getByRole("button", { name: "Mute" }).click();
  await expect(card.getByRole("button", { name: "Unmute" })).toBeVisible();
  await expectAnnounced(page, "Microphone muted.");
  await card.getByRole("button", { name: "Unmute" }).click();
  await expectAnnounced(page, "Microphone on.");
  await card.getByRole("button", { name: "Hold" }).click();
  await expect(card.getByRole("button", { name: "Resume" })).toBeVisible();
  await expectAnnounced(page, "Call with Kim Keyboard on hold.");
  const controls = page.locator("button:visible, input:visible, select:visible, textarea:visible");
  const count = await controls.count();
  expect(count).toBeGreaterThan(5);
  for (let i = 0; i < count; i++) await expect(controls.nth(i)).toHaveAccessibleName(/\S/);
  await card.getByRole("button", { name: "Hang up" }).click();
  await expectAnnounced(page, "Call with Kim Keyboard: Call ended.");
});

test("in Chinese the controls have Chinese names", async ({ newParty, platform }) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440, { locale: "zh-CN" });
  await s.call("1001", 700, "5550202", "Casey Customer");
  const ringing = alice.card("ringing");
  for (const name of ["接听", "拒接", "忙线"])
    await expect(ringing.getByRole("button", { name, exact: true })).toBeVisible();
  await ringing.getByRole("button", { name: "接听" }).click();
  const card = alice.card();
  await expect(card).toHaveAttribute("data-state", "active");
  for (const name of ["静音", "保持", "按键", "转接", "挂断"])
    await expect(card.getByRole("button", { name, exact: true })).toBeVisible();
  await card.getByRole("button", { name: "保持" }).click();
  await expect(card.getByRole("button", { name: "恢复" })).toBeVisible();
  await expectAnnounced(alice.page, "已保持");
  await card.getByRole("button", { name: "挂断" }).click();
});

test("when the browser blocks sound the phone says so, and a click enables it", async ({ newParty }) => {
  const alice = await agent(newParty, "agent1", "1001", 440);
  // Headless Chromium never holds sound back, whatever its autoplay policy: here every
  // AudioContext starts suspended, as a browser leaves it until the user interacts with the page.
  await alice.page.addInitScript(() => {
    const Native = window.AudioContext;
    window.AudioContext = class extends Native {
      constructor(options?: AudioContextOptions) {
        super(options);
        void this.suspend();
      }
    };
  });
  // A reload restores the session without any gesture: a call would ring silently.
  await alice.page.reload();
  await expect(alice.page.getByTestId("registration")).toHaveAttribute("data-status", "registered");
  const note = alice.page.getByTestId("sound-blocked");
  await expect(note).toContainText("The browser blocks sound until you click on the page");
  await note.getByRole("button", { name: "Enable sound" }).click();
  await expect(note).toHaveCount(0);
});

test("a call ringing while the tab is hidden shows a desktop notification with Answer and Reject; it follows the tab hidden and shown, and is gone once answered", async ({
  newParty,
  platform,
}) => {
  const s = sim(platform.url);
  const alice = await agent(newParty, "agent1", "1001", 440);
  await alice.context.grantPermissions(["notifications"], { origin: platform.url });
  // The agent switches to another tab and back, as the browser tells a page.
  const setHidden = (hidden: boolean) =>
    alice.page.evaluate((h) => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (h ? "hidden" : "visible") });
      document.dispatchEvent(new Event("visibilitychange"));
    }, hidden);
  await setHidden(true);
  await s.call("1001", 700, "5550211", "Nora Notified");
  await expect(alice.card("ringing")).toBeVisible();
  const shown = () =>
    alice.page.evaluate(async () => {
      const reg = await navigator.serviceWorker.getRegistration();
      const list = reg ? await reg.getNotifications() : [];
      return list.map((n) => ({
        title: n.title,
        body: n.body,
        actions: (n as Notification & { actions: { title: string }[] }).actions.map((a) => a.title),
      }));
    });
  const notification = {
    title: "Incoming call",
    body: "Nora Notified (5550211) is calling",
    actions: ["Answer", "Reject"],
  };
  await expect.poll(shown, { message: "the desktop notification", timeout: 15_000 }).toEqual([notification]);
  await expect(alice.page).toHaveTitle(/^Ringing: Nora Notified/);

  // Back in the tab the ringing card is in view: the notification goes.
  await setHidden(false);
  await expect.poll(shown, { message: "the notification is closed once the tab is shown" }).toEqual([]);
  // Away again while the call is still ringing: it comes back.
  await setHidden(true);
  await expect
    .poll(shown, { message: "the notification when the tab is hidden during the ringing", timeout: 15_000 })
    .toEqual([notification]);

  await alice.card("ringing").getByRole("button", { name: "Answer" }).click();
  await expect(alice.card()).toHaveAttribute("data-state", "active");
  await expect.poll(shown, { message: "the notification is closed once the call stops ringing" }).toEqual([]);
  await expect(alice.page).toHaveTitle("Agentbar");
});
