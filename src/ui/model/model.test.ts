import { beforeAll, describe, expect, it } from "vitest";
import { createSessionStore, createSettingsStore, memoryStorage } from "../../session";
import { alice, fakePlatform } from "../../session/test-support/fake-platform";
import { loadMessages } from "../i18n";
import { createUiModel } from "./model";

/** A clock that moves on 5 s at each reading: announcements far enough apart to stand alone. */
function spaced() {
  let t = 0;
  return () => (t += 5000);
}

// The app loads the catalogue it needs before rendering; these tests switch between both.
beforeAll(() => Promise.all([loadMessages("en"), loadMessages("zh-CN")]));

function setup(browserLanguages: string[] = ["en-US"], now: () => number = spaced()) {
  const platform = fakePlatform();
  const device = memoryStorage();
  const settings = createSettingsStore(device);
  const session = createSessionStore({
    settings,
    tabStorage: memoryStorage(),
    deviceStorage: device,
    fetch: platform.fetch,
    pageOrigin: "https://app.example.com",
  });
  const root = { lang: "" } as HTMLElement;
  const model = createUiModel({
    session,
    settings,
    browserLanguages,
    pageOrigin: "https://app.example.com",
    root,
    now,
  });
  return { model, session, settings, root };
}

describe("UI model", () => {
  it("follows the browser language until the user picks one, and keeps <html lang> in step", () => {
    const { model, settings, root } = setup(["zh-TW", "en"]);
    expect(model.language.value).toBe("zh-CN");
    expect(root.lang).toBe("zh-CN");
    expect(model.t.value.signIn.submit).toBe("登录");
    settings.getState().change({ language: "en" });
    expect(model.language.value).toBe("en");
    expect(root.lang).toBe("en");
    expect(model.t.value.signIn.submit).toBe("Sign in");
  });

  it("announces sign-in, refusals and sign-out in the current language", async () => {
    const { model, session, settings } = setup();
    const said = () => model.announcement.value.text;

    await session.getState().signIn({ login: "agent1", password: "wrong", platformUrl: "" });
    expect(said()).toBe("Wrong login name or password. Check both and try again.");
    const serial = model.announcement.value.serial;
    await session.getState().signIn({ login: "agent1", password: "wrong", platformUrl: "" });
    expect(model.announcement.value.serial).toBe(serial + 1);

    settings.getState().change({ language: "zh-CN" });
    await session.getState().signIn({ login: "agent1", password: alice.password, platformUrl: "" });
    expect(said()).toBe("已登录：Alice Agent。");
    await session.getState().signOut();
    expect(said()).toBe("已退出登录。");
  });

  it("says announcements made within a second together, so that the first is not cut off", () => {
    let t = 0;
    const { model } = setup(["en-US"], () => t);
    model.announce("Signed in as Alice Agent.");
    t += 300;
    model.announce("Phone connected.");
    expect(model.announcement.value.text).toBe("Signed in as Alice Agent. Phone connected.");
    t += 5000;
    model.announce("Incoming call from Bob.");
    expect(model.announcement.value.text).toBe("Incoming call from Bob.");
  });
});
