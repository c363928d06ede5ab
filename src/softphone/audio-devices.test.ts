import { afterEach, describe, expect, it } from "vitest";
import { AudioDevices, type DevicesState } from "./audio-devices";
import { DEVICE_PREFERENCES_KEY, memoryStorage } from "./device-preferences";
import type { NoticeBody } from "./notice";
import { FakeSipServer, type WireRecord } from "./testing/fake-sip-server";
import { defaultDevices, FakeMediaDevices, type FakeStream } from "./testing/mock-media";
import { startPeer } from "./testing/peer";
import { settle, startPhone, untilCall } from "./testing/phone-rig";

function devicesWith(md: FakeMediaDevices, storage = memoryStorage()) {
  const notices: NoticeBody[] = [];
  const selections: Array<[string, string]> = [];
  let state: DevicesState | undefined;
  const devices = new AudioDevices({
    mediaDevices: md,
    storage,
    canChooseOutput: true,
    onState: (s) => (state = s),
    onNotice: (n) => notices.push(n),
    onSelectionChange: (role, id) => selections.push([role, id]),
  });
  return { devices, notices, selections, storage, state: () => state! };
}

const withoutHeadset = () => defaultDevices().filter((d) => d.groupId !== "g2");

describe("AudioDevices", () => {
  it("lists microphones and outputs and remembers a choice by id and label", async () => {
    const md = new FakeMediaDevices();
    const a = devicesWith(md);
    await a.devices.start();
    expect(a.state().microphones.map((d) => d.deviceId)).toEqual(["default", "mic-builtin", "mic-headset"]);
    expect(a.state().speakers.map((d) => d.deviceId)).toEqual(["default", "out-speakers", "out-headset"]);
    await a.devices.choose("microphone", "mic-headset");
    await a.devices.choose("ringer", "out-speakers");
    expect(a.state().selected).toEqual({ microphone: "mic-headset", speaker: "", ringer: "out-speakers" });
    expect(JSON.parse(a.storage.getItem(DEVICE_PREFERENCES_KEY)!)).toEqual({
      microphone: { deviceId: "mic-headset", label: "Headset Microphone" },
      ringer: { deviceId: "out-speakers", label: "Built-in Speakers" },
    });

    // Next session: the same choices, with no notice.
    const b = devicesWith(new FakeMediaDevices(), a.storage);
    await b.devices.start();
    expect(b.state().selected).toEqual({ microphone: "mic-headset", speaker: "", ringer: "out-speakers" });
    expect(b.notices).toEqual([]);
  });

  it("finds a remembered device by its label when the browser gave it a new id", async () => {
    const storage = memoryStorage();
    storage.setItem(
      DEVICE_PREFERENCES_KEY,
      JSON.stringify({ speaker: { deviceId: "old-id", label: "Headset Earphones" } }),
    );
    const a = devicesWith(new FakeMediaDevices(), storage);
    await a.devices.start();
    expect(a.state().selected.speaker).toBe("out-headset");
    expect(JSON.parse(storage.getItem(DEVICE_PREFERENCES_KEY)!).speaker.deviceId).toBe("out-headset");
  });

  it("falls back to the default device when the chosen one is unplugged, and returns to it", async () => {
    const md = new FakeMediaDevices();
    const a = devicesWith(md);
    await a.devices.start();
    await a.devices.choose("microphone", "mic-headset");
    a.selections.length = 0;

    md.change(withoutHeadset());
    await a.devices.refresh();
    expect(a.state().selected.microphone).toBe("");
    expect(a.notices).toEqual([{ kind: "device-fallback", role: "microphone", label: "Headset Microphone" }]);
    expect(a.selections).toEqual([["microphone", ""]]);
    // The preference survives the unplugging.
    expect(a.state().preferred.microphone?.deviceId).toBe("mic-headset");

    md.change(defaultDevices());
    await a.devices.refresh();
    expect(a.state().selected.microphone).toBe("mic-headset");
    expect(a.notices.at(-1)).toEqual({ kind: "device-restored", role: "microphone", label: "Headset Microphone" });
    expect(a.selections).toEqual([
      ["microphone", ""],
      ["microphone", "mic-headset"],
    ]);
  });

  it("trusts the stored id while the browser hides devices before permission", async () => {
    const storage = memoryStorage();
    storage.setItem(
      DEVICE_PREFERENCES_KEY,
      JSON.stringify({ microphone: { deviceId: "mic-headset", label: "Headset Microphone" } }),
    );
    const hidden = defaultDevices().map((d) => ({ ...d, deviceId: "", label: "" }));
    const a = devicesWith(new FakeMediaDevices(hidden), storage);
    await a.devices.start();
    expect(a.state().selected.microphone).toBe("mic-headset");
    expect(a.notices).toEqual([]);
  });

  it("opens the chosen microphone, or the default one with a notice when it is gone", async () => {
    const md = new FakeMediaDevices();
    const a = devicesWith(md);
    await a.devices.start();
    await a.devices.choose("microphone", "mic-headset");
    const first = (await a.devices.openMicrophone()) as unknown as FakeStream;
    expect(md.requests.at(-1)).toMatchObject({
      audio: { deviceId: { exact: "mic-headset" }, echoCancellation: true },
      video: false,
    });
    expect(first.getAudioTracks()[0]?.label).toBe("Headset Microphone");

    md.devices = withoutHeadset(); // gone, and no devicechange seen yet
    const second = (await a.devices.openMicrophone()) as unknown as FakeStream;
    expect(second.getAudioTracks()[0]?.label).toBe("default microphone");
    expect(a.notices).toEqual([{ kind: "device-fallback", role: "microphone", label: "Headset Microphone" }]);
  });

  it("explains a refused or busy microphone", async () => {
    const md = new FakeMediaDevices();
    const a = devicesWith(md);
    md.failWith = { name: "NotAllowedError" };
    await expect(a.devices.openMicrophone()).rejects.toMatchObject({ kind: "microphone", detail: "permission-denied" });
    md.failWith = { name: "NotReadableError" };
    await expect(a.devices.openMicrophone()).rejects.toMatchObject({ kind: "microphone", detail: "device-busy" });
    const none = devicesWith(undefined as unknown as FakeMediaDevices);
    await expect(none.devices.openMicrophone()).rejects.toMatchObject({ kind: "microphone" });
  });
});

