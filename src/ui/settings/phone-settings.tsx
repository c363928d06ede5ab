import { useId, useState } from "preact/hooks";
import { effectiveSipWebSocketUrl, formatIceServers, parseIceServers, type Settings } from "../../session";
import { useModel, usePhone } from "../model/model";
import { Field } from "../shared/field";
import { ToolbarSettings } from "./toolbar-settings";

function Choice<K extends "autoAnswer" | "dtmfMode" | "referPolicy">({
  name,
  label,
  options,
}: {
  name: K;
  label: string;
  options: Record<Settings[K], string>;
}) {
  const { settings, settingsStore } = useModel();
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={settings.value[name]}
        onChange={(e) => settingsStore.getState().change({ [name]: e.currentTarget.value } as Partial<Settings>)}
      >
        {(Object.keys(options) as Settings[K][]).map((k) => (
          <option key={k} value={k}>
            {options[k]}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The phone's settings; the connection fields apply with Apply (they restart the phone when idle). */
export function PhoneSettingsPanel() {
  const model = useModel();
  const { t, settings, settingsStore, session, announce } = model;
  const p = usePhone();
  const m = t.value.phone;
  const id = useId();
  const s = settings.value;
  const [url, setUrl] = useState(s.sipWebSocketUrl);
  const [ice, setIce] = useState(formatIceServers(s.iceServers));
  const [problem, setProblem] = useState<{ field: "url" | "ice"; text: string } | null>(null);
  const defaultUrl = effectiveSipWebSocketUrl({ ...s, sipWebSocketUrl: "" }, session.value.platformUrl, location.href);
  const permission = p.alerts.permission.value;

  const apply = (e: Event) => {
    e.preventDefault();
    const u = url.trim();
    if (u && !/^wss?:\/\/\S+$/i.test(u)) return setProblem({ field: "url", text: m.sipUrlProblem });
    const parsed = parseIceServers(ice);
    if (!parsed.ok) return setProblem({ field: "ice", text: m.iceProblem[parsed.problem.kind](parsed.problem.line) });
    setProblem(null);
    settingsStore.getState().change({ sipWebSocketUrl: u, iceServers: parsed.servers });
    announce(m.applied);
  };

  return (
    <>
      <form class="settings-panel" aria-label={m.settings} onSubmit={apply} noValidate>
        <Field
          id={`${id}-url`}
          label={m.sipUrl}
          hint={m.sipUrlHint(defaultUrl)}
          problem={problem?.field === "url" ? problem.text : ""}
        >
          {(control) => (
            <input
              {...control}
              type="url"
              value={url}
              placeholder={defaultUrl}
              spellcheck={false}
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          id={`${id}-ice`}
          label={m.iceServers}
          hint={m.iceHint}
          problem={problem?.field === "ice" ? problem.text : ""}
        >
          {(control) => (
            <textarea
              {...control}
              rows={3}
              value={ice}
              spellcheck={false}
              placeholder="stun:stun.example.com:3478"
              onInput={(e) => setIce(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="secondary">
          {m.apply}
        </button>
        <Choice name="autoAnswer" label={m.autoAnswer} options={m.autoAnswerOption} />
        <Choice name="dtmfMode" label={m.dtmfMode} options={m.dtmfOption} />
        <Choice name="referPolicy" label={m.referPolicy} options={m.referOption} />
        {permission !== "unsupported" && (
          <div class="check-field">
            <input
              id={`${id}-alerts`}
              type="checkbox"
              checked={s.desktopAlerts && permission === "granted"}
              disabled={permission === "denied"}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                settingsStore.getState().change({ desktopAlerts: on });
                // Asked from this click: browsers refuse to ask otherwise.
                if (on && permission !== "granted") void p.alerts.requestPermission();
              }}
            />
            <label for={`${id}-alerts`}>{m.desktopAlerts}</label>
            {permission === "denied" && <p class="field-note">{m.notificationsBlocked}</p>}
          </div>
        )}
      </form>
      {model.agent && <ToolbarSettings />}
    </>
  );
}
