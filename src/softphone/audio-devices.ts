import {
  loadDevicePreferences,
  saveDevicePreferences,
  type DevicePreference,
  type DevicePreferences,
  type PreferenceStorage,
} from "./device-preferences";
import { PhoneError } from "./phone-error";

/** The ringer is a separate output so that calls can ring on the speakers while talk goes to a headset. */
export type AudioDeviceRole = "microphone" | "speaker" | "ringer";

/** What the device list tells the user about (the phone turns these into notices). */
export type DeviceNotice =
  /** A device in use disappeared (a chosen one, or the system default the calls used); the default one is used now. */
  | { kind: "device-fallback"; role: AudioDeviceRole; label: string }
  /** A preferred device came back and is used again. */
  | { kind: "device-restored"; role: AudioDeviceRole; label: string };
export const AUDIO_DEVICE_ROLES: readonly AudioDeviceRole[] = ["microphone", "speaker", "ringer"];

export interface AudioDevice {
  deviceId: string;
  label: string;
  groupId: string;
}

export interface DevicesState {
  microphones: readonly AudioDevice[];
  speakers: readonly AudioDevice[];
  /** Device in use per role; "" is the system default. */
  selected: Readonly<Record<AudioDeviceRole, string>>;
  /** What the user chose, remembered even while that device is unplugged. */
  preferred: Readonly<Partial<Record<AudioDeviceRole, DevicePreference>>>;
  /** The browser can route audio to a chosen output (`setSinkId`). */
  canChooseOutput: boolean;
  /** The browser gives access to media devices at all (secure context). */
  available: boolean;
}

/** The `navigator.mediaDevices` subset used, so that tests can run in Node. */
export interface MediaDevicesLike {
  enumerateDevices(): Promise<Array<Pick<MediaDeviceInfo, "deviceId" | "kind" | "label" | "groupId">>>;
  getUserMedia(constraints: MediaStreamConstraints): Promise<MediaStream>;
  addEventListener(type: "devicechange", listener: () => void): void;
  removeEventListener(type: "devicechange", listener: () => void): void;
}

export interface AudioDevicesOptions {
  mediaDevices: MediaDevicesLike | undefined;
  storage: PreferenceStorage | undefined;
  canChooseOutput: boolean;
  onState: (state: DevicesState) => void;
  onNotice: (notice: DeviceNotice) => void;
  /** The device in use for a role changed (by choice, unplugging or re-plugging). */
  onSelectionChange: (role: AudioDeviceRole, deviceId: string) => void;
}

const isDefaultId = (id: string) => id === "" || id === "default";

/**
 * Microphone, speaker and ringer choice: remembered preferences, following `devicechange`, falling
 * back to the default device (with a notice) when a chosen one disappears and returning to it
 * when it comes back.
 */
export class AudioDevices {
  private state: DevicesState;
  private preferences: DevicePreferences<AudioDeviceRole>;
  /** Roles whose preferred device is missing and was announced as such. */
  private readonly missing = new Set<AudioDeviceRole>();
  private listening = false;
  private refreshing: Promise<void> | undefined;
  private readonly onDeviceChange = () => void this.refresh();
  /** The microphone warmMicrophone opened for a call on its way: the device it is of, and when it is stopped unused. */
  private warm: { stream: Promise<MediaStream>; device: string; timer: ReturnType<typeof setTimeout> } | undefined;

  constructor(private readonly options: AudioDevicesOptions) {
    this.preferences = loadDevicePreferences(options.storage, AUDIO_DEVICE_ROLES);
    const selected = { microphone: "", speaker: "", ringer: "" };
    for (const role of AUDIO_DEVICE_ROLES) selected[role] = this.preferences[role]?.deviceId ?? "";
    this.state = {
      microphones: [],
      speakers: [],
      selected,
      preferred: { ...this.preferences },
      canChooseOutput: options.canChooseOutput,
      available: !!options.mediaDevices,
    };
  }

  get current(): DevicesState {
    return this.state;
  }

