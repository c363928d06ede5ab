import type { AudioDevice, AudioDevices } from "./audio-devices";
import type { CallId } from "./call";
import type { CallSession } from "./call-session";
import type { CallSessions } from "./call-sessions";
import type { NoticeBody } from "./notice";
import { PhoneError } from "./phone-error";

/**
 * Calls keep talking when their microphone goes: unplugged, taken by the system, or no longer
 * chosen. Each running call is moved to the microphone to use now, without renegotiation.
 */
export class MicrophoneRecovery {
  /** Microphone tracks already known to be gone (ended, or their device unplugged). */
  private readonly lost = new WeakSet<MediaStreamTrack>();

  constructor(
    private readonly sessions: CallSessions,
    private readonly devices: AudioDevices,
    private readonly notice: (body: NoticeBody) => void,
  ) {}

  /** Another microphone was chosen: every connected call switches to it. */
  chosen(): void {
    for (const cs of this.sessions.all()) if (cs.isEstablished) this.switchMicrophone(cs);
  }

  /** A call's microphone went away (unplugged, taken by the system): carry on with the one to use now. */
  lostOn(id: CallId, track: MediaStreamTrack): void {
    const cs = this.sessions.find(id);
    if (!cs || cs.isFinished || this.lost.has(track)) return;
    this.lost.add(track);
    // A chosen microphone that disappears is announced by the device list, and its fallback
    // switches the calls too; the system default one has nobody else to say so.
    const wasDefault = !this.devices.current.preferred.microphone;
    this.switchMicrophone(
      cs,
      wasDefault ? { kind: "device-fallback", role: "microphone", label: track.label } : undefined,
    );
  }

  /** The device list changed: a call whose microphone's device is no longer listed has lost it. */
  check(microphones: readonly AudioDevice[]): void {
    // Before permission is granted the browser lists devices without ids: nothing to compare.
    if (!microphones.some((d) => d.deviceId)) return;
    for (const cs of this.sessions.all()) {
      const track = cs.microphone?.getAudioTracks()[0];
      if (!track) continue;
      const { deviceId, groupId } = track.getSettings?.() ?? {};
      if (!deviceId) continue;
      // Unplugging the system default device keeps a "default" entry, pointing at another device.
      const listed = microphones.some(
        (d) => d.deviceId === deviceId && (!groupId || !d.groupId || d.groupId === groupId),
      );
      if (!listed || track.readyState === "ended") this.lostOn(cs.id, track);
    }
  }

  private switchMicrophone(cs: CallSession, done?: NoticeBody): void {
    cs.switchMicrophone(() => this.devices.openMicrophone())
      .then(() => {
        if (done) this.notice(done);
      })
      .catch((e: unknown) =>
        this.notice({ kind: "microphone-unavailable", callId: cs.id, error: PhoneError.infoOf(e) }),
      );
  }
}
