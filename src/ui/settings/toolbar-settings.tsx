import { useId, useState } from "preact/hooks";
import {
  effectiveEventChannelUrl,
  SHORTCUT_ACTIONS,
  shortcutFromEvent,
  type Settings,
  type ShortcutAction,
} from "../../session";
import { useModel } from "../model/model";
import { Field } from "../shared/field";

const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

/**
 * The toolbar's settings, under the phone's: the event channel's address, break reasons and call
 * outcomes, auto-answer of queue calls, how dial-pad calls go out, the layout, and the keyboard
 * shortcuts (recorded by pressing them).
 */
export function ToolbarSettings() {
  const { t, settings, settingsStore, session, announce } = useModel();
  const m = t.value.agent;
  const s = settings.value;
  const id = useId();
  const [events, setEvents] = useState(s.eventChannelUrl);
  const [reasons, setReasons] = useState(s.breakReasons.join("\n"));
  const [dispositions, setDispositions] = useState(s.dispositions.join("\n"));
  const [problem, setProblem] = useState("");
  const change = (patch: Partial<Settings>) => settingsStore.getState().change(patch);
  const defaultEvents = effectiveEventChannelUrl(
    { ...s, eventChannelUrl: "" },
    session.value.platformUrl,
    location.href,
  );

  const apply = (e: Event) => {
    e.preventDefault();
    const u = events.trim();
    if (u && !/^wss?:\/\/\S+$/i.test(u)) return setProblem(t.value.phone.sipUrlProblem);
    setProblem("");
    change({ eventChannelUrl: u, breakReasons: lines(reasons), dispositions: lines(dispositions) });
    announce(t.value.phone.applied);
  };

  return (
    <form class="settings-panel toolbar-settings" aria-label={m.settings} onSubmit={apply} noValidate>
      <h3>{m.settings}</h3>
      <Field id={`${id}-ev`} label={m.eventsUrl} hint={t.value.phone.sipUrlHint(defaultEvents)} problem={problem}>
        {(control) => (
          <input
            {...control}
            type="url"
            value={events}
            placeholder={defaultEvents}
            spellcheck={false}
            onInput={(e) => setEvents(e.currentTarget.value)}
          />
        )}
      </Field>
      <div class="field">
        <label for={`${id}-br`}>{m.breakReasons}</label>
        <textarea
          id={`${id}-br`}
          rows={3}
          value={reasons}
          placeholder={m.defaultReasons.join("\n")}
          aria-describedby={`${id}-list`}
          onInput={(e) => setReasons(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for={`${id}-ds`}>{m.dispositions}</label>
        <textarea
          id={`${id}-ds`}
          rows={3}
          value={dispositions}
          placeholder={m.defaultDispositions.join("\n")}
          aria-describedby={`${id}-list`}
          onInput={(e) => setDispositions(e.currentTarget.value)}
        />
        <p id={`${id}-list`} class="field-note">
          {m.listHint}
        </p>
      </div>
      <button type="submit" class="secondary">
        {t.value.phone.apply}
      </button>
      <div class="field">
        <label for={`${id}-qa`}>{m.queueAutoAnswer}</label>
        <select
          id={`${id}-qa`}
          value={String(s.queueAutoAnswerSec)}
          onChange={(e) => change({ queueAutoAnswerSec: Number(e.currentTarget.value) })}
        >
          <option value="-1">{m.queueAutoAnswerOff}</option>
          {[0, 2, 5, 10].map((sec) => (
            <option key={sec} value={String(sec)}>
              {m.queueAutoAnswerAfter(sec)}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={`${id}-wu`}>{m.wrapUpMax}</label>
        <select
          id={`${id}-wu`}
          value={String(s.wrapUpMaxSec)}
          onChange={(e) => change({ wrapUpMaxSec: Number(e.currentTarget.value) })}
        >
          <option value="0">{m.wrapUpMaxOff}</option>
          {[60, 120, 300, 600].map((sec) => (
            <option key={sec} value={String(sec)}>
              {m.wrapUpMaxAfter(sec)}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={`${id}-out`}>{m.outboundCalls}</label>
        <select
          id={`${id}-out`}
          value={s.outboundCalls}
          onChange={(e) => change({ outboundCalls: e.currentTarget.value as Settings["outboundCalls"] })}
        >
          {(["call-center", "phone"] as const).map((k) => (
            <option key={k} value={k}>
              {m.outboundOption[k]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={`${id}-lay`}>{m.layout}</label>
        <select
          id={`${id}-lay`}
          value={s.layout}
          aria-describedby={`${id}-lay-note`}
          onChange={(e) => change({ layout: e.currentTarget.value as Settings["layout"] })}
        >
          {(["full", "side", "bar"] as const).map((k) => (
            <option key={k} value={k}>
              {m.layoutOption[k]}
            </option>
          ))}
        </select>
        <p id={`${id}-lay-note`} class="field-note">
          {m.layoutHint}
        </p>
      </div>
      <fieldset class="shortcuts">
        <legend>{m.shortcuts}</legend>
        {SHORTCUT_ACTIONS.map((action) => (
          <ShortcutField key={action} action={action} />
        ))}
        <p class="field-note">{m.shortcutHint}</p>
      </fieldset>
    </form>
  );
}

/** A field that records the keys pressed in it as the action's shortcut. */
function ShortcutField({ action }: { action: ShortcutAction }) {
  const { t, settings, settingsStore, announce } = useModel();
  const m = t.value.agent;
  const id = useId();
  const [note, setNote] = useState("");
  const keys = settings.value.shortcuts;
  return (
    <div class="shortcut-field">
      <label for={id}>{m.shortcutNames[action]}</label>
      <input
        id={id}
        readOnly
        value={keys[action]}
        aria-describedby={note ? `${id}-n` : undefined}
        onKeyDown={(e) => {
          if (e.key === "Tab") return;
          e.preventDefault();
          e.stopPropagation();
          if (e.key === "Backspace" || e.key === "Delete") {
            settingsStore.getState().change({ shortcuts: { ...keys, [action]: "" } });
            return setNote("");
          }
          const pressed = shortcutFromEvent(e);
          if (!pressed) return;
          const taken = SHORTCUT_ACTIONS.find((a) => a !== action && keys[a] === pressed);
          if (taken) {
            const text = m.shortcutTaken(m.shortcutNames[taken]);
            setNote(text);
            return announce(text);
          }
          setNote("");
          settingsStore.getState().change({ shortcuts: { ...keys, [action]: pressed } });
        }}
      />
      {note && (
        <p id={`${id}-n`} class="field-note is-problem">
          {note}
        </p>
      )}
    </div>
  );
}