  selected(role: AudioDeviceRole): string {
    return this.state.selected[role];
  }

  async start(): Promise<void> {
    if (!this.options.mediaDevices) {
      this.options.onState(this.state);
      return;
    }
    if (!this.listening) {
      this.options.mediaDevices.addEventListener("devicechange", this.onDeviceChange);
      this.listening = true;
    }
    await this.refresh();
  }

  stop(): void {
    if (this.listening) this.options.mediaDevices?.removeEventListener("devicechange", this.onDeviceChange);
    this.listening = false;
    const warm = this.warm;
    this.warm = undefined;
    if (warm) {
      clearTimeout(warm.timer);
      void warm.stream.then(stopStream, () => {});
    }
  }

  /** Re-reads the device list and re-resolves what each role uses. */
  refresh(): Promise<void> {
    // One enumeration at a time; a devicechange burst (a headset is several devices) folds into it.
    this.refreshing ??= this.enumerate().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Choose a device for a role ("" = system default) and remember it. */
  async choose(role: AudioDeviceRole, deviceId: string): Promise<void> {
    const list = role === "microphone" ? this.state.microphones : this.state.speakers;
    if (isDefaultId(deviceId)) delete this.preferences[role];
    else {
      const device = list.find((d) => d.deviceId === deviceId);
      this.preferences[role] = { deviceId, label: device?.label ?? this.preferences[role]?.label ?? "" };
    }
    saveDevicePreferences(this.options.storage, this.preferences);
    this.missing.delete(role);
    this.apply(
      { ...this.state, preferred: { ...this.preferences } },
      { [role]: isDefaultId(deviceId) ? "" : deviceId },
    );
  }

  /**
   * Opens the microphone now for a call expected within `forMs` (a leg the server will make and
   * the phone answer by itself): the next openMicrophone() takes it, so that the answer does not
   * wait for the browser to open it. Not taken in time, or given up with the function returned
   * (the call is not coming after all), it is stopped. Asking again keeps the one open (or being
   * opened) and counts the time afresh.
   */
  warmMicrophone(forMs: number): () => void {
    if (!this.options.mediaDevices) return () => {};
    const warm = this.warm;
    if (warm) clearTimeout(warm.timer);
    const stream = warm?.stream ?? this.open();
    stream.catch(() => {});
    const giveUp = () => {
      if (this.warm?.stream !== stream) return;
      clearTimeout(this.warm.timer);
      this.warm = undefined;
      void stream.then(stopStream, () => {});
    };
    this.warm = { stream, device: warm?.device ?? this.state.selected.microphone, timer: setTimeout(giveUp, forMs) };
    return giveUp;
  }

  /**
   * Opens the microphone in use (or takes the one warmMicrophone opened, if it is still that
   * device's and live). A chosen microphone that is gone falls back to the default one (with a
   * notice) rather than failing the call.
   */
  async openMicrophone(): Promise<MediaStream> {
    const warm = this.warm;
    if (warm) {
      this.warm = undefined;
      clearTimeout(warm.timer);
      const stream = await warm.stream.catch(() => undefined);
      const live = stream?.getAudioTracks().some((t) => t.readyState === "live");
      if (stream && live && warm.device === this.state.selected.microphone) return stream;
      if (stream) stopStream(stream);
    }
    return this.open();
  }

  private async open(): Promise<MediaStream> {
    const md = this.options.mediaDevices;
    if (!md)
      throw new PhoneError({ kind: "microphone", detail: "media devices are not available (not a secure context?)" });
    const chosen = this.state.selected.microphone;
    try {
      const stream = await md.getUserMedia(microphoneConstraints(chosen));
      if (this.state.microphones.every((d) => !d.label)) void this.refresh(); // labels appear once permission is granted
      return stream;
    } catch (e) {
      const name = (e as { name?: string }).name ?? "";
      if (chosen && (name === "OverconstrainedError" || name === "NotFoundError")) {
        this.fallBack("microphone");
        try {
          return await md.getUserMedia(microphoneConstraints(""));
        } catch (e2) {
          throw microphoneError(e2);
        }
      }
      throw microphoneError(e);
    }
  }

  private async enumerate(): Promise<void> {
    const md = this.options.mediaDevices;
    if (!md) return;
    let infos: Awaited<ReturnType<MediaDevicesLike["enumerateDevices"]>>;
    try {
      infos = await md.enumerateDevices();
    } catch {
      return;
    }
    const toDevice = (d: (typeof infos)[number]): AudioDevice => ({
      deviceId: d.deviceId,
      label: d.label,
      groupId: d.groupId,
    });
    const microphones = infos.filter((d) => d.kind === "audioinput").map(toDevice);
    const speakers = infos.filter((d) => d.kind === "audiooutput").map(toDevice);
    const next: DevicesState = { ...this.state, microphones, speakers };
    const selected: Partial<Record<AudioDeviceRole, string>> = {};
    for (const role of AUDIO_DEVICE_ROLES)
      selected[role] = this.resolve(role, role === "microphone" ? microphones : speakers);
    this.apply({ ...next, preferred: { ...this.preferences } }, selected);
  }

  /** Which device a role uses given the devices present now. */
  private resolve(role: AudioDeviceRole, list: readonly AudioDevice[]): string {
    const pref = this.preferences[role];
    if (!pref) return "";
    // Before permission is granted the browser hides ids and labels; keep trusting the stored id.
    if (list.every((d) => !d.deviceId && !d.label)) return pref.deviceId;
    const byId = list.find((d) => d.deviceId === pref.deviceId);
    const found = byId ?? (pref.label ? list.find((d) => d.label === pref.label) : undefined);
    if (found) {
      if (found.deviceId !== pref.deviceId || (found.label && found.label !== pref.label)) {
        this.preferences[role] = { deviceId: found.deviceId, label: found.label || pref.label };
        saveDevicePreferences(this.options.storage, this.preferences);
      }
      if (this.missing.delete(role))
        this.options.onNotice({ kind: "device-restored", role, label: found.label || pref.label });
      return found.deviceId;
    }
    if (!this.missing.has(role)) {
      this.missing.add(role);
      this.options.onNotice({ kind: "device-fallback", role, label: pref.label });
    }
    return "";
  }

  private fallBack(role: AudioDeviceRole): void {
    const pref = this.preferences[role];
    if (pref && !this.missing.has(role)) {
      this.missing.add(role);
      this.options.onNotice({ kind: "device-fallback", role, label: pref.label });
    }
    this.apply(this.state, { [role]: "" });
  }

  private apply(next: DevicesState, selected: Partial<Record<AudioDeviceRole, string>>): void {
    const before = this.state.selected;
    const merged = { ...before, ...selected };
    this.state = { ...next, selected: merged };
    this.options.onState(this.state);
    for (const role of AUDIO_DEVICE_ROLES) {
      if (merged[role] !== before[role]) this.options.onSelectionChange(role, merged[role]);
    }
  }
}

export function microphoneConstraints(deviceId: string): MediaStreamConstraints {
  const processing = { echoCancellation: true, noiseSuppression: true, autoGainControl: true };
  return { audio: deviceId ? { ...processing, deviceId: { exact: deviceId } } : processing, video: false };
}

function microphoneError(e: unknown): PhoneError {
  if (e instanceof PhoneError) return e;
  const name = (e as { name?: string }).name ?? "";
  const detail =
    name === "NotAllowedError" || name === "SecurityError"
      ? "permission-denied"
      : name === "NotReadableError" || name === "AbortError"
        ? "device-busy"
        : name === "NotFoundError" || name === "OverconstrainedError"
          ? "no-device"
          : `${name || "error"}: ${(e as Error)?.message ?? String(e)}`;
  return new PhoneError({ kind: "microphone", detail });
}

const stopStream = (stream: MediaStream) => stream.getTracks().forEach((t) => t.stop());