describe("devices during a call", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function talking() {
    const sw = new FakeSipServer();
    const alice = await startPhone(sw);
    cleanups.push(() => alice.phone.stop());
    const bob = await startPeer(sw, "2000");
    cleanups.push(() => bob.stop());
    const id = await alice.phone.call("2000");
    await (await bob.nextInvitation()).accept();
    await untilCall(alice.phone, id, (c) => c.state === "active");
    return { sw, alice, id };
  }

  it("switches the microphone under a running call: track replaced, old one stopped, no signalling", async () => {
    const { sw, alice, id } = await talking();
    const before = alice.sdh(id).senderTrack!;
    alice.phone.setMuted(id, true);
    const m = sw.mark();
    await alice.phone.chooseDevice("microphone", "mic-headset");
    await settle();
    const after = alice.sdh(id).senderTrack!;
    expect(after).not.toBe(before);
    expect(after.label).toBe("Headset Microphone");
    expect(before.stopped).toBe(true);
    expect(after.enabled).toBe(false); // still muted
    expect(alice.sdh(id).localMediaStream.getTracks()).toEqual([after]);
    expect(sw.records((r: WireRecord) => r.direction === "from-ua" && r.user === "1001", m)).toEqual([]);
    expect(alice.call(id).state).toBe("active");
  });

  it("routes call audio to the chosen speaker and keeps the ringer separate", async () => {
    const { alice } = await talking();
    await alice.phone.chooseDevice("speaker", "out-headset");
    await alice.phone.chooseDevice("ringer", "out-speakers");
    await settle();
    expect(alice.audio[0]?.sinkId).toBe("out-headset");
    expect(alice.phone.ringerSinkId).toBe("out-speakers");
    expect(alice.phone.phoneStore.getState().devices.selected).toMatchObject({
      speaker: "out-headset",
      ringer: "out-speakers",
    });
  });

  it("follows an unplugged headset to the default microphone mid-call", async () => {
    const { alice, id } = await talking();
    await alice.phone.chooseDevice("microphone", "mic-headset");
    await settle();
    expect(alice.sdh(id).senderTrack?.label).toBe("Headset Microphone");
    alice.devices.change(withoutHeadset());
    await settle();
    expect(alice.sdh(id).senderTrack?.label).toBe("default microphone");
    expect(alice.phone.phoneStore.getState().notices.at(-1)).toMatchObject({
      kind: "device-fallback",
      role: "microphone",
    });
    expect(alice.call(id).state).toBe("active");
  });

  it("re-opens the system default microphone when the one in use is unplugged, without signalling", async () => {
    const { sw, alice, id } = await talking();
    alice.phone.setMuted(id, true);
    const before = alice.sdh(id).senderTrack!;
    const opened = alice.devices.requests.length;
    const m = sw.mark();
    // "System default" stays chosen: only the track ending tells.
    before.end();
    await settle();
    const after = alice.sdh(id).senderTrack!;
    expect(after).not.toBe(before);
    expect(after.readyState).toBe("live");
    expect(after.enabled).toBe(false); // still muted
    expect(alice.devices.requests.slice(opened)).toEqual([
      expect.objectContaining({ audio: expect.not.objectContaining({ deviceId: expect.anything() }) }),
    ]);
    expect(alice.sdh(id).localMediaStream.getTracks()).toEqual([after]);
    expect(before.listenerCount).toBe(0);
    expect(alice.phone.phoneStore.getState().notices.at(-1)).toMatchObject({
      kind: "device-fallback",
      role: "microphone",
      label: "default microphone",
    });
    expect(sw.records((r: WireRecord) => r.direction === "from-ua" && r.user === "1001", m)).toEqual([]);
    expect(alice.call(id).state).toBe("active");
  });

  it("re-opens the system default microphone when the device list loses the one in use", async () => {
    const { alice, id } = await talking();
    const before = alice.sdh(id).senderTrack!;
    expect(before.getSettings()).toMatchObject({ deviceId: "default", groupId: "g1" });
    // The built-in microphone is gone; "default" now means the headset.
    alice.devices.change([
      { deviceId: "default", kind: "audioinput", label: "Default - Headset Microphone", groupId: "g2" },
      ...defaultDevices().filter((d) => d.groupId === "g2"),
    ]);
    await settle();
    const after = alice.sdh(id).senderTrack!;
    expect(after.getSettings()).toMatchObject({ deviceId: "default", groupId: "g2" });
    expect(before.stopped).toBe(true);
    expect(alice.phone.phoneStore.getState().notices.filter((n) => n.kind === "device-fallback")).toHaveLength(1);
    expect(alice.call(id).state).toBe("active");
  });
});
