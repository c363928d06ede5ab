import { useId } from "preact/hooks";
import type { AudioDevice, AudioDeviceRole } from "../../softphone";
import { VolumeIcon } from "../icons";
import { withEnglishPanels } from "../i18n";
import { lazy } from "../lazy";
import { useModel, usePhone } from "../model/model";

function DeviceSelect({ role, devices }: { role: AudioDeviceRole; devices: readonly AudioDevice[] }) {
  const { t } = useModel();
  const p = usePhone();
  const id = useId();
  const m = t.value.phone;
  const selected = p.state.value.devices.selected[role];
  // Chromium lists the default device again as "default"; "System default" already stands for it.
  const list = devices.filter((d) => d.deviceId && d.deviceId !== "default" && d.deviceId !== "communications");
  return (
    <div class="field">
      <label for={id}>{m[role]}</label>
      <select
        id={id}
        value={list.some((d) => d.deviceId === selected) ? selected : ""}
        onChange={(e) =>
          void p.phone
            .chooseDevice(role, e.currentTarget.value)
            .catch((x: unknown) => console.warn("agentbar: device choice failed", x))
        }
      >
        <option value="">{m.systemDefault}</option>
        {list.map((d, i) => (
          <option key={d.deviceId} value={d.deviceId}>
            {d.label || `${m[role]} ${i + 1}`}
          </option>
        ))}
      </select>
    </div>
  );
}

// The pre-call check (meter, echo test, diagnostics file) comes when the panel is first opened.
const PreCallCheck = lazy(() => withEnglishPanels(import("./pre-call-check")).then((m) => m.PreCallCheck));

/** Microphone, speaker and a separate ringer; changes apply to running calls at once. */
export function DevicesPanel() {
  const { t } = useModel();
  const p = usePhone();
  const m = t.value.phone;
  const d = p.state.value.devices;
  return (
    <div class="devices-panel" role="group" aria-label={m.devices}>
      <DeviceSelect role="microphone" devices={d.microphones} />
      {d.canChooseOutput ? (
        <>
          <DeviceSelect role="speaker" devices={d.speakers} />
          <DeviceSelect role="ringer" devices={d.speakers} />
        </>
      ) : (
        <p class="field-note">{m.outputFixed}</p>
      )}
      <button type="button" class="secondary" onClick={() => p.testRinger()}>
        <VolumeIcon />
        <span>{m.testRinger}</span>
      </button>
      <PreCallCheck />
    </div>
  );
}
